package server

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
)

// FuzzMatchTake: any bytes as a Substrait plan (a client's plan is
// untrusted) match the take shape or not, never panic; a match names a
// table, a parameter and an output with ord.
func FuzzMatchTake(f *testing.F) {
	db := engine.OpenMemory(engine.Options{})
	ctx := context.Background()
	if _, err := db.Exec(ctx, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT)", nil); err != nil {
		f.Fatal(err)
	}
	for _, q := range []string{
		`SELECT v.ord, t._rowaddr, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`,
		`SELECT t.s, v.rowid, v.ord FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) JOIN t ON v.rowid = t._rowid`,
		`SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t.k = v.rowid`,
	} {
		js, _, err := db.SubstraitOf(ctx, q)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(js)
	}
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := matchTake(decodePlan(b))
		if s == nil {
			return
		}
		if s.table == "" || s.param < 1 {
			t.Fatalf("match without a table or parameter: %+v", s)
		}
		ord := false
		for _, o := range s.out {
			ord = ord || o.kind == outOrd
		}
		if !ord {
			t.Fatalf("match without ord: %+v", s)
		}
	})
}

// TestMatchTake: the seed shapes match with the right outputs; near
// misses do not.
func TestMatchTake(t *testing.T) {
	db := engine.OpenMemory(engine.Options{})
	ctx := context.Background()
	_, err := db.Exec(ctx, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT); CREATE TABLE u (k BIGINT)", nil)
	require.NoError(t, err)
	match := func(q string) *takeShape {
		js, _, err := db.SubstraitOf(ctx, q)
		require.NoError(t, err, q)
		return matchTake(decodePlan(js))
	}
	s := match(`SELECT v.ord, t._rowaddr AS a, t.k, v.rowid FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`)
	require.NotNil(t, s)
	require.Equal(t, &takeShape{table: "t", param: 1, out: []outCol{{kind: outOrd}, {kind: outTable, name: "_rowaddr"}, {kind: outTable, name: "k"}, {kind: outRowID}}}, s)
	s = match(`SELECT t.s, v.ord FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) JOIN u ON true JOIN t ON t._rowid = v.rowid`)
	require.Nil(t, s, "two joins")
	s = match(`SELECT t.s, v.ord FROM u, UNNEST($1) WITH ORDINALITY AS v(rowid, ord) JOIN t ON t._rowid = v.rowid`)
	require.Nil(t, s)
	s = match(`SELECT x.s, x.o FROM (SELECT t.s, v.ord AS o FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) JOIN t ON t._rowid = v.rowid) x`)
	if s != nil { // a subquery in FROM may lower to the same shape: then it is the same statement
		require.Equal(t, "t", s.table)
	}
	for _, q := range []string{
		`SELECT o.ord, t.k FROM UNNEST($1) AS v(rowid) LEFT JOIN t ON t._rowid = v.rowid CROSS JOIN (SELECT 1 AS ord) o`,
		`SELECT v.ord, t.k FROM UNNEST(ARRAY[1,2,3]) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`,
		`SELECT v.ord, t.k FROM UNNEST($1::text[]) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t.s = v.rowid`,
		`SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) RIGHT JOIN t ON t._rowid = v.rowid`,
		`SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid AND t.k > 1`,
		`SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.ord`,
		`SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY t.k`,
		// An order asked for is kept: one endpoint.
		`SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`,
		`SELECT DISTINCT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`,
		`SELECT v.ord, count(*) FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid GROUP BY v.ord`,
	} {
		js, _, err := db.SubstraitOf(ctx, q)
		require.NoError(t, err, q)
		require.Nil(t, matchTake(decodePlan(js)), q)
	}
}
