package sql

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// usingProject is the projection a USING join adds over its join: the
// merged columns, then every column of both sides.
func usingProject(t *testing.T, root plan.Rel) *plan.ProjectRel {
	t.Helper()
	top, ok := root.(*plan.ProjectRel)
	require.True(t, ok, "root %T", root)
	p, ok := top.Input().(*plan.ProjectRel)
	require.True(t, ok, "under the SELECT list: %T", top.Input())
	_, ok = p.Input().(*plan.JoinRel)
	require.True(t, ok, "under the USING projection: %T", p.Input())
	return p
}

// TestUsingJoinStar: * is the merged column, then the other columns of
// each side; t.* and u.* are each side's own columns, USING ones too.
func TestUsingJoinStar(t *testing.T) {
	for _, q := range []string{"SELECT * FROM t JOIN u USING (id)", "SELECT * FROM t NATURAL JOIN u", `SELECT * FROM t JOIN u USING ("ID")`} {
		_, _, names := parseQuery(t, q)
		assert.Equal(t, []string{"id", "name", "score", "flag"}, names, q)
	}
	_, _, names := parseQuery(t, "SELECT u.*, t.* FROM t JOIN u USING (id)")
	assert.Equal(t, []string{"id", "flag", "id", "name", "score"}, names)
	_, _, names = parseQuery(t, "SELECT j.* FROM t JOIN u USING (id) AS j")
	assert.Equal(t, []string{"id"}, names)
}

// TestUsingMergedColumn: an unqualified USING column is the left's for
// INNER and LEFT, the right's for RIGHT and COALESCE of both for FULL
// (buildMergedJoinVar); t.id and u.id stay their sides' own.
func TestUsingMergedColumn(t *testing.T) {
	// Join record: t.id 0, name 1, score 2, t._rowid 3, t._rowaddr 4,
	// u.id 5, flag 6, ...
	for _, c := range []struct {
		join  string
		field int32
		null  types.Nullability
	}{
		{"JOIN", 0, types.NullabilityNullable},
		{"LEFT JOIN", 0, types.NullabilityNullable},
		{"RIGHT JOIN", 5, types.NullabilityRequired}, // u.id is NOT NULL and RIGHT keeps every u row
	} {
		_, root, _ := parseQuery(t, "SELECT id, t.id, u.id FROM t "+c.join+" u USING (id)")
		p := usingProject(t, root)
		require.Len(t, p.Expressions(), 1, c.join)
		assert.Equal(t, c.field, fieldIndex(t, p.Expressions()[0]), c.join)
		assert.Equal(t, c.null, p.Expressions()[0].GetType().GetNullability(), c.join)
		top := root.(*plan.ProjectRel)
		// Over the USING projection: merged id 0, then t.id 1 ... u.id 6.
		assert.Equal(t, []int32{0, 1, 6}, []int32{fieldIndex(t, top.Expressions()[0]), fieldIndex(t, top.Expressions()[1]), fieldIndex(t, top.Expressions()[2])}, c.join)
	}
	_, root, _ := parseQuery(t, "SELECT id FROM t FULL JOIN u USING (id)")
	f, ok := usingProject(t, root).Expressions()[0].(*expr.ScalarFunction)
	require.True(t, ok)
	assert.Equal(t, "coalesce", f.Name())
	assert.Equal(t, int32(0), fieldIndex(t, f.Arg(0).(expr.Expression)))
	assert.Equal(t, int32(5), fieldIndex(t, f.Arg(1).(expr.Expression)))
}

// TestUsingJoinErrors: PostgreSQL's errors for a USING name missing or
// repeated on a side, a name twice in USING, and a side's own USING
// column named unqualified next to the other's (system columns are never
// merged: NATURAL JOIN leaves them out, as PostgreSQL's colnames do).
func TestUsingJoinErrors(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want error
		msg  string
	}{
		{"SELECT * FROM t JOIN u USING (name)", ErrUnknownColumn, `column "name" specified in USING clause does not exist in right table`},
		{"SELECT * FROM t JOIN u USING (flag)", ErrUnknownColumn, `column "flag" specified in USING clause does not exist in left table`},
		{"SELECT * FROM t JOIN u USING (_rowid)", ErrUnknownColumn, `does not exist in left table`},
		{"SELECT * FROM t JOIN u USING (id, id)", ErrAmbiguous, `column name "id" appears more than once in USING clause`},
		{"SELECT * FROM t CROSS JOIN u JOIN u AS v USING (id)", ErrAmbiguous, `common column name "id" appears more than once in left table`},
		{"SELECT _rowid FROM t NATURAL JOIN u", ErrAmbiguous, `column reference "_rowid" is ambiguous`},
		{"SELECT * FROM t JOIN u USING (id) AS t", ErrAmbiguous, `table name "t" specified more than once`},
		{"SELECT * FROM t JOIN u USING (id, name)", ErrUnknownColumn, `does not exist in right table`},
		{"SELECT * FROM t JOIN (SELECT name AS id FROM t) s USING (id)", ErrType, `JOIN/USING types bigint and text cannot be matched`},
	} {
		_, err := Parse(c.sql, testCatalog)
		require.Error(t, err, c.sql)
		assert.True(t, errors.Is(err, c.want), "%s: %v", c.sql, err)
		assert.Contains(t, err.Error(), c.msg, c.sql)
	}
}
