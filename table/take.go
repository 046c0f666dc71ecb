package table

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/internal/radix"
	"github.com/stablerow/stablerow/table/rowid"
)

// Take reads the rows at the given addresses, in the given order
// (duplicates allowed), and returns the named columns (which may include
// _rowid and _rowaddr). Positions where valid is false (valid may be nil)
// come out as NULL in every column; those addresses are not looked at.
//
// Take reads physical rows: it does not consult deletion vectors, because
// its callers (index probes) decide liveness themselves; use IsLive for
// that. An address outside the table is ErrInvalidArgument.
//
// Each data batch touched is decoded once per call however many addresses
// fall into it.
func (t *Table) Take(ctx context.Context, addrs []uint64, valid []bool, columns []string, mem memory.Allocator) (arrow.RecordBatch, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if valid != nil && len(valid) != len(addrs) {
		return nil, errorf(ErrInvalidArgument, "take: %d validity flags for %d addresses", len(valid), len(addrs))
	}
	p, err := t.project(columns)
	if err != nil {
		return nil, err
	}
	// order: positions of valid addresses sorted by fragment and batch, so
	// each data batch is visited once.
	order := make([]int32, 0, len(addrs))
	for i := range addrs {
		if valid == nil || valid[i] {
			order = append(order, int32(i))
		}
	}
	sortByAddr(order, addrs, t.batchShift())
	gathered, err := t.gather(ctx, p, addrs, order, mem)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(gathered)
	// Scatter back: out[i] = gathered[rank of i], NULL where invalid.
	rank := make([]int32, len(addrs))
	for r, i := range order {
		rank[i] = int32(r)
	}
	ib := array.NewInt32Builder(mem)
	defer ib.Release()
	ib.Reserve(len(addrs))
	for i := range addrs {
		if valid != nil && !valid[i] {
			ib.UnsafeAppendBoolToBitmap(false)
		} else {
			ib.UnsafeAppend(rank[i])
		}
	}
	idx := ib.NewInt32Array()
	defer idx.Release()
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, len(gathered))
	defer releaseArrays(cols)
	for c, g := range gathered {
		out, err := compute.TakeArray(cctx, g, idx)
		if err != nil {
			return nil, fmt.Errorf("table: take: %w", err)
		}
		cols[c] = out
	}
	fs := slices.Clone(p.schema.Fields())
	for i := range fs {
		fs[i].Nullable = fs[i].Nullable || valid != nil
	}
	return array.NewRecordBatch(arrow.NewSchema(fs, nil), cols, int64(len(addrs))), nil
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

// gather returns, per projected column, the rows at addrs[order[k]] for
// k = 0.. (order sorted by fragment and batch).
func (t *Table) gather(ctx context.Context, p *projection, addrs []uint64, order []int32, mem memory.Allocator) ([]arrow.Array, error) {
	parts := make([][]arrow.Array, len(p.src))
	defer func() {
		for _, ps := range parts {
			releaseArrays(ps)
		}
	}()
	cctx := compute.WithAllocator(ctx, mem)
	for k := 0; k < len(order); {
		// Addresses are checked here, a fragment lookup per run of the
		// sorted positions rather than one per address.
		ad := rowid.Address(addrs[order[k]])
		f := t.m.Fragment(ad.Fragment())
		if f == nil {
			return nil, errorf(ErrInvalidArgument, "take: address %s is not in version %d", ad, t.m.Version)
		}
		// The run of positions in this fragment.
		e := k
		for e < len(order) && rowid.Address(addrs[order[e]]).Fragment() == f.ID {
			e++
		}
		if err := t.gatherFragment(cctx, p, f, addrs, order[k:e], mem, parts); err != nil {
			return nil, err
		}
		k = e
	}
	out := make([]arrow.Array, len(p.src))
	for c := range p.src {
		if len(parts[c]) == 0 {
			out[c] = array.MakeArrayOfNull(mem, p.schema.Field(c).Type, 0)
			continue
		}
		a, err := array.Concatenate(parts[c], mem)
		if err != nil {
			releaseArrays(out)
			return nil, fmt.Errorf("table: take: %w", err)
		}
		out[c] = a
	}
	return out, nil
}

func (t *Table) gatherFragment(ctx context.Context, p *projection, f *Fragment, addrs []uint64, order []int32, mem memory.Allocator, parts [][]arrow.Array) error {
	offs := make([]uint64, len(order))
	for i, o := range order {
		offs[i] = uint64(rowid.Address(addrs[o]).Offset())
	}
	if top := slices.Max(offs); top >= f.PhysicalRows {
		return errorf(ErrInvalidArgument, "take: address %s is not in version %d", rowid.NewAddress(f.ID, uint32(top)), t.m.Version)
	}
	var d *dataFile
	if p.user {
		var err error
		if d, err = t.openData(ctx, f, mem); err != nil {
			return err
		}
		defer d.Close()
	}
	for k := 0; k < len(offs); {
		bi := offs[k] / f.BatchRows
		e := k
		for e < len(offs) && offs[e]/f.BatchRows == bi {
			e++
		}
		var data []arrow.Array // the user columns p.cols of the batch
		var idx arrow.Array
		picked := false // data holds the rows at offs[k:e] only
		if d != nil {
			if err := d.readAhead(ctx, offs[k:]); err != nil {
				return err
			}
			var pos []int32
			if picked = f.File.Format == FormatEncoded; picked {
				// Decode only the rows taken, not the whole chunks.
				pos = make([]int32, e-k)
				for j, o := range offs[k:e] {
					pos[j] = int32(o - bi*f.BatchRows)
				}
			}
			cs, _, err := d.batchRows(int(bi), p.cols, pos, nil)
			if err != nil {
				return err
			}
			data = cs
		}
		err := func() error {
			defer releaseAll(data)
			defer func() {
				if idx != nil {
					idx.Release()
				}
			}()
			for c := range p.src {
				var a arrow.Array
				if at := p.at[c]; at >= 0 && picked {
					a = data[at]
					a.Retain()
				} else if at >= 0 {
					var err error
					if a = gatherFixed(mem, data[at], offs[k:e], bi*f.BatchRows); a == nil {
						if idx == nil { // take kernel indices, built only for variable-width columns
							ib := array.NewUint32Builder(mem)
							ib.Reserve(e - k)
							for _, o := range offs[k:e] {
								ib.UnsafeAppend(uint32(o - bi*f.BatchRows))
							}
							idx = ib.NewArray()
							ib.Release()
						}
						if a, err = compute.TakeArray(ctx, data[at], idx); err != nil {
							return fmt.Errorf("table: take: %w", err)
						}
					}
				} else {
					a = systemValues(mem, f, p.names[c], offs[k:e])
				}
				parts[c] = append(parts[c], a)
			}
			return nil
		}()
		if err != nil {
			return err
		}
		k = e
	}
	return nil
}

// systemValues builds _rowid or _rowaddr at the given offsets of f.
func systemValues(mem memory.Allocator, f *Fragment, name string, offs []uint64) arrow.Array {
	b := array.NewUint64Builder(mem)
	defer b.Release()
	b.Reserve(len(offs))
	for _, o := range offs {
		if name == RowID {
			id, _ := f.RowIDs.Get(o)
			b.UnsafeAppend(id)
		} else {
			b.UnsafeAppend(uint64(rowid.NewAddress(f.ID, uint32(o))))
		}
	}
	return b.NewArray()
}

// IsLive reports whether addr is a live row of this version.
func (t *Table) IsLive(addr uint64) bool {
	ad := rowid.Address(addr)
	f := t.m.Fragment(ad.Fragment())
	return f != nil && f.IsLive(ad.Offset())
}

// RowIDAt returns the row id stored at addr (live or not).
func (t *Table) RowIDAt(addr uint64) (uint64, bool) {
	ad := rowid.Address(addr)
	f := t.m.Fragment(ad.Fragment())
	if f == nil {
		return 0, false
	}
	return f.RowIDs.Get(uint64(ad.Offset()))
}

// gatherFixed copies the rows at offs (minus base) of a fixed-width column
// straight out of its (memory-mapped) buffers: for a handful of rows per
// batch this is far cheaper than a take kernel call. nil for other types.
func gatherFixed(mem memory.Allocator, col arrow.Array, offs []uint64, base uint64) arrow.Array {
	switch c := col.(type) {
	case *array.Int64:
		return gatherValues(c, c.Int64Values(), offs, base, array.NewInt64Builder(mem))
	case *array.Uint64:
		return gatherValues(c, c.Uint64Values(), offs, base, array.NewUint64Builder(mem))
	case *array.Float64:
		return gatherValues(c, c.Float64Values(), offs, base, array.NewFloat64Builder(mem))
	case *array.Int32:
		return gatherValues(c, c.Int32Values(), offs, base, array.NewInt32Builder(mem))
	case *array.Float32:
		return gatherValues(c, c.Float32Values(), offs, base, array.NewFloat32Builder(mem))
	}
	return nil
}

type fixedBuilder[T any] interface {
	Reserve(int)
	UnsafeAppend(T)
	UnsafeAppendBoolToBitmap(bool)
	NewArray() arrow.Array
	Release()
}

func gatherValues[T any](col arrow.Array, vals []T, offs []uint64, base uint64, b fixedBuilder[T]) arrow.Array {
	defer b.Release()
	b.Reserve(len(offs))
	nulls := col.NullN() > 0
	for _, o := range offs {
		i := int(o - base)
		if nulls && col.IsNull(i) {
			b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		b.UnsafeAppend(vals[i])
	}
	return b.NewArray()
}

// batchShift is the largest s such that every fragment's batch size is a
// multiple of 2^s: 2^s-row groups of offsets never straddle a data batch.
func (t *Table) batchShift() uint {
	s := uint(63)
	for _, f := range t.m.Fragments {
		if f.BatchRows > 0 {
			s = min(s, uint(bits.TrailingZeros64(f.BatchRows)))
		}
	}
	return min(s, 32)
}

// sortByAddr stably sorts positions by addrs[position] with the low shift
// bits of each offset ignored: by fragment and 2^shift-row group, which is
// all the gather needs (it reads each data batch once if the groups do not
// straddle batches, and any order within a batch), and far fewer bits to
// sort — 12 instead of 24 for a take over ten 1M-row fragments of
// 4096-row batches.
//
// Small inputs take a comparison sort. Otherwise each position becomes one
// uint64 key: the fragment id less the smallest one and the offset group,
// each in only the bits it needs, above the position itself; an LSD radix
// sort over the group bits orders the keys with sequential reads only. Ties
// keep position order because the keys start in it and every pass is
// stable. (Sorting positions by indirect loads of addrs, byte by byte, cost
// ~300 ms per 1M random addresses, most of a 1M-row take.) Addresses too
// wide to share one key with their position (fragment ids and offsets
// spanning over 33 bits together) take the comparison sort.
func sortByAddr(order []int32, addrs []uint64, shift uint) {
	group := func(a uint64) uint64 { return a>>32<<32 | uint64(uint32(a)>>shift) }
	byCompare := func() {
		slices.SortStableFunc(order, func(a, b int32) int {
			return cmp.Compare(group(addrs[a]), group(addrs[b]))
		})
	}
	if len(order) < 256 {
		byCompare()
		return
	}
	lo, hi, maxGroup, maxPos := uint32(1<<32-1), uint32(0), uint32(0), int32(0)
	for _, i := range order {
		a := addrs[i]
		lo, hi = min(lo, uint32(a>>32)), max(hi, uint32(a>>32))
		maxGroup = max(maxGroup, uint32(a)>>shift)
		maxPos = max(maxPos, i)
	}
	fragBits, offBits, posBits := uint(bits.Len32(hi-lo)), uint(bits.Len32(maxGroup)), uint(bits.Len32(uint32(maxPos)))
	if fragBits+offBits+posBits > 64 {
		byCompare()
		return
	}
	keys := make([]uint64, len(order))
	for j, i := range order {
		a := addrs[i]
		keys[j] = (uint64(uint32(a>>32)-lo)<<offBits|uint64(uint32(a)>>shift))<<posBits | uint64(i)
	}
	radix.SortKeys(keys, posBits, posBits+fragBits+offBits)
	for j, k := range keys {
		order[j] = int32(k & (1<<posBits - 1))
	}
}
