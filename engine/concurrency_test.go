package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
)

// TestConcurrentWritersAndTakes: writers append and delete through SQL
// while a maintainer runs VACUUM FULL, CLUSTER and REINDEX and readers run the
// seed query. Every conflict is typed; every reader answer is whole (a hit
// carries the row id asked for and its row, a miss is all NULL, one row per
// id in order); the final table equals the model of the writes that
// landed, read with and without indexes.
func TestConcurrentWritersAndTakes(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Mem: mem, Table: table.Options{MaxRowsPerFragment: 200, BatchRows: 32}})
	require.NoError(t, err)
	_, err = db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
		CREATE INDEX rid ON t USING btree (_rowid);
		CREATE INDEX kx ON t USING btree (k)`, nil)
	require.NoError(t, err)

	rounds := 30
	if testing.Short() {
		rounds = 12
	}
	var mu sync.Mutex
	appended := map[int64]bool{} // k values, unique per writer and round
	deleted := map[int64]bool{}
	typed := func(err error) bool { return err == nil || errors.Is(err, table.ErrConflict) }
	var wg, others sync.WaitGroup
	var maint, reads atomic.Int64
	errs := make(chan error, 64)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for round := range rounds {
				base := int64(w*1_000_000 + round*100)
				n := 1 + r.IntN(40)
				_, err := db.Exec(ctx, fmt.Sprintf("INSERT INTO t SELECT g, 'w' FROM generate_series(%d, %d) AS g(g)", base, base+int64(n)-1), nil)
				if err != nil {
					errs <- fmt.Errorf("append must rebase: %w", err)
					return
				}
				mu.Lock()
				for k := base; k < base+int64(n); k++ {
					appended[k] = true
				}
				mu.Unlock()
				if round%3 == 1 {
					victim := base + int64(r.IntN(n))
					res, err := db.Exec(ctx, fmt.Sprintf("DELETE FROM t WHERE k = %d", victim), nil)
					if !typed(err) {
						errs <- err
						return
					}
					if err == nil && res.RowsAffected == 1 {
						mu.Lock()
						deleted[victim] = true
						mu.Unlock()
					}
				}
			}
		}()
	}
	done := make(chan struct{})
	others.Add(2)
	go func() { // maintainer
		defer others.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			stmt := []string{"VACUUM FULL t", "CLUSTER t USING kx", "REINDEX INDEX rid", "REINDEX TABLE t"}[i%4]
			res, err := db.Exec(ctx, stmt, nil)
			res.Release() // VACUUM FULL reports what it did as rows
			if !typed(err) {
				errs <- fmt.Errorf("%s: %w", stmt, err)
				return
			}
			if err == nil {
				maint.Add(1)
			}
		}
	}()
	go func() { // reader
		defer others.Done()
		r := rand.New(rand.NewPCG(9, 9))
		for {
			select {
			case <-done:
				return
			default:
			}
			ids := make([]int64, 50)
			for i := range ids {
				ids[i] = r.Int64N(600)
			}
			res, err := db.Exec(ctx, `SELECT v.ord, t._rowid, t.k, t.s FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`, map[string]any{"ids": ids})
			if err != nil {
				errs <- fmt.Errorf("reader: %w", err)
				return
			}
			rows := 0
			for _, b := range res.Batches {
				rid, k := b.Column(1).(*array.Uint64), b.Column(2).(*array.Int64)
				for i := 0; i < int(b.NumRows()); i++ {
					if !rid.IsNull(i) && uint64(ids[rows]) != rid.Value(i) {
						errs <- fmt.Errorf("reader: ord %d got row id %d for id %d", rows+1, rid.Value(i), ids[rows])
					}
					if rid.IsNull(i) != k.IsNull(i) {
						errs <- fmt.Errorf("reader: half a row at ord %d", rows+1)
					}
					rows++
				}
			}
			res.Release()
			reads.Add(1)
			if rows != len(ids) {
				errs <- fmt.Errorf("reader: %d rows for %d ids", rows, len(ids))
			}
		}
	}()
	wg.Wait() // the writers
	close(done)
	others.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.Positive(t, maint.Load(), "some maintenance committed")
	require.Positive(t, reads.Load(), "the reader ran")
	t.Logf("maintenance commits %d, reader queries %d", maint.Load(), reads.Load())
	// Final state equals the model, with and without indexes.
	want := map[int64]bool{}
	for k := range appended {
		if !deleted[k] {
			want[k] = true
		}
	}
	for _, noIdx := range []bool{false, true} {
		db2, err := engine.Open(dir, engine.Options{Mem: mem, DisableIndexes: noIdx})
		require.NoError(t, err)
		res, err := db2.Exec(ctx, "SELECT k, _rowid FROM t", nil)
		require.NoError(t, err)
		got := map[int64]bool{}
		ids := map[uint64]bool{}
		for _, b := range res.Batches {
			k, rid := b.Column(0).(*array.Int64), b.Column(1).(*array.Uint64)
			for i := 0; i < k.Len(); i++ {
				require.False(t, got[k.Value(i)], "k %d twice", k.Value(i))
				require.False(t, ids[rid.Value(i)], "row id %d twice", rid.Value(i))
				got[k.Value(i)], ids[rid.Value(i)] = true, true
			}
		}
		res.Release()
		require.Equal(t, want, got)
	}
}
