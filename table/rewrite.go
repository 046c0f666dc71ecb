package table

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/internal/radix"
	"github.com/stablerow/stablerow/rowmap"
	"github.com/stablerow/stablerow/table/deletion"
	"github.com/stablerow/stablerow/table/rowid"
)

// Rewrites (Compact, Recluster) replace source fragments by destination
// fragments holding the same live rows with the same row ids. They commit
// in two steps:
//
//  1. the destination data files are written, then a "reserve" commit takes
//     the destination fragment ids (the rowmap records them, so they must be
//     known before the rewrite commits and must not change on rebase);
//  2. the "rewrite" commit swaps sources for destinations through the txn's
//     mutate hook, which checks that every source is still the fragment that
//     was read (ErrConflict otherwise), folds deletions committed
//     concurrently on the sources onto the destinations, checks
//     conservation and records the transitions.
//
// With DeferIndexRemap the transitions join the fragment reuse history
// (History) and index coverage is left alone: an index covering all sources
// of a transition covers its destinations (DerivedCoverage), its stale
// addresses translated by index/fragreuse. Without it, the sources leave
// the coverage of every index, whose rows there are then found by the
// unindexed fallback until the index is rebuilt.

// CompactOptions tune Compact.
type CompactOptions struct {
	// TargetRows is the row count of destination fragments; fragments with
	// fewer live rows are "small" (default: Options.MaxRowsPerFragment).
	TargetRows int
	// MinDeletedFraction: a fragment with at least this fraction of its
	// physical rows deleted is rewritten even alone (default 0.1; above 1
	// disables).
	MinDeletedFraction float64
	// DeferIndexRemap records the transitions in the fragment reuse history
	// instead of remapping indexes (RemapIndex) or dropping the sources
	// from their coverage.
	DeferIndexRemap bool
	// RemapIndex, without DeferIndexRemap, rewrites each index that covers
	// sources of the rewrite; the results replace the indexes in the
	// rewrite's own commit.
	RemapIndex IndexRemapper
	// Mem allocates scan and write buffers (nil: memory.DefaultAllocator).
	Mem memory.Allocator
}

// IndexRemapper rewrites index ix for the transitions of a rewrite about
// to commit (all of whose sources ix covers, directly or through the
// history): its files under a new prefix, returned in a new IndexMeta whose
// Fragments name the destinations instead of the sources. The transitions'
// destination ids are final and their rowmaps already stored, so
// fragreuse.Open(ctx, st, trs, ix.DatasetVersion) translates for it; their
// Version is the version the rewrite expects to commit as. If the index
// changes concurrently the rewrite fails with ErrConflict.
type IndexRemapper func(ctx context.Context, ix *IndexMeta, trs []Transition) (*IndexMeta, error)

// ReclusterOptions tune Recluster.
type ReclusterOptions struct {
	// Destinations is the number of destination fragments (default: live
	// rows / Options.MaxRowsPerFragment, rounded up). Fewer are written when
	// there are fewer distinct keys.
	Destinations int
	// Fragments are the sources (nil: every fragment with rows).
	Fragments []uint32
	// DeferIndexRemap, RemapIndex: as in CompactOptions.
	DeferIndexRemap bool
	RemapIndex      IndexRemapper
	// Mem allocates scan and write buffers (nil: memory.DefaultAllocator).
	Mem memory.Allocator
}

// rewriteGroup is one transition in the making.
type rewriteGroup struct {
	kind    TransitionKind
	sources []*Fragment // as read, in scan order
	dests   []newFragment
	labels  []uint16 // stable partition: destination of each live source row
	tr      Transition
	rm      *rowmap.Reader // stable partition: for folding concurrent deletes
}

// Compact merges runs of adjacent small or deletion-heavy fragments into
// fragments of TargetRows, keeping row order and row ids (a destination's
// row ids are its sources' live ids in order). Fragments are grouped only
// with neighbours that every index covers alike, so each transition is
// covered entirely or not at all. It returns t itself when there is nothing
// to compact.
func (t *Table) Compact(ctx context.Context, o CompactOptions) (*Table, error) {
	if o.TargetRows <= 0 {
		o.TargetRows = t.opts.MaxRowsPerFragment
	}
	if o.MinDeletedFraction == 0 {
		o.MinDeletedFraction = 0.1
	}
	if o.Mem == nil {
		o.Mem = memory.DefaultAllocator
	}
	plan, err := t.planCompaction(o)
	if err != nil {
		return nil, err
	}
	if len(plan) == 0 {
		return t, nil
	}
	var groups []*rewriteGroup
	abort := func() {
		for _, g := range groups {
			t.removeFiles(ctx, g)
		}
	}
	for _, srcs := range plan {
		g := &rewriteGroup{kind: TransitionOrdered, sources: srcs}
		groups = append(groups, g)
		if err := t.writeOrdered(ctx, g, o.TargetRows, o.Mem); err != nil {
			abort()
			return nil, err
		}
	}
	nt, err := t.commitRewrite(ctx, groups, o.DeferIndexRemap, o.RemapIndex, "compact")
	if err != nil {
		if definitelyNotCommitted(err) {
			abort()
		}
		return nil, err
	}
	return nt, nil
}

// coverageKey says which indexes cover fragment id (directly or through the
// history), so that compaction never mixes covered and uncovered rows.
func coverageKey(cov []*roaring.Bitmap, id uint32) string {
	k := make([]byte, len(cov))
	for i, c := range cov {
		if c.Contains(id) {
			k[i] = 1
		}
	}
	return string(k)
}

func (t *Table) planCompaction(o CompactOptions) ([][]*Fragment, error) {
	hist, err := t.History()
	if err != nil {
		return nil, err
	}
	cov := make([]*roaring.Bitmap, len(t.m.Indexes))
	for i, ix := range t.m.Indexes {
		cov[i] = DerivedCoverage(ix, hist)
	}
	candidate := func(f *Fragment) bool {
		if f.PhysicalRows == 0 {
			return false
		}
		dead := float64(f.Deletions.Cardinality()) / float64(f.PhysicalRows)
		return f.LiveRows() < uint64(o.TargetRows) || (dead > 0 && dead >= o.MinDeletedFraction)
	}
	worth := func(run []*Fragment) bool {
		if len(run) > 1 {
			return true
		}
		f := run[0]
		return f.Deletions.Cardinality() > 0 && float64(f.Deletions.Cardinality())/float64(f.PhysicalRows) >= o.MinDeletedFraction
	}
	var plan [][]*Fragment
	var run []*Fragment
	var key string
	flush := func() {
		if len(run) > 0 && worth(run) {
			plan = append(plan, run)
		}
		run = nil
	}
	for _, f := range t.m.Fragments {
		if !candidate(f) {
			flush()
			continue
		}
		if k := coverageKey(cov, f.ID); len(run) == 0 || k != key {
			flush()
			key = k
		}
		run = append(run, f)
	}
	flush()
	return plan, nil
}

// liveIDs appends the row ids of f's live rows, in offset order.
func liveIDs(dst []uint64, f *Fragment) []uint64 {
	start := len(dst)
	dst = f.RowIDs.AppendTo(dst)
	if f.Deletions.IsEmpty() {
		return dst
	}
	out := dst[:start]
	for i, id := range dst[start:] {
		if !f.Deletions.Contains(uint32(i)) {
			out = append(out, id)
		}
	}
	return out
}

func (t *Table) userColumns() []string {
	cols := make([]string, t.m.Schema.NumFields())
	for i, f := range t.m.Schema.Fields() {
		cols[i] = f.Name
	}
	return cols
}

func fragmentIDs(fs []*Fragment) []uint32 {
	ids := make([]uint32, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	return ids
}

// writeOrdered copies the live rows of g's sources, in order, into data
// files of at most target rows.
func (t *Table) writeOrdered(ctx context.Context, g *rewriteGroup, target int, mem memory.Allocator) error {
	var ids []uint64
	for _, f := range g.sources {
		ids = liveIDs(ids, f)
	}
	fw := t.newFragmentWriter(ctx, mem)
	fw.maxRows = target
	if len(ids) > 0 {
		sc, err := t.Scan(ctx, ScanOptions{Columns: t.userColumns(), Fragments: fragmentIDs(g.sources), Mem: mem})
		if err != nil {
			return err
		}
		for sc.Next() {
			if err := fw.write(sc.RecordBatch()); err != nil {
				sc.Release()
				fw.abort()
				return err
			}
		}
		err = sc.Err()
		sc.Release()
		if err != nil {
			fw.abort()
			return err
		}
	}
	dests, err := fw.finish()
	if err != nil {
		fw.abort()
		return err
	}
	g.dests = dests
	return assignIDs(g.dests, ids)
}

// assignIDs gives each destination its run of ids, checking that the rows
// written are exactly the live source rows.
func assignIDs(dests []newFragment, ids []uint64) error {
	off := 0
	for i := range dests {
		n := int(dests[i].rows)
		if off+n > len(ids) {
			return errorf(ErrConservation, "rewrite wrote more rows than the %d live source rows", len(ids))
		}
		dests[i].keptIDs = rowid.NewSequence(ids[off : off+n])
		off += n
	}
	if off != len(ids) {
		return errorf(ErrConservation, "rewrite wrote %d rows for %d live source rows", off, len(ids))
	}
	return nil
}

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
	nt, err := t.commitRewrite(ctx, []*rewriteGroup{g}, o.DeferIndexRemap, o.RemapIndex, "recluster by "+key)
	if err != nil {
		if definitelyNotCommitted(err) {
			t.removeFiles(ctx, g)
		}
		return nil, err
	}
	return nt, nil
}

// definitelyNotCommitted tells errors after which no manifest can name the
// rewrite's files (so they may be deleted at once) from store errors whose
// outcome is unknown (the files are left to Cleanup).
func definitelyNotCommitted(err error) bool {
	return errors.Is(err, ErrConflict) || errors.Is(err, ErrConservation) || errors.Is(err, ErrInvalidArgument) || errors.Is(err, ErrCorrupt)
}

// keyComparator orders positions of a by value, NULLs first.
func keyComparator(a arrow.Array) (func(i, j int) int, error) {
	var c func(i, j int) int
	switch v := a.(type) {
	case *array.Int8:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.Int16:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.Int32:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.Int64:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.Uint8:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.Uint16:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.Uint32:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.Uint64:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.Float32:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.Float64:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.String:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.LargeString:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.Binary:
		c = func(i, j int) int { return cmp.Compare(string(v.Value(i)), string(v.Value(j))) }
	case *array.Date32:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	case *array.Timestamp:
		c = func(i, j int) int { return cmp.Compare(v.Value(i), v.Value(j)) }
	default:
		return nil, errorf(ErrInvalidArgument, "recluster: cannot order keys of type %s", a.DataType())
	}
	if a.NullN() == 0 {
		return c, nil
	}
	return func(i, j int) int {
		ni, nj := a.IsNull(i), a.IsNull(j)
		switch {
		case ni && nj:
			return 0
		case ni:
			return -1
		case nj:
			return 1
		}
		return c(i, j)
	}, nil
}

// partitionLabels reads the key of every live source row and returns each
// row's destination (dense 0..m-1, m ≤ want) and m.
func (t *Table) partitionLabels(ctx context.Context, srcs []*Fragment, key string, want int, mem memory.Allocator) ([]uint16, int, error) {
	sc, err := t.Scan(ctx, ScanOptions{Columns: []string{key}, Fragments: fragmentIDs(srcs), Mem: mem})
	if err != nil {
		return nil, 0, err
	}
	var parts []arrow.Array
	defer func() { releaseArrays(parts) }()
	for sc.Next() {
		c := sc.RecordBatch().Column(0)
		c.Retain()
		parts = append(parts, c)
	}
	err = sc.Err()
	sc.Release()
	if err != nil {
		return nil, 0, err
	}
	if len(parts) == 0 {
		return nil, 0, nil
	}
	keys, err := array.Concatenate(parts, mem)
	if err != nil {
		return nil, 0, fmt.Errorf("table: recluster: %w", err)
	}
	defer keys.Release()
	if ok := orderKeys(keys); ok != nil {
		labels, m := labelsByOrderKeys(ok, want)
		return labels, m, nil
	}
	less, err := keyComparator(keys)
	if err != nil {
		return nil, 0, err
	}
	labels, m := labelsByComparator(less, keys.Len(), want)
	return labels, m, nil
}

// labelsByComparator cuts the rows, stably sorted by less, into want
// equal runs of positions; a run of equal keys goes to the bucket of its
// first sorted position, so buckets may be fewer (m) and uneven.
func labelsByComparator(less func(i, j int) int, n, want int) ([]uint16, int) {
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return less(int(a), int(b)) })
	labels := make([]uint16, n)
	bucket, m, prev := -1, 0, -1
	for p, i := range perm {
		if p == 0 || less(int(perm[p-1]), int(i)) != 0 {
			if b := int(uint64(p) * uint64(want) / uint64(n)); b != prev {
				prev = b
				bucket++
			}
		}
		labels[i] = uint16(bucket)
		m = bucket + 1
	}
	return labels, m
}

// labelsByOrderKeys gives labelsByComparator's labels for keys given as
// order-preserving uint64s, without sorting the rows. A bucket starts at
// sorted position 0 and at the first run of equal keys reaching each
// threshold t_j = ceil(j*n/want), j = 1..want-1: its first key is the
// smallest key above the (t_j - 1)-th smallest. Those boundary keys come
// from bucketBounds, and each row's label is the number of boundaries at or below its key, less one. A
// comparison sort of 10M row positions took ~9 s of a 10M-row recluster.
func labelsByOrderKeys(keys []uint64, want int) ([]uint16, int) {
	n := len(keys)
	if n == 0 {
		return nil, 0
	}
	var ts []int
	for j := 1; j < want; j++ {
		if t := int((uint64(j)*uint64(n) + uint64(want) - 1) / uint64(want)); t < n && (len(ts) == 0 || t != ts[len(ts)-1]) {
			ts = append(ts, t)
		}
	}
	bounds := bucketBounds(keys, ts)
	labels := make([]uint16, n)
	for i, k := range keys {
		// The last boundary at or below k (bounds[0] is the smallest key),
		// by a binary search without a data-dependent branch (the borrow of
		// k - boundary masks the step): the keys are in no order, so a
		// branching search mispredicts at every step.
		base, m := 0, len(bounds)
		for m > 1 {
			half := m / 2
			_, below := bits.Sub64(k, bounds[base+half], 0) // 1 when k < the boundary
			base += half & (int(below) - 1)
			m -= half
		}
		labels[i] = uint16(base)
	}
	return labels, len(bounds)
}

// bucketBounds returns the smallest key, then for each threshold t (ascending,
// 0 < t < len(keys)) the smallest key above the (t-1)-th smallest, where it
// exists, without repeats. Only the top-digit buckets holding a threshold's
// rank are sorted, so the cost is two passes over the keys however wide
// they are.
func bucketBounds(keys []uint64, ts []int) []uint64 {
	lo, hi := slices.Min(keys), slices.Max(keys)
	width := uint(bits.Len64(hi - lo))
	// Histogram the top digit (up to 11 bits) of each key's offset from lo,
	// with each bucket's smallest key; then sort just the buckets a
	// threshold's rank falls in.
	digit := min(width, 11)
	shift := width - digit
	count := make([]int, 1<<digit+1)
	bmin := make([]uint64, 1<<digit)
	for i := range bmin {
		bmin[i] = math.MaxUint64
	}
	for _, k := range keys {
		b := (k - lo) >> shift
		count[b+1]++
		bmin[b] = min(bmin[b], k-lo)
	}
	for d := 1; d < len(count); d++ {
		count[d] += count[d-1]
	}
	bucketOf := func(rank int) int { // the bucket holding sorted position rank
		b, _ := slices.BinarySearch(count[1:], rank+1)
		return b
	}
	slot := make([]int, 1<<digit) // needed bucket -> 1 + its index into parts
	var parts [][]uint64
	for _, t := range ts {
		if b := bucketOf(t - 1); slot[b] == 0 {
			parts = append(parts, make([]uint64, 0, count[b+1]-count[b]))
			slot[b] = len(parts)
		}
	}
	for _, k := range keys {
		if j := slot[int((k-lo)>>shift)]; j > 0 {
			parts[j-1] = append(parts[j-1], k-lo)
		}
	}
	for _, p := range parts {
		radix.SortKeys(p, 0, shift) // the top digit is shared
	}
	bounds := []uint64{lo}
	for _, t := range ts {
		b := bucketOf(t - 1)
		p := parts[slot[b]-1]
		v := p[t-1-count[b]]
		if v == hi-lo {
			continue // the largest key: no bucket starts after it
		}
		var next uint64
		if q, _ := slices.BinarySearch(p, v+1); q < len(p) {
			next = p[q]
		} else {
			// Past this bucket: the smallest key of the next non-empty one.
			nb := b + 1
			for nb < len(bmin) && count[nb+1] == count[nb] {
				nb++
			}
			if nb == len(bmin) {
				continue // v is the largest key: no bucket starts after it
			}
			next = bmin[nb]
		}
		if next+lo != bounds[len(bounds)-1] {
			bounds = append(bounds, next+lo)
		}
	}
	return bounds
}

// orderKeys returns order-preserving uint64 images of an integer-typed
// array's values (signed ones with the sign bit flipped), or nil for other
// types and for arrays with nulls, which keyComparator orders.
func orderKeys(a arrow.Array) []uint64 {
	if a.NullN() > 0 {
		return nil
	}
	out := make([]uint64, a.Len())
	const flip = 1 << 63
	switch v := a.(type) {
	case *array.Int8:
		for i, x := range v.Int8Values() {
			out[i] = uint64(int64(x)) ^ flip
		}
	case *array.Int16:
		for i, x := range v.Int16Values() {
			out[i] = uint64(int64(x)) ^ flip
		}
	case *array.Int32:
		for i, x := range v.Int32Values() {
			out[i] = uint64(int64(x)) ^ flip
		}
	case *array.Int64:
		for i, x := range v.Int64Values() {
			out[i] = uint64(x) ^ flip
		}
	case *array.Date32:
		for i, x := range v.Date32Values() {
			out[i] = uint64(int64(x)) ^ flip
		}
	case *array.Timestamp:
		for i, x := range v.TimestampValues() {
			out[i] = uint64(int64(x)) ^ flip
		}
	case *array.Uint8:
		for i, x := range v.Uint8Values() {
			out[i] = uint64(x)
		}
	case *array.Uint16:
		for i, x := range v.Uint16Values() {
			out[i] = uint64(x)
		}
	case *array.Uint32:
		for i, x := range v.Uint32Values() {
			out[i] = uint64(x)
		}
	case *array.Uint64:
		copy(out, v.Uint64Values())
	default:
		return nil
	}
	return out
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

// removeFiles deletes the files a failed rewrite wrote (best effort: a
// leftover is an orphan no manifest names).
func (t *Table) removeFiles(ctx context.Context, g *rewriteGroup) {
	for _, d := range g.dests {
		_ = t.st.Delete(ctx, d.dataFile)
	}
	if g.tr.RowMap != "" {
		_ = t.st.Delete(ctx, g.tr.RowMap)
	}
}

// reserveFragmentIDs commits a version that only advances NextFragmentID
// by n and returns the first id reserved.
func (t *Table) reserveFragmentIDs(ctx context.Context, n int) (uint32, *Table, error) {
	var first uint32
	nt, err := t.commit(ctx, &txn{kind: "reserve", base: t.m, detail: fmt.Sprintf("%d fragment ids", n),
		mutate: func(_, next *Manifest) error {
			if uint64(next.NextFragmentID)+uint64(n) >= math.MaxUint32 {
				return errorf(ErrInvalidArgument, "fragment ids exhausted")
			}
			first = next.NextFragmentID
			next.NextFragmentID += uint32(n)
			return nil
		}})
	return first, nt, err
}

// commitRewrite reserves destination ids, records the transitions (and the
// rowmaps of stable partitions) and commits the swap.
func (t *Table) commitRewrite(ctx context.Context, groups []*rewriteGroup, deferRemap bool, remap IndexRemapper, detail string) (*Table, error) {
	n := 0
	for _, g := range groups {
		n += len(g.dests)
	}
	// The rewrite commits on top of the reservation: its mutate hook, not
	// the summaries of the versions in between, decides conflicts (it
	// compares every source with the fragment that was read).
	var first uint32
	base := t
	if n > 0 {
		var err error
		if first, base, err = t.reserveFragmentIDs(ctx, n); err != nil {
			return nil, err
		}
	}
	next := first
	for _, g := range groups {
		g.tr = Transition{Kind: g.kind}
		for _, f := range g.sources {
			s, err := newTransitionSource(f)
			if err != nil {
				return nil, err
			}
			g.tr.Sources = append(g.tr.Sources, s)
		}
		for _, d := range g.dests {
			g.tr.Destinations = append(g.tr.Destinations, TransitionDest{Fragment: next, Rows: d.rows})
			next++
		}
		if g.kind == TransitionStablePartition {
			if err := t.writeRowMap(ctx, g); err != nil {
				return nil, err
			}
		}
	}
	var remapped map[string]remappedIndex
	if !deferRemap && remap != nil {
		var err error
		if remapped, err = remapIndexes(ctx, base.m, groups, remap); err != nil {
			return nil, err
		}
	}
	var removed []uint32
	for _, g := range groups {
		for _, src := range g.tr.Sources {
			removed = append(removed, src.Fragment)
		}
	}
	tx := &txn{kind: "rewrite", base: base.m, detail: detail, removed: removed,
		mutate: func(latest, nm *Manifest) error {
			if err := applyRewrite(latest, nm, groups, deferRemap); err != nil {
				return err
			}
			return replaceIndexes(nm, remapped)
		}}
	return t.commit(ctx, tx)
}

// remappedIndex is an index rebuilt for a rewrite, and the record it
// replaces (which must still be current at commit).
type remappedIndex struct {
	old, new *IndexMeta
}

// remapIndexes runs the remapper for every index covering sources of the
// groups, with the transitions whose sources it covers entirely.
func remapIndexes(ctx context.Context, m *Manifest, groups []*rewriteGroup, remap IndexRemapper) (map[string]remappedIndex, error) {
	hist, err := decodeHistory(m.Extra)
	if err != nil {
		return nil, err
	}
	out := map[string]remappedIndex{}
	for _, ix := range m.Indexes {
		cov := DerivedCoverage(ix, hist)
		var trs []Transition
		for _, g := range groups {
			if slices.ContainsFunc(g.tr.Sources, func(s TransitionSource) bool { return !cov.Contains(s.Fragment) }) {
				continue // partly covered or not at all: coverage is dropped at commit
			}
			tr := g.tr
			tr.Version = m.Version + 1
			trs = append(trs, tr)
		}
		if len(trs) == 0 {
			continue
		}
		nix, err := remap(ctx, ix, trs)
		if err != nil {
			return nil, fmt.Errorf("table: remap index %q: %w", ix.Name, err)
		}
		if nix == nil || nix.Name != ix.Name || nix.Prefix == "" {
			return nil, errorf(ErrInvalidArgument, "remap of index %q returned a bad record", ix.Name)
		}
		c := *nix
		if c.Fragments == nil {
			c.Fragments = roaring.New()
		}
		out[ix.Name] = remappedIndex{old: ix, new: &c}
	}
	return out, nil
}

// replaceIndexes installs the remapped indexes, refusing when one changed
// since it was remapped.
func replaceIndexes(next *Manifest, remapped map[string]remappedIndex) error {
	for i, ix := range next.Indexes {
		r, ok := remapped[ix.Name]
		if !ok {
			continue
		}
		if ix.Prefix != r.old.Prefix || ix.DatasetVersion != r.old.DatasetVersion {
			return errorf(ErrConflict, "index %q changed while the rewrite remapped it", ix.Name)
		}
		next.Indexes[i] = r.new
	}
	return nil
}

// writeRowMap records g's labels against the reserved destination ids.
func (t *Table) writeRowMap(ctx context.Context, g *rewriteGroup) error {
	dests := make([]uint32, len(g.tr.Destinations))
	totals := make([]uint32, len(dests))
	for i, d := range g.tr.Destinations {
		dests[i], totals[i] = d.Fragment, uint32(d.Rows)
	}
	srcs := make([]rowmap.SourceFragment, len(g.sources))
	for i, f := range g.sources {
		srcs[i] = rowmap.SourceFragment{PhysicalRows: f.PhysicalRows, Deleted: f.Deletions.Bitmap()}
	}
	w, err := rowmap.NewWriter(dests, srcs, rowmap.WriterOptions{ExpectedTotals: totals})
	if err != nil {
		return fmt.Errorf("%w: recluster: %w", ErrConservation, err)
	}
	if err := w.Append(g.labels); err != nil {
		return fmt.Errorf("%w: recluster: %w", ErrConservation, err)
	}
	b, err := w.Finish()
	if err != nil {
		return fmt.Errorf("%w: recluster: %w", ErrConservation, err)
	}
	if g.rm, err = rowmap.Open(rowmap.BytesSource(b)); err != nil {
		return fmt.Errorf("table: recluster: reopen rowmap: %w", err)
	}
	path := "_rowmaps/" + newUUID() + ".rowmap"
	if err := t.st.Put(ctx, path, b); err != nil {
		return fmt.Errorf("table: store rowmap: %w", err)
	}
	g.tr.RowMap = path
	return nil
}

// applyRewrite is the rewrite's mutate hook: it runs on every commit
// attempt against the newest manifest.
func applyRewrite(latest, next *Manifest, groups []*rewriteGroup, deferRemap bool) error {
	removed := map[uint32]bool{}
	var trs []Transition
	for _, g := range groups {
		tr := g.tr
		tr.Version = next.Version
		folded, err := foldConcurrentDeletes(next, g)
		if err != nil {
			return err
		}
		if got, want := tr.DestinationRows(), tr.SourceLiveRows(); got != want {
			return errorf(ErrConservation, "rewrite writes %d rows for %d live source rows", got, want)
		}
		for _, s := range tr.Sources {
			removed[s.Fragment] = true
		}
		for i, d := range g.dests {
			if d.keptIDs == nil || d.keptIDs.Len() != d.rows || d.rows != tr.Destinations[i].Rows {
				return errorf(ErrConservation, "destination %d: %d rows, row ids for %d", tr.Destinations[i].Fragment, d.rows, d.keptIDs.Len())
			}
			next.Fragments = append(next.Fragments, &Fragment{ID: tr.Destinations[i].Fragment, DataFile: d.dataFile, File: d.file,
				PhysicalRows: d.rows, BatchRows: d.batchRows, RowIDs: d.keptIDs, Deletions: folded[i]})
			if tr.Destinations[i].Fragment >= next.NextFragmentID {
				return errorf(ErrConservation, "destination id %d was not reserved", tr.Destinations[i].Fragment)
			}
		}
		trs = append(trs, tr)
	}
	next.Fragments = slices.DeleteFunc(next.Fragments, func(f *Fragment) bool { return removed[f.ID] })
	slices.SortFunc(next.Fragments, func(a, b *Fragment) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(next.Fragments); i++ {
		if next.Fragments[i].ID == next.Fragments[i-1].ID {
			return errorf(ErrConflict, "destination fragment %d already exists", next.Fragments[i].ID)
		}
	}
	if got, want := next.LiveRows(), latest.LiveRows(); got != want {
		return errorf(ErrConservation, "rewrite: %d live rows after commit, %d before", got, want)
	}
	hist, err := decodeHistory(latest.Extra)
	if err != nil {
		return err
	}
	if err := updateCoverage(next, hist, trs, deferRemap); err != nil {
		return err
	}
	if deferRemap {
		if next.Extra, err = appendHistory(latest, trs); err != nil {
			return err
		}
	}
	return nil
}

// foldConcurrentDeletes checks that g's sources are still the fragments the
// rewrite read and returns, per destination, the deletion vector that
// carries over the rows deleted on the sources since then.
func foldConcurrentDeletes(m *Manifest, g *rewriteGroup) ([]*deletion.Vector, error) {
	var extra []*roaring.Bitmap // per destination
	var livePrefix, physPrefix uint64
	for i, s := range g.tr.Sources {
		f := m.Fragment(s.Fragment)
		read := g.sources[i]
		if f == nil {
			return nil, errorf(ErrConflict, "fragment %d was removed by a concurrent commit", s.Fragment)
		}
		if f.DataFile != read.DataFile || f.PhysicalRows != read.PhysicalRows {
			return nil, errorf(ErrConflict, "fragment %d was replaced by a concurrent commit", s.Fragment)
		}
		if !f.Deletions.Equal(s.Deletions) {
			now, was := f.Deletions.Bitmap(), s.Deletions.Bitmap()
			if was != nil && (now == nil || roaring.AndNot(was, now).GetCardinality() > 0) {
				return nil, errorf(ErrConflict, "fragment %d lost deletions concurrently", s.Fragment)
			}
			fresh := now.Clone()
			if was != nil {
				fresh.AndNot(was)
			}
			if extra == nil {
				extra = make([]*roaring.Bitmap, len(g.tr.Destinations))
			}
			if err := foldSource(g, s, fresh, livePrefix, physPrefix, extra); err != nil {
				return nil, err
			}
		}
		livePrefix += s.LiveRows()
		physPrefix += s.PhysicalRows
	}
	out := make([]*deletion.Vector, len(g.tr.Destinations))
	for j, bm := range extra {
		out[j] = deletion.FromBitmap(bm)
	}
	return out, nil
}

// foldSource maps the offsets newly deleted in source s onto destination
// rows: by rank for an ordered transition, through the rowmap for a stable
// partition.
func foldSource(g *rewriteGroup, s TransitionSource, fresh *roaring.Bitmap, livePrefix, physPrefix uint64, extra []*roaring.Bitmap) error {
	add := func(j int, off uint32) {
		if extra[j] == nil {
			extra[j] = roaring.New()
		}
		extra[j].Add(off)
	}
	offs := fresh.ToArray()
	switch g.tr.Kind {
	case TransitionOrdered:
		starts := make([]uint64, len(g.tr.Destinations)+1)
		for j, d := range g.tr.Destinations {
			starts[j+1] = starts[j] + d.Rows
		}
		was := s.Deletions.Bitmap()
		for _, o := range offs {
			p := livePrefix + uint64(o)
			if was != nil {
				p -= was.Rank(o) // o is live in was, so Rank counts the deletions before it
			}
			j, _ := slices.BinarySearch(starts, p+1)
			j--
			if j < 0 || j >= len(g.tr.Destinations) {
				return errorf(ErrConservation, "fold: row %d of fragment %d maps past the destinations", o, s.Fragment)
			}
			add(j, uint32(p-starts[j]))
		}
	case TransitionStablePartition:
		rows := make([]uint64, len(offs))
		for i, o := range offs {
			rows[i] = physPrefix + uint64(o)
		}
		res := make([]rowmap.Translation, len(rows))
		if err := g.rm.TranslateMany(rows, res); err != nil {
			return fmt.Errorf("%w: fold through rowmap: %w", ErrConservation, err)
		}
		for i, r := range res {
			if r.Deleted {
				return errorf(ErrConservation, "fold: live row %d of fragment %d is deleted in the rowmap", offs[i], s.Fragment)
			}
			add(int(r.Dest), r.Offset)
		}
	}
	return nil
}

// updateCoverage keeps index coverage exact across the rewrite. Deferred,
// an index that covers all sources of a transition keeps its bitmap (it
// covers the destinations by derivation). Otherwise (not deferred, or an
// index covering only some of the sources, whose rows now share
// destinations with rows it never indexed) the sources leave the index's
// bitmap: the index no longer answers for those rows and the unindexed
// fallback finds them.
func updateCoverage(next *Manifest, hist, trs []Transition, deferRemap bool) error {
	for i, ix := range next.Indexes {
		cov := DerivedCoverage(ix, hist)
		var drop []uint32
		for _, tr := range trs {
			n := 0
			for _, s := range tr.Sources {
				if cov.Contains(s.Fragment) {
					n++
				}
			}
			if n > 0 && (!deferRemap || n < len(tr.Sources)) {
				for _, s := range tr.Sources {
					drop = append(drop, s.Fragment)
				}
			}
		}
		if len(drop) > 0 && ix.Fragments != nil {
			c := *ix
			c.Fragments = ix.Fragments.Clone()
			for _, id := range drop {
				c.Fragments.Remove(id)
			}
			next.Indexes[i] = &c
		}
	}
	return nil
}

// DerivedCoverage is the set of fragments an index covers after the
// transitions of history newer than the index: one covering all sources of
// a transition covers its destinations; sources of a transition it covers
// only partly are no longer covered (their rows moved to fragments the
// index cannot claim, so its entries for them must be ignored).
func DerivedCoverage(ix *IndexMeta, history []Transition) *roaring.Bitmap {
	cov := roaring.New()
	if ix.Fragments != nil {
		cov = ix.Fragments.Clone()
	}
	for _, tr := range history {
		if tr.Version <= ix.DatasetVersion {
			continue
		}
		all, some := true, false
		for _, s := range tr.Sources {
			if cov.Contains(s.Fragment) {
				some = true
			} else {
				all = false
			}
		}
		if !some {
			continue
		}
		for _, s := range tr.Sources {
			cov.Remove(s.Fragment)
		}
		if all {
			for _, d := range tr.Destinations {
				cov.Add(d.Fragment)
			}
		}
	}
	return cov
}
