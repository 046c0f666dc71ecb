package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gatherColumn gathers rows idx of a (idxNull[i], nil for none, makes row
// i NULL) with a typed copy: takeFixed for fixed-width columns, takeString
// for strings. ok is false for the other types, which go through
// compute.TakeArray. The join's output gather calls it per column per
// batch; arrow's Take runs each call on a goroutine of its own (see
// takeFixed) and builds through per-value appends.
func gatherColumn(mem memory.Allocator, a arrow.Array, idx []int32, idxNull []bool) (arrow.Array, bool) {
	if c, ok := gatherFixed(mem, a, idx, idxNull); ok {
		return c, true
	}
	if c, ok := takeFixed(mem, a, idx, idxNull); ok {
		return c, true
	}
	if s, ok := a.(*array.String); ok {
		return takeString(mem, s, idx, idxNull), true
	}
	return nil, false
}

// takeString gathers rows idx of a into a new string array: the offsets
// first (so the value bytes are allocated once), then the bytes.
func takeString(mem memory.Allocator, a *array.String, idx []int32, idxNull []bool) arrow.Array {
	n := len(idx)
	offs := a.ValueOffsets() // absolute offsets into the values buffer
	var src []byte
	if bs := a.Data().Buffers(); len(bs) > 2 && bs[2] != nil {
		src = bs[2].Bytes()
	}
	hasNulls := a.NullN() > 0 || idxNull != nil
	isNull := func(i int, j int32) bool {
		return hasNulls && ((idxNull != nil && idxNull[i]) || a.IsNull(int(j)))
	}
	obuf := memory.NewResizableBuffer(mem)
	obuf.Resize(arrow.Int32Traits.BytesRequired(n + 1))
	dstOff := arrow.Int32Traits.CastFromBytes(obuf.Bytes())
	var valid *memory.Buffer
	var vb []byte
	if hasNulls {
		valid = memory.NewResizableBuffer(mem)
		valid.Resize(int(bitutil.BytesForBits(int64(n))))
		vb = valid.Bytes()
		clear(vb)
	}
	nulls := 0
	total := int32(0)
	for i, j := range idx {
		dstOff[i] = total
		if isNull(i, j) {
			nulls++
			continue
		}
		if hasNulls {
			bitutil.SetBit(vb, i)
		}
		total += offs[j+1] - offs[j]
	}
	dstOff[n] = total
	data := memory.NewResizableBuffer(mem)
	data.Resize(int(total))
	dst := data.Bytes()
	for i, j := range idx {
		if l := dstOff[i+1] - dstOff[i]; l > 0 {
			copy(dst[dstOff[i]:dstOff[i+1]], src[offs[j]:offs[j]+l])
		}
	}
	d := array.NewData(a.DataType(), n, []*memory.Buffer{valid, obuf, data}, nil, nulls, 0)
	obuf.Release()
	data.Release()
	if valid != nil {
		valid.Release()
	}
	defer d.Release()
	return array.MakeFromData(d)
}

// gatherFixed gathers a column of 1, 2, 4, 8 or 16-byte values with a
// loop typed by the width (takeFixed copies a value at a time through
// copy, a memmove call per row); ok is false for other columns.
func gatherFixed(mem memory.Allocator, a arrow.Array, idx []int32, idxNull []bool) (arrow.Array, bool) {
	fw, ok := a.DataType().(arrow.FixedWidthDataType)
	if !ok || a.DataType().ID() == arrow.DICTIONARY || a.DataType().ID() == arrow.EXTENSION || a.DataType().ID() == arrow.BOOL {
		return nil, false
	}
	w := fw.BitWidth() / 8
	bufs := a.Data().Buffers()
	if fw.BitWidth()%8 != 0 || len(bufs) != 2 || bufs[1] == nil {
		return nil, false
	}
	off := a.Data().Offset()
	n := len(idx)
	data := memory.NewResizableBuffer(mem)
	data.Resize(n * w)
	src, dst := bufs[1].Bytes()[off*w:], data.Bytes()
	switch w {
	case 1:
		gatherValues(dst, src, idx, idxNull)
	case 2:
		gatherValues(arrow.Uint16Traits.CastFromBytes(dst), arrow.Uint16Traits.CastFromBytes(src), idx, idxNull)
	case 4:
		gatherValues(arrow.Uint32Traits.CastFromBytes(dst), arrow.Uint32Traits.CastFromBytes(src), idx, idxNull)
	case 8:
		gatherValues(arrow.Uint64Traits.CastFromBytes(dst), arrow.Uint64Traits.CastFromBytes(src), idx, idxNull)
	case 16:
		gatherValues(arrow.Decimal128Traits.CastFromBytes(dst), arrow.Decimal128Traits.CastFromBytes(src), idx, idxNull)
	default:
		data.Release()
		return nil, false
	}
	var valid *memory.Buffer
	nulls := 0
	if a.NullN() > 0 || idxNull != nil {
		valid = memory.NewResizableBuffer(mem)
		valid.Resize(int(bitutil.BytesForBits(int64(n))))
		vb := valid.Bytes()
		clear(vb)
		for i, j := range idx {
			if (idxNull != nil && idxNull[i]) || a.IsNull(int(j)) {
				nulls++
			} else {
				bitutil.SetBit(vb, i)
			}
		}
	}
	d := array.NewData(a.DataType(), n, []*memory.Buffer{valid, data}, nil, nulls, 0)
	data.Release()
	if valid != nil {
		valid.Release()
	}
	defer d.Release()
	return array.MakeFromData(d), true
}

// gatherValues sets dst[i] = src[idx[i]], leaving dst[i] (zero) where
// idxNull[i] (idx[i] need not be a row then).
func gatherValues[T any](dst, src []T, idx []int32, idxNull []bool) {
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
