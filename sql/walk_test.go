package sql

import (
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stretchr/testify/require"
)

// relationNames finds every relation a statement names, in subqueries,
// CTEs and DML too, once each (what a TableNamer catalog pins).
func TestRelationNames(t *testing.T) {
	for sql, want := range map[string][]string{
		"SELECT v.ord FROM UNNEST($1) WITH ORDINALITY AS v(id, ord) LEFT JOIN t ON t._rowid = v.id": {"t"},
		"SELECT * FROM a, b WHERE a.k IN (SELECT k FROM c) AND EXISTS (SELECT 1 FROM a)":            {"a", "b", "c"},
		"WITH x AS (SELECT * FROM u) INSERT INTO t SELECT * FROM x":                                 {"x", "u", "t"},
		`DELETE FROM "T" WHERE k = 1`: {"T"},
		"SELECT 1":                    nil,
	} {
		tree, err := pg_query.Parse(sql)
		require.NoError(t, err)
		require.ElementsMatch(t, want, relationNames(tree.Stmts[0].Stmt), sql)
	}
}
