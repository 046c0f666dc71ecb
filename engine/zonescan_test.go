package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// explainLines runs EXPLAIN [ANALYZE] q and returns its lines.
func explainLines(t *testing.T, db *engine.DB, q string) string {
	var text []string
	for _, r := range run(t, db, q, nil) {
		text = append(text, r[0].(string))
	}
	return strings.Join(text, "\n")
}

// TestZoneSkipInExplain: a WHERE's simple conjuncts on a clustered column
// reach the table scan, which skips the batches whose zone maps rule them
// out; EXPLAIN ANALYZE shows the scan's own
// figures (batches read and skipped, bytes read). A constant of a type
// outside the column's ordering family (bigint against numeric or float)
// is not used.
func TestZoneSkipInExplain(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	_, err := db.Exec(context.Background(), "CREATE TABLE zc (k BIGINT NOT NULL, i INTEGER, s TEXT, c CHAR(4)); INSERT INTO zc SELECT g, g % 1000, 'v' || g, CASE WHEN g % 2 = 0 THEN 'ab' END FROM generate_series(0, 99999) AS g(g)", nil)
	require.NoError(t, err)
	// 100000 rows in batches of 4096: 25 batches; 50000..50999 lies in
	// batches 12 (49152..53247) only.
	q := "SELECT count(*), sum(k) FROM zc WHERE k BETWEEN 50000 AND 50999"
	require.Equal(t, [][]any{{int64(1000), int64(50499500)}}, run(t, db, q, nil))
	plan := explainLines(t, db, "EXPLAIN ANALYZE "+q)
	require.Contains(t, plan, "batches_read=1,", plan)
	require.Contains(t, plan, "batches_skipped=24,", plan)
	require.Regexp(t, `bytes_read=[1-9]`, plan)

	for _, c := range []struct {
		where   string
		skipped string // the scan's batches_skipped; "" when no zone predicate may be used
		n       int64
	}{
		{"k > 99990", "24", 9},
		{"k IN (5, 70000, NULL)", "23", 2},
		{"i = 7 AND k < 5000", "23", 5},
		{"k < 2.5", "", 3},         // bigint < numeric: compared as numeric, not used
		{"k < 2.5::float8", "", 3}, // bigint < float8: compared as float8, not used
		{"k + 1 > 99990", "", 10},  // an expression of the column
		{"c IS NULL AND k < 10", "24", 5},
		{"c = 'ab  ' AND k < 10", "24", 5},
		{"s >= 'v99998'", "24", 2}, // in text order only batch 24 reaches 'v99998'
	} {
		q := "SELECT count(*) FROM zc WHERE " + c.where
		plan := explainLines(t, db, "EXPLAIN ANALYZE "+q)
		if c.skipped == "" {
			require.NotContains(t, plan, "batches_skipped", c.where)
		} else {
			require.Contains(t, plan, "batches_skipped="+c.skipped+",", c.where+"\n"+plan)
		}
		got := run(t, db, q, nil)
		require.Equal(t, [][]any{{c.n}}, got, c.where)
	}
}
