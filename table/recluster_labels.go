package table

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/internal/radix"
)

// Recluster labels: which destination each source row goes to, from
// the key column's order (equal slices of the sorted keys).

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

// readKeys reads the key of every live row of srcs, in scan order, as
// one array (nil when there are none).
func (t *Table) readKeys(ctx context.Context, srcs []*Fragment, key string, mem memory.Allocator) (arrow.Array, error) {
	sc, err := t.Scan(ctx, ScanOptions{Columns: []string{key}, Fragments: fragmentIDs(srcs), Mem: mem})
	if err != nil {
		return nil, err
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
		return nil, err
	}
	if len(parts) == 0 {
		return nil, nil
	}
	keys, err := array.Concatenate(parts, mem)
	if err != nil {
		return nil, fmt.Errorf("table: recluster: %w", err)
	}
	return keys, nil
}

// partitionLabels returns each key's destination (dense 0..m-1,
// m ≤ want) and m.
func partitionLabels(keys arrow.Array, want int) ([]uint16, int, error) {
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
