package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// timeRows runs q (in s, if not nil) and returns its rows with timestamp
// and date cells as their int64 microseconds or days (exectest.Rows has
// no timestamps), other cells as exectest reads them.
func timeRows(t *testing.T, db *engine.DB, s *engine.Session, q string) [][]any {
	t.Helper()
	ctx := context.Background()
	var res *engine.Result
	var err error
	if s != nil {
		res, err = s.Exec(ctx, q, nil)
	} else {
		res, err = db.Exec(ctx, q, nil)
	}
	require.NoError(t, err, q)
	defer res.Release()
	var out [][]any
	for _, b := range res.Batches {
		for r := 0; r < int(b.NumRows()); r++ {
			var row []any
			for c := 0; c < int(b.NumCols()); c++ {
				switch col := b.Column(c).(type) {
				case *array.Timestamp:
					row = append(row, int64(col.Value(r)))
				case *array.Date32:
					row = append(row, int64(col.Value(r)))
				case *array.Boolean:
					row = append(row, col.Value(r))
				case *array.Int64:
					row = append(row, col.Value(r))
				default:
					t.Fatalf("column %d: %T", c, col)
				}
			}
			out = append(out, row)
		}
	}
	return out
}

func micros(t *testing.T, v any) int64 {
	t.Helper()
	us, ok := v.(int64)
	require.True(t, ok, "%T", v)
	return us
}

// now(), CURRENT_TIMESTAMP and LOCALTIMESTAMP are one value for every row
// and call of a statement, taken when the statement starts (within the
// bound of the Go clock around it), CURRENT_DATE its UTC date; the next
// statement's value is not earlier; inside BEGIN ... COMMIT every
// statement sees the BEGIN's time, as PostgreSQL's transaction start.
func TestNowFixedPerStatement(t *testing.T) {
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	run(t, db, `CREATE TABLE t (k BIGINT NOT NULL)`, nil)
	run(t, db, `INSERT INTO t SELECT g FROM generate_series(1, 5000) AS g(g)`, nil)

	before := time.Now().UnixMicro()
	rows := timeRows(t, db, nil, `SELECT now(), current_timestamp, localtimestamp, transaction_timestamp(), current_date FROM t WHERE k % 7 = 0 OR now() < TIMESTAMP '2000-01-01'`)
	after := time.Now().UnixMicro()
	require.Len(t, rows, 5000/7)
	first := micros(t, rows[0][0])
	require.GreaterOrEqual(t, first, before)
	require.LessOrEqual(t, first, after)
	for _, r := range rows {
		for _, v := range r[:4] {
			require.Equal(t, first, micros(t, v), "one value per statement")
		}
		require.Equal(t, first/86_400_000_000, r[4], "the UTC date of now()")
	}
	// A scalar subquery's now() is the statement's too.
	same := timeRows(t, db, nil, `SELECT now() = (SELECT max(now()) FROM t), count(DISTINCT now()) FROM t`)
	require.Equal(t, []any{true, int64(1)}, same[0])

	// Monotonic across statements.
	prev := first
	for i := 0; i < 3; i++ {
		next := micros(t, timeRows(t, db, nil, `SELECT now()`)[0][0])
		require.GreaterOrEqual(t, next, prev)
		prev = next
	}

	// Fixed for a transaction block from its BEGIN.
	s := db.NewSession()
	defer s.Close()
	begin := time.Now().UnixMicro()
	sessRun(t, s, `BEGIN`)
	in1 := micros(t, timeRows(t, db, s, `SELECT now()`)[0][0])
	time.Sleep(2 * time.Millisecond)
	in2 := micros(t, timeRows(t, db, s, `SELECT current_timestamp FROM t LIMIT 1`)[0][0])
	require.Equal(t, in1, in2, "one value for the block")
	require.GreaterOrEqual(t, in1, begin)
	sessRun(t, s, `COMMIT`)
	out := micros(t, timeRows(t, db, s, `SELECT now()`)[0][0])
	require.Greater(t, out, in1, "after COMMIT a statement is its own transaction")
}
