package sql

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInsertOnConflictDoUpdate: DO UPDATE lowers its SET list and WHERE
// to an action over the conflict pairs (the existing row under the
// table's name or its alias, the proposed one as EXCLUDED), as
// transformOnConflictClause does: a name both rows have is ambiguous
// unqualified, the table's name is hidden by an alias, SET (a, b) =
// (x, y) assigns item by item, and without an arbiter DO UPDATE is a
// syntax error (42601).
func TestInsertOnConflictDoUpdate(t *testing.T) {
	ins := parseOne(t, "INSERT INTO t VALUES (1, 'a', 2) ON CONFLICT (id) DO UPDATE SET score = t.score + excluded.score, name = 'x' WHERE t.name <> excluded.name").(*Insert)
	require.NotNil(t, ins.OnConflict.Update)
	assert.Equal(t, []string{"id"}, ins.OnConflict.Columns)
	q := ins.OnConflict.Update.Action
	assert.Equal(t, []string{"o", "id", "name", "score"}, q.Plan.Relations[0].GetRoot().Names)
	assert.Empty(t, ins.OnConflict.Update.Checks)
	for _, ok := range []string{
		"INSERT INTO t AS x VALUES (1) ON CONFLICT (id) DO UPDATE SET score = x.score",
		"INSERT INTO t VALUES (1) ON CONFLICT ON CONSTRAINT t_pkey DO UPDATE SET (name, score) = (excluded.name, 1)",
		"INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET score = EXCLUDED.score WHERE false",
	} {
		ins := parseOne(t, ok).(*Insert)
		require.NotNil(t, ins.OnConflict.Update, ok)
	}
	for q, want := range map[string]error{
		"INSERT INTO t VALUES (1) ON CONFLICT DO UPDATE SET score = 1":                            ErrSyntax,
		"INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET score = score + 1":               ErrAmbiguous,
		"INSERT INTO t AS x VALUES (1) ON CONFLICT (id) DO UPDATE SET score = t.score":            ErrUnknownTable,
		"INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET score = 1, score = 2":            ErrInvalid,
		"INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET (name, score) = (SELECT 'a', 1)": ErrUnsupported,
		"INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET nope = 1":                        ErrUnknownColumn,
		"INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET score = excluded.nope":           ErrUnknownColumn,
	} {
		_, err := Parse(q, testCatalog)
		assert.ErrorIs(t, err, want, q)
	}
}
