package tpch

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// isthmusDir holds Isthmus's TPC-H plans from the Substrait consumer test
// suite with the suite's SQL for each (README.md there names the commit).
const isthmusDir = "../../plan/testdata/producers/isthmus/tpch"

// isthmusDB is SF 0.01 TPC-H data loaded with the specification's DDL,
// made once for the Isthmus tests and benchmarks of this package.
func isthmusDB(tb testing.TB) *Srow {
	tb.Helper()
	ctx := context.Background()
	dir := tb.TempDir()
	require.NoError(tb, NewGenerator(0.01, 1, nil).WriteParquet(ctx, dir))
	s, err := OpenSrow(ctx, dir, "", DDLSpec, nil)
	require.NoError(tb, err)
	return s
}

// sortedRows is a's rows sorted as text: the suite's ORDER BY does not
// always order every row (Q3's ties), so answers are compared as sets.
func sortedRows(a *Answer) *Answer {
	out := &Answer{Columns: a.Columns, Rows: append([][]string(nil), a.Rows...)}
	sort.Slice(out.Rows, func(i, j int) bool { return strings.Join(out.Rows[i], "|") < strings.Join(out.Rows[j], "|") })
	return out
}

// TestIsthmusTPCH runs every Isthmus TPC-H plan committed under
// plan/testdata/producers/isthmus/tpch at SF 0.01: each must give the
// answer of the suite's SQL for the same query, run through the engine's
// SQL front end (whose answers TestTPCH checks against DuckDB).
func TestIsthmusTPCH(t *testing.T) {
	if testing.Short() {
		t.Skip("generates SF 0.01 data")
	}
	s := isthmusDB(t)
	plans, err := filepath.Glob(filepath.Join(isthmusDir, "q*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, plans)
	for _, p := range plans {
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			js, err := os.ReadFile(p)
			require.NoError(t, err)
			q, err := os.ReadFile(strings.TrimSuffix(p, ".json") + ".sql")
			require.NoError(t, err)
			want, sqlTime, err := s.Run(ctx, string(q))
			require.NoError(t, err, "the suite's SQL")
			got, planTime, err := s.RunSubstrait(ctx, js)
			require.NoError(t, err, "Isthmus's plan")
			require.NotEmpty(t, want.Rows)
			require.Empty(t, Diff(sortedRows(got), sortedRows(want)))
			t.Logf("%s: SQL %v, Isthmus plan %v", name, sqlTime, planTime)
		})
	}
}

// BenchmarkIsthmus runs Isthmus's cross-product plans of TPC-H Q2, Q3 and
// Q5 and the suite's SQL for the same query at SF 0.01 (issue 27: the
// plans must run within 2× of the SQL). A figure, not an assertion.
func BenchmarkIsthmus(b *testing.B) {
	s := isthmusDB(b)
	ctx := context.Background()
	for _, q := range []string{"q02", "q03", "q05"} {
		js, err := os.ReadFile(filepath.Join(isthmusDir, q+".json"))
		require.NoError(b, err)
		text, err := os.ReadFile(filepath.Join(isthmusDir, q+".sql"))
		require.NoError(b, err)
		b.Run(q+"/sql", func(b *testing.B) {
			for b.Loop() {
				_, _, err := s.Run(ctx, string(text))
				require.NoError(b, err)
			}
		})
		b.Run(q+"/isthmus", func(b *testing.B) {
			for b.Loop() {
				_, _, err := s.RunSubstrait(ctx, js)
				require.NoError(b, err)
			}
		})
	}
}
