package exec_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// BenchmarkTakePeakHeap10MIDs: a take of 10M driving ids over a 1M-row
// table whose index covers only its first fragment (64K rows): almost
// every id is resolved by the fallback. The take streams: its state is
// bounded by the probe batch (DefaultProbeBatch keys) and the fallback
// searches row id sequences per probe batch, so the peak heap does not
// grow with the uncovered rows. Reports the peak live heap during the
// take with GOGC=10 (the 10M-id driving list, 80 MB, included).
func BenchmarkTakePeakHeap10MIDs(b *testing.B) {
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	tb, err := table.Create(ctx, store.NewMemory(), schema, table.Options{MaxRowsPerFragment: 1 << 16})
	if err != nil {
		b.Fatal(err)
	}
	const rows = 1 << 20
	for from := 0; from < rows; from += 1 << 16 {
		kb := array.NewInt64Builder(mem)
		for i := from; i < from+1<<16; i++ {
			kb.Append(int64(i))
		}
		k := kb.NewArray()
		kb.Release()
		rb := array.NewRecordBatch(schema, []arrow.Array{k}, int64(k.Len()))
		k.Release()
		if tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{rb}, mem); err != nil {
			b.Fatal(err)
		}
		rb.Release()
	}
	ix := &mapIndex{m: map[uint64][]uint64{}, covered: map[uint32]bool{0: true}}
	for id := uint64(0); id < 1<<16; id++ {
		ix.m[id] = []uint64{id} // fragment 0, offset id
	}
	r := rand.New(rand.NewPCG(1, 2))
	ids := make([]uint64, 10_000_000)
	for i := range ids {
		ids[i] = r.Uint64N(rows + rows/20)
	}
	// A low GC target makes the sampled peak close to the live heap
	// rather than to the collector's slack.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	var peak uint64
	for b.Loop() {
		un, err := exec.NewUnnestExec(ids)
		if err != nil {
			b.Fatal(err)
		}
		n, err := exec.NewTakeByKeyExec(un, 0, tb, "_rowid", ix.at(tb), []string{"_rowaddr"}, exec.TakeByKeyOptions{})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		stop := samplePeak(&peak)
		st, err := n.Execute(ctx, &exec.TaskContext{Mem: mem})
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		for {
			rb, err := st.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			got += int(rb.NumRows())
			rb.Release()
		}
		st.Close()
		stop()
		if got != len(ids) {
			b.Fatalf("%d rows for %d ids", got, len(ids))
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

func samplePeak(peak *uint64) (stop func()) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done, finished := make(chan struct{}), make(chan struct{})
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
