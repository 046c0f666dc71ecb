package engine_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
)

// BenchmarkInList1M runs SELECT count(*) FROM t WHERE k IN (1M literals)
// over a 100K-row table, and the same ids through a parameter
// (issue 26 item 6); the CLI figures in BENCHMARKS.md "Issue 26" are the
// ones that compare, this is the harness for profiles.
func BenchmarkInList1M(b *testing.B) {
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{})
	if _, err := db.Exec(ctx, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT); INSERT INTO t SELECT g, 's' || g FROM generate_series(0, 99999) AS g(g)", nil); err != nil {
		b.Fatal(err)
	}
	const n = 1_000_000
	ids := make([]int64, n)
	var sb strings.Builder
	sb.WriteString("SELECT count(*) FROM t WHERE k IN (")
	for i := range ids {
		ids[i] = int64(i * 7)
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Itoa(i * 7))
	}
	sb.WriteString(")")
	for _, tc := range []struct {
		name, sql string
		params    map[string]any
	}{
		{"literals", sb.String(), nil},
		{"parameter", "SELECT count(*) FROM t WHERE k IN (SELECT u FROM UNNEST(:ids) AS x(u))", map[string]any{"ids": ids}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := db.Exec(ctx, tc.sql, tc.params)
				if err != nil {
					b.Fatal(err)
				}
				res.Release()
			}
		})
	}
}
