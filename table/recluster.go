package table

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/rowmap"
)

// Reclustering: a stable partition of the source rows by a key into
// destination fragments, recorded as a rowmap (seed 001).

// Recluster rewrites the source fragments as a stable partition by key:
// destination i receives the rows whose key ranks in the i-th of
// Destinations equal slices of the sorted keys (rows with equal keys stay
// together; NULLs sort first), keeping their source order, so the
// destinations are sorted by key at fragment granularity. The routing is
// recorded in a rowmap (_rowmaps/<uuid>.rowmap); row ids are kept.
func (t *Table) Recluster(ctx context.Context, key string, o ReclusterOptions) (*Table, error) {
	if o.Mem == nil {
		o.Mem = memory.DefaultAllocator
	}
	if t.ColumnIndex(key) < 0 {
		return nil, errorf(ErrInvalidArgument, "recluster: unknown column %q", key)
	}
	var srcs []*Fragment
	if o.Fragments == nil {
		for _, f := range t.m.Fragments {
			if f.PhysicalRows > 0 {
				srcs = append(srcs, f)
			}
		}
	} else {
		ids := slices.Clone(o.Fragments)
		slices.Sort(ids)
		if len(slices.Compact(ids)) != len(o.Fragments) {
			return nil, errorf(ErrInvalidArgument, "recluster: fragment listed twice")
		}
		var err error
		if srcs, err = t.selectFragments(ids); err != nil {
			return nil, err
		}
	}
	if len(srcs) == 0 {
		return t, nil
	}
	g := &rewriteGroup{kind: TransitionStablePartition, sources: srcs}
	if err := t.writePartition(ctx, g, key, o); err != nil {
		return nil, err
	}
	nt, err := t.commitRewrite(ctx, []*rewriteGroup{g}, o.DeferIndexRemap, "recluster by "+key)
	if err != nil {
		if definitelyNotCommitted(err) {
			t.removeFiles(ctx, g)
		}
		return nil, err
	}
	return nt, nil
}

// writePartition routes the live source rows to their destination files.
func (t *Table) writePartition(ctx context.Context, g *rewriteGroup, key string, o ReclusterOptions) error {
	var ids []uint64
	for _, f := range g.sources {
		ids = liveIDs(ids, f)
	}
	want := o.Destinations
	if want <= 0 {
		want = max(1, int((uint64(len(ids))+uint64(t.opts.MaxRowsPerFragment)-1)/uint64(t.opts.MaxRowsPerFragment)))
	}
	want = min(want, rowmap.MaxDestinations)
	labels, m, err := t.partitionLabels(ctx, g.sources, key, want, o.Mem)
	if err != nil {
		return err
	}
	if len(labels) != len(ids) {
		return errorf(ErrConservation, "recluster read %d keys for %d live rows", len(labels), len(ids))
	}
	if m == 0 {
		// Nothing live: the sources just go away (an ordered transition
		// with no destinations).
		g.kind = TransitionOrdered
		return nil
	}
	g.labels = labels
	fws := make([]*fragmentWriter, m)
	for j := range fws {
		fws[j] = t.newFragmentWriter(ctx, o.Mem)
		fws[j].maxRows = math.MaxUint32
	}
	abort := func() {
		for _, fw := range fws {
			fw.abort()
		}
		for _, fw := range fws {
			for _, nf := range fw.out {
				_ = t.st.Delete(ctx, nf.dataFile)
			}
		}
	}
	sc, err := t.Scan(ctx, ScanOptions{Columns: t.userColumns(), Fragments: fragmentIDs(g.sources), Mem: o.Mem})
	if err != nil {
		return err
	}
	row := 0
	for sc.Next() {
		b := sc.RecordBatch()
		if err := routeBatch(ctx, b, labels[row:row+int(b.NumRows())], fws, o.Mem); err != nil {
			sc.Release()
			abort()
			return err
		}
		row += int(b.NumRows())
	}
	err = sc.Err()
	sc.Release()
	if err != nil {
		abort()
		return err
	}
	// Destination j's ids are the ids labelled j, in source order.
	perDest := make([][]uint64, m)
	for i, l := range labels {
		perDest[l] = append(perDest[l], ids[i])
	}
	for j, fw := range fws {
		out, err := fw.finish()
		if err != nil {
			abort()
			return err
		}
		if len(out) != 1 {
			abort()
			return errorf(ErrConservation, "recluster destination %d wrote %d files", j, len(out))
		}
		if err := assignIDs(out, perDest[j]); err != nil {
			abort()
			return err
		}
		g.dests = append(g.dests, out[0])
	}
	return nil
}

// routeBatch writes the rows of b to fws[label]: one take orders the batch
// by destination (stable within one), then each run is a zero-copy slice.
func routeBatch(ctx context.Context, b arrow.RecordBatch, labels []uint16, fws []*fragmentWriter, mem memory.Allocator) error {
	counts := make([]int, len(fws)+1)
	for _, l := range labels {
		counts[int(l)+1]++
	}
	for j := 1; j < len(counts); j++ {
		counts[j] += counts[j-1]
	}
	pos := slices.Clone(counts[:len(fws)])
	idx := make([]int32, len(labels))
	for i, l := range labels {
		idx[pos[l]] = int32(i)
		pos[l]++
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
	sorted := array.NewRecordBatch(b.Schema(), cols, b.NumRows())
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
