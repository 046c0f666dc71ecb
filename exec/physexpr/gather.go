package physexpr

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Gathering rows by index, the one implementation for every operator
// that copies rows: the filter's kept rows (an ascending selection made
// from its mask), the join's output rows (any order, repeats, and an
// optional idxNull marking rows with no source row, which come out NULL:
// an outer join's missing side) and the sort's permutation. Each column
// is copied by a loop typed for it: fixed-width values of 1, 2, 4, 8 and
// 16 bytes, boolean and validity bits, strings and binaries with their
// offsets. Types without a loop here (lists, structs, dictionaries, ...)
// go through compute.TakeArray. The copies are plain loops on the
// caller's goroutine: arrow's compute executor hands every call to a new
// goroutine (with the partitions of a parallel plan competing for the
// CPUs, each handoff waited for the scheduler: BENCHMARKS.md, "Parallel
// execution"), builds through per-value appends, and its filter kernels
// showed at 20% of TPC-H Q1.

// loadBits is the n (<= 64) bits of bm from bit off, as a word with bit 0
// the first.
func loadBits(bm []byte, off, n int) uint64 {
	i, s := off/8, off%8
	var w uint64
	if i+9 <= len(bm) {
		w = binary.LittleEndian.Uint64(bm[i:]) >> s
		if s != 0 {
			w |= uint64(bm[i+8]) << (64 - s)
		}
	} else {
		for k := 0; k < 9 && i+k < len(bm); k++ {
			if x := uint64(bm[i+k]); 8*k >= s {
				w |= x << (8*k - s)
			} else {
				w |= x >> (s - 8*k)
			}
		}
	}
	if n < 64 {
		w &= 1<<n - 1
	}
	return w
}

// Selection appends to sel (reset first) the rows where mask is TRUE
// (NULL and FALSE drop).
func Selection(mask *array.Boolean, sel []int32) []int32 {
	sel = sel[:0]
	n := mask.Len()
	if n == 0 {
		return sel
	}
	vals, off := mask.Data().Buffers()[1].Bytes(), mask.Offset()
	var valid []byte
	if mask.NullN() != 0 && mask.Data().Buffers()[0] != nil {
		valid = mask.Data().Buffers()[0].Bytes()
	}
	for base := 0; base < n; base += 64 {
		k := min(64, n-base)
		w := loadBits(vals, off+base, k)
		if valid != nil {
			w &= loadBits(valid, off+base, k)
		}
		for w != 0 {
			sel = append(sel, int32(base+bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	return sel
}

// GatherBatch is the batch of b's rows at sel (in range).
func GatherBatch(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, sel []int32) (arrow.RecordBatch, error) {
	cols, err := Gather(ctx, mem, b.Columns(), sel, nil, make([]arrow.Array, 0, b.NumCols()))
	defer func() { ReleaseAll(cols) }()
	if err != nil {
		// cols holds the columns before the one that failed.
		return nil, fmt.Errorf("%w: gathering %s rows: %w", ErrInvalidArgument, b.Column(len(cols)).DataType(), err)
	}
	return array.NewRecordBatch(b.Schema(), cols, int64(len(sel))), nil
}

// Gather appends to out each column of cols gathered at idx (idxNull as
// GatherColumn's) and returns out: by GatherColumn's typed loop where it
// has one, else through compute.TakeArray with an index array made once,
// on the first column that needs it. On an error out holds the columns
// gathered before the failing one, for the caller to release; the error
// is compute.TakeArray's, for the caller to wrap (the filter, the join and
// the sort each name themselves).
func Gather(ctx context.Context, mem memory.Allocator, cols []arrow.Array, idx []int32, idxNull []bool, out []arrow.Array) ([]arrow.Array, error) {
	var ia arrow.Array // for compute.TakeArray, made on first need
	defer func() {
		if ia != nil {
			ia.Release()
		}
	}()
	for _, c := range cols {
		if a, ok := GatherColumn(mem, c, idx, idxNull); ok {
			out = append(out, a)
			continue
		}
		if ia == nil {
			ia = Int32Array(mem, idx, idxNull)
		}
		a, err := compute.TakeArray(compute.WithAllocator(ctx, mem), c, ia)
		if err != nil {
			return out, err
		}
		out = append(out, a)
	}
	return out, nil
}

// GatherColumn copies a's rows at idx into a new array; row i is NULL
// where idxNull[i] (idxNull nil: no such rows; idx[i] need not be a row
// there) or a's row idx[i] is NULL. ok is false for the types without a
// loop here, which the caller takes through compute.TakeArray.
func GatherColumn(mem memory.Allocator, a arrow.Array, idx []int32, idxNull []bool) (arrow.Array, bool) {
	d := a.Data()
	var vals []*memory.Buffer // the buffers after the validity
	switch id := a.DataType().ID(); id {
	case arrow.BOOL:
		if d.Buffers()[1] == nil {
			return nil, false
		}
		vals = []*memory.Buffer{gatherBits(mem, d.Buffers()[1].Bytes(), d.Offset(), idx, idxNull)}
	case arrow.STRING, arrow.BINARY:
		if vals = gatherVar[int32](mem, d, idx, idxNull); vals == nil {
			return nil, false
		}
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		vals = gatherVar[int64](mem, d, idx, idxNull)
	case arrow.DICTIONARY, arrow.EXTENSION:
		return nil, false
	default:
		fw, ok := a.DataType().(arrow.FixedWidthDataType)
		if !ok || len(d.Buffers()) != 2 || d.Buffers()[1] == nil || len(d.Children()) != 0 {
			return nil, false
		}
		buf, ok := gatherFixedBuffer(mem, fw.BitWidth(), d, idx, idxNull)
		if !ok {
			return nil, false
		}
		vals = []*memory.Buffer{buf}
	}
	var valid *memory.Buffer
	nulls := 0
	if hasValidity := a.NullN() != 0 && d.Buffers()[0] != nil; hasValidity || idxNull != nil {
		if hasValidity {
			valid = gatherBits(mem, d.Buffers()[0].Bytes(), d.Offset(), idx, idxNull)
		} else {
			valid = notNullBits(mem, idxNull)
		}
		nulls = len(idx) - bitutil.CountSetBits(valid.Bytes(), 0, len(idx))
		if nulls == 0 {
			valid.Release()
			valid = nil
		}
	}
	out := array.NewData(a.DataType(), len(idx), append([]*memory.Buffer{valid}, vals...), nil, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	for _, v := range vals {
		v.Release()
	}
	defer out.Release()
	return array.MakeFromData(out), true
}

// gatherFixedBuffer copies the values of a fixed-width column (width in
// bits: 8, 16, 32, 64 or 128) at idx, zero where idxNull.
func gatherFixedBuffer(mem memory.Allocator, width int, d arrow.ArrayData, idx []int32, idxNull []bool) (*memory.Buffer, bool) {
	w := width / 8
	switch width {
	case 8, 16, 32, 64, 128:
	default:
		return nil, false
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(idx) * w)
	dst, src := buf.Bytes()[:len(idx)*w], d.Buffers()[1].Bytes()[d.Offset()*w:]
	if idxNull != nil { // every other row is written
		clear(dst)
	}
	switch width {
	case 8:
		gatherValues(dst, src, idx, idxNull)
	case 16:
		gatherValues(arrow.GetData[uint16](dst), arrow.GetData[uint16](src), idx, idxNull)
	case 32:
		gatherValues(arrow.GetData[uint32](dst), arrow.GetData[uint32](src), idx, idxNull)
	case 64:
		gatherValues(arrow.GetData[uint64](dst), arrow.GetData[uint64](src), idx, idxNull)
	case 128:
		gatherValues(arrow.GetData[decimal128.Num](dst), arrow.GetData[decimal128.Num](src), idx, idxNull)
	}
	return buf, true
}

// gatherValues sets dst[i] = src[idx[i]], leaving dst[i] (zero) where
// idxNull[i].
func gatherValues[T any](dst, src []T, idx []int32, idxNull []bool) {
	dst = dst[:len(idx)]
	if idxNull == nil {
		for i, j := range idx {
			dst[i] = src[j]
		}
		return
	}
	for i, j := range idx {
		if !idxNull[i] {
			dst[i] = src[j]
		}
	}
}

// gatherBits copies the bits of bm (from bit off) at idx into a new
// bitmap, clear where idxNull.
func gatherBits(mem memory.Allocator, bm []byte, off int, idx []int32, idxNull []bool) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	nb := int(bitutil.BytesForBits(int64(len(idx))))
	buf.Resize(nb)
	out := buf.Bytes()[:nb]
	clear(out)
	for i, j := range idx {
		if idxNull != nil && idxNull[i] {
			continue
		}
		p := off + int(j)
		out[i>>3] |= (bm[p>>3] >> (p & 7) & 1) << (i & 7)
	}
	return buf
}

// notNullBits is the validity of a column NULL exactly where idxNull.
func notNullBits(mem memory.Allocator, idxNull []bool) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	nb := int(bitutil.BytesForBits(int64(len(idxNull))))
	buf.Resize(nb)
	out := buf.Bytes()[:nb]
	clear(out)
	for i, null := range idxNull {
		if !null {
			out[i>>3] |= 1 << (i & 7)
		}
	}
	return buf
}

// gatherVar copies a string or binary column's rows at idx: the offsets
// (from 0) first, so the value bytes are allocated once, then the bytes;
// a row where idxNull is empty. Repeated rows can make more bytes than
// 32-bit offsets address: nil then, and compute.TakeArray reports it.
func gatherVar[O int32 | int64](mem memory.Allocator, d arrow.ArrayData, idx []int32, idxNull []bool) []*memory.Buffer {
	offs := offsetsOf[O](d)
	var data []byte
	if len(d.Buffers()) > 2 && d.Buffers()[2] != nil {
		data = d.Buffers()[2].Bytes()
	}
	if sizeOf[O]() == 4 {
		var total int64
		for i, j := range idx {
			if idxNull == nil || !idxNull[i] {
				total += int64(offs[j+1] - offs[j])
			}
		}
		if total > math.MaxInt32 {
			return nil
		}
	}
	ob := memory.NewResizableBuffer(mem)
	ob.Resize((len(idx) + 1) * sizeOf[O]())
	no := arrow.GetData[O](ob.Bytes())[:len(idx)+1]
	var total O
	no[0] = 0
	for i, j := range idx {
		if idxNull == nil || !idxNull[i] {
			total += offs[j+1] - offs[j]
		}
		no[i+1] = total
	}
	db := memory.NewResizableBuffer(mem)
	db.Resize(int(total))
	dst := db.Bytes()[:total]
	for i, j := range idx {
		if no[i+1] > no[i] {
			copy(dst[no[i]:no[i+1]], data[offs[j]:offs[j+1]])
		}
	}
	return []*memory.Buffer{ob, db}
}

func sizeOf[O int32 | int64]() int {
	var o O
	if any(o) == any(int32(0)) {
		return 4
	}
	return 8
}

// Int32Array makes an index array; null[i] marks a NULL index (Take gives
// a NULL row for it).
func Int32Array(mem memory.Allocator, v []int32, null []bool) arrow.Array {
	b := array.NewInt32Builder(mem)
	defer b.Release()
	b.Reserve(len(v))
	for i, x := range v {
		if null != nil && null[i] {
			b.AppendNull()
		} else {
			b.UnsafeAppend(x)
		}
	}
	return b.NewArray()
}
