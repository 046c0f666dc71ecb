package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stablerow/stablerow/engine"
)

var (
	updOnce sync.Once
	updDir  string
	updErr  error
)

// updatedDB builds, once per process, the 10M-row table of benchDB with a
// BTree on _rowid and then updates 1% of its rows (every 100th k): the
// updated rows move to a fragment the index does not cover, and every
// take must still find them.
func updatedDB(b *testing.B) string {
	updOnce.Do(func() {
		updDir, updErr = os.MkdirTemp("", "stablerow-bench-updated-")
		if updErr != nil {
			return
		}
		ctx := context.Background()
		db, err := engine.Open(updDir, engine.Options{})
		if err != nil {
			updErr = err
			return
		}
		if _, updErr = db.CreateTable(ctx, "t", benchSchema); updErr != nil {
			return
		}
		if _, updErr = db.Append(ctx, "t", &genReader{n: benchRows}); updErr != nil {
			return
		}
		if updErr = db.CreateIndex(ctx, "t", "rid", "_rowid"); updErr != nil {
			return
		}
		res, err := db.Exec(ctx, "UPDATE t SET payload = -1 WHERE k % 100 = 7", nil)
		if err != nil {
			updErr = err
			return
		}
		if res.RowsAffected != benchRows/100 {
			updErr = fmt.Errorf("updated %d rows, want %d", res.RowsAffected, benchRows/100)
		}
		res.Release()
	})
	if updErr != nil {
		b.Fatal(updErr)
	}
	return updDir
}

func benchUpdated(b *testing.B, nids int) {
	db, err := engine.Open(updatedDB(b), engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	timeQuery(b, db, seedSQL, nids)
}

// The seed query before (BenchmarkSeedQuery10M_*: the same table, no
// update) and after updating 1% of 10M rows: the moved rows' ids are
// resolved from the new fragment's row id sequence, with no data read,
// so the take stays index-fast.
func BenchmarkSeedQuery10M_10(b *testing.B)         { benchSeed(b, 10, seedSQL, false) }
func BenchmarkSeedQueryUpdated10M_10(b *testing.B)  { benchUpdated(b, 10) }
func BenchmarkSeedQueryUpdated10M_10K(b *testing.B) { benchUpdated(b, 10_000) }

// BenchmarkTakeMemoryUpdated10M_10MIDs counts a take of 10M driving ids
// (random over the table, 1% of them moved by the update) and reports the
// peak Go heap while it runs: the take's state is bounded by the probe
// batch (DefaultProbeBatch keys), including the fallback for the moved
// rows. The driving list itself (80 MB of int64 ids, and the unnest's
// copy) is part of the figure on both sides of a comparison.
func BenchmarkTakeMemoryUpdated10M_10MIDs(b *testing.B) {
	db, err := engine.Open(updatedDB(b), engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	const n = 10_000_000
	r := rand.New(rand.NewPCG(10, 10))
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = r.Int64N(benchRows)
	}
	sql := strings.Replace(seedSQL, "SELECT v.ord, t._rowaddr", "SELECT count(t._rowaddr)", 1)
	sql = strings.Replace(sql, " ORDER BY v.ord", "", 1)
	params := map[string]any{"ids": ids}
	ctx := context.Background()
	var peak uint64
	for b.Loop() {
		runtime.GC()
		stop := samplePeakHeap(&peak)
		res, err := db.Exec(ctx, sql, params)
		stop()
		if err != nil {
			b.Fatal(err)
		}
		res.Release()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// samplePeakHeap polls the live heap every millisecond into *peak until
// the returned stop is called.
func samplePeakHeap(peak *uint64) (stop func()) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
