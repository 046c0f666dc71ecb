package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/priority"
)

// TestPriority: under WithPriority, heavy statements (a sort, an
// aggregation, a hash join) park at their batch boundaries while a light
// ticket is out, and a light statement runs to its end meanwhile, the
// heavy ones still parked; each heavy statement's own ticket (the one its
// call held while it was planned) was demoted, so they do not hold each
// other back. Once the light work ends they finish with the answers they
// give without a gate.
func TestPriority(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 1024})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL);
		INSERT INTO t SELECT (g * 7919) % 50000 FROM generate_series(1, 50000) AS g(g)`, nil)
	require.NoError(t, err)
	heavy := []string{
		"SELECT k FROM t ORDER BY k",
		"SELECT x % 7 AS m, count(*) FROM generate_series(1, 200000) AS s(x) GROUP BY 1 ORDER BY 1",
		"SELECT count(*) FROM t AS a JOIN t AS b ON a.k = b.k",
	}
	want := make([][][]any, len(heavy))
	for i, q := range heavy {
		want[i] = run(t, db, q, nil)
	}

	g := priority.NewGate(priority.Options{MaxLight: time.Hour, MaxPark: time.Hour})
	pctx := engine.WithPriority(ctx, g)
	light := g.Light()
	type answer struct {
		rows [][]any
		err  error
	}
	done := make([]chan answer, len(heavy))
	for i, q := range heavy {
		own := g.Light()
		rows, err := db.Query(priority.WithTicket(pctx, own), q, nil)
		require.NoError(t, err)
		require.True(t, own.Demoted(), "%s was planned as heavy", q)
		done[i] = make(chan answer, 1)
		go func() {
			var a answer
			for rows.Next() {
				got, err := exectest.Rows(rows.Batch())
				if err != nil {
					a.err = err
					break
				}
				a.rows = append(a.rows, got...)
			}
			if err := rows.Close(); a.err == nil {
				a.err = err
			}
			done[i] <- a
		}()
	}
	require.Eventually(t, func() bool { return g.Stats().Parked == int64(len(heavy)) }, time.Minute, time.Millisecond,
		"every heavy statement parks while the light ticket is out")

	lt := g.Light()
	res, err := db.Exec(priority.WithTicket(pctx, lt), "SELECT 1 + 1", nil)
	lt.Done()
	require.NoError(t, err)
	got, err := exectest.Rows(res.Batches...)
	res.Release()
	require.NoError(t, err)
	require.Equal(t, [][]any{{int32(2)}}, got)
	require.False(t, lt.Demoted(), "SELECT 1 + 1 is light")
	require.EqualValues(t, len(heavy), g.Stats().Parked, "the heavy statements stayed parked while the light one ran")
	for i := range heavy {
		select {
		case <-done[i]:
			t.Fatalf("%s finished while light work was in flight", heavy[i])
		default:
		}
	}

	light.Done()
	for i, q := range heavy {
		a := <-done[i]
		require.NoError(t, a.err, q)
		require.Equal(t, want[i], a.rows, q)
	}
	st := g.Stats()
	require.Zero(t, st.Parked)
	require.GreaterOrEqual(t, st.Parks, int64(len(heavy)))
}
