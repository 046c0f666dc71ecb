package table

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Reclustering: a stable partition of the source rows by a key into
// destination fragments, recorded as a rowmap (seed 001).

// Recluster rewrites the source fragments as a stable partition by key:
// destination i receives the rows whose key ranks in the i-th of
// Destinations equal slices of the sorted keys (rows with equal keys stay
// together; NULLs sort first), keeping their source order, so the
// destinations are sorted by key at fragment granularity. The routing is
// recorded in a rowmap (_rowmaps/<uuid>.rowmap); row ids are kept.
//
// It is the plan / task / commit path of recluster_tasks.go run in this
// process: o.Tasks tasks (default o.Workers) on up to o.Workers
// goroutines, committed together.
func (t *Table) Recluster(ctx context.Context, key string, o ReclusterOptions) (_ *Table, err error) {
	// One intent for every task, the row map and the commit, so the files
	// stay covered until they are published.
	ctx, end := holdIntent(ctx, t.st, "recluster")
	defer end(&err)
	o = o.withDefaults()
	plan, err := t.PlanRecluster(ctx, key, o)
	if err != nil {
		return nil, err
	}
	if plan == nil {
		return t, nil
	}
	return runLocal(ctx, t, plan.Tasks, o.Workers,
		func(ctx context.Context, k *ReclusterTask) (*ReclusterResult, error) {
			return t.ExecuteRecluster(ctx, k, o.Mem)
		},
		func(results []*ReclusterResult) (*Table, error) { return t.CommitRecluster(ctx, plan, results) })
}

// routeBatch writes the rows of b to fws[label], dropping rows labelled
// -1: one take orders the kept rows by destination (stable within one),
// then each run is a zero-copy slice.
func routeBatch(ctx context.Context, b arrow.RecordBatch, labels []int32, fws []*fragmentWriter, mem memory.Allocator) error {
	counts := make([]int, len(fws)+1)
	for _, l := range labels {
		if l >= 0 {
			counts[int(l)+1]++
		}
	}
	for j := 1; j < len(counts); j++ {
		counts[j] += counts[j-1]
	}
	kept := counts[len(fws)]
	if kept == 0 {
		return nil
	}
	pos := slices.Clone(counts[:len(fws)])
	idx := make([]int32, kept)
	for i, l := range labels {
		if l >= 0 {
			idx[pos[l]] = int32(i)
			pos[l]++
		}
	}
	ia := newInt32Array(mem, idx)
	defer ia.Release()
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, b.NumCols())
	defer releaseArrays(cols)
	for c := range cols {
		var err error
		if cols[c], err = compute.TakeArray(cctx, b.Column(c), ia); err != nil {
			return fmt.Errorf("table: recluster: %w", err)
		}
	}
	sorted := array.NewRecordBatch(b.Schema(), cols, int64(kept))
	defer sorted.Release()
	for j, fw := range fws {
		if counts[j] == counts[j+1] {
			continue
		}
		s := sorted.NewSlice(int64(counts[j]), int64(counts[j+1]))
		err := fw.write(s)
		s.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func newInt32Array(mem memory.Allocator, v []int32) arrow.Array {
	b := array.NewInt32Builder(mem)
	defer b.Release()
	b.AppendValues(v, nil)
	return b.NewArray()
}
