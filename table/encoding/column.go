package encoding

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/errkind"
)

// ErrCorrupt is a chunk that fails its format checks.
var ErrCorrupt = errkind.New(errkind.Corrupt, "table/encoding: corrupt chunk")

// ErrType is a column type the encodings do not handle.
var ErrType = errors.New("table/encoding: unsupported type")

// The encodings of a chunk.
const (
	encPlain = 0
	encInts  = 1
	encDict  = 2
	encLZ4   = 3
)

const hasNulls = 1 // chunk flag: a validity bitmap follows

// signBit flips a signed value so that unsigned order is signed order.
const signBit = uint64(1) << 63

// Encode appends the chunk of a (any offset) to dst, the smallest of the
// encodings its type allows.
func Encode(dst []byte, a arrow.Array) ([]byte, error) {
	n := a.Len()
	body := func(enc byte) []byte {
		dst = append(dst, enc)
		dst = binary.AppendUvarint(dst, uint64(n))
		if a.NullN() == 0 {
			return append(dst, 0)
		}
		dst = append(dst, hasNulls)
		at := len(dst)
		dst = append(dst, make([]byte, bitutil.BytesForBits(int64(n)))...)
		if v := a.Data().Buffers()[0]; v != nil {
			bitutil.CopyBitmap(v.Bytes(), a.Data().Offset(), n, dst[at:], 0)
		}
		return dst
	}
	switch arr := a.(type) {
	case *array.Boolean:
		dst = body(encPlain)
		at := len(dst)
		dst = append(dst, make([]byte, bitutil.BytesForBits(int64(n)))...)
		if v := arr.Data().Buffers()[1]; v != nil && n > 0 {
			bitutil.CopyBitmap(v.Bytes(), arr.Data().Offset(), n, dst[at:], 0)
		}
		return dst, nil
	case *array.Int8:
		return encodeInts(body, arr, arr.Int8Values(), signedKey[int8]), nil
	case *array.Int16:
		return encodeInts(body, arr, arr.Int16Values(), signedKey[int16]), nil
	case *array.Int32:
		return encodeInts(body, arr, arr.Int32Values(), signedKey[int32]), nil
	case *array.Int64:
		return encodeInts(body, arr, arr.Int64Values(), signedKey[int64]), nil
	case *array.Date32:
		return encodeInts(body, arr, arr.Date32Values(), signedKey[arrow.Date32]), nil
	case *array.Timestamp:
		return encodeInts(body, arr, arr.TimestampValues(), signedKey[arrow.Timestamp]), nil
	case *array.Uint8:
		return encodeInts(body, arr, arr.Uint8Values(), unsignedKey[uint8]), nil
	case *array.Uint16:
		return encodeInts(body, arr, arr.Uint16Values(), unsignedKey[uint16]), nil
	case *array.Uint32:
		return encodeInts(body, arr, arr.Uint32Values(), unsignedKey[uint32]), nil
	case *array.Uint64:
		return encodeInts(body, arr, arr.Uint64Values(), unsignedKey[uint64]), nil
	case *array.Float32:
		// Plain: the bits as they are (NaN payloads and -0 kept).
		dst = body(encPlain)
		for _, v := range arr.Float32Values() {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
		}
		return dst, nil
	case *array.Float64:
		dst = body(encPlain)
		for _, v := range arr.Float64Values() {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
		}
		return dst, nil
	case *array.Decimal128:
		return encodeDecimal(body, arr), nil
	case *array.String:
		return encodeStrings(body, arr, n, arr.ValueOffsets, arr.ValueBytes), nil
	case *array.Binary:
		return encodeStrings(body, arr, n, arr.ValueOffsets, arr.ValueBytes), nil
	}
	return nil, fmt.Errorf("%w: %s", ErrType, a.DataType())
}

func signedKey[T int8 | int16 | int32 | int64 | arrow.Date32 | arrow.Timestamp](v T) uint64 {
	return uint64(int64(v)) ^ signBit
}

func unsignedKey[T uint8 | uint16 | uint32 | uint64](v T) uint64 { return uint64(v) }

// encodeInts writes an integer column as an integer stream of its keys,
// or plain when that is smaller (a full-range column). Null slots take
// the smallest key, so they widen nothing.
func encodeInts[T any](body func(byte) []byte, a arrow.Array, vals []T, key func(T) uint64) []byte {
	keys := make([]uint64, len(vals))
	lo, any := uint64(math.MaxUint64), false
	for i, v := range vals {
		keys[i] = key(v)
		if a.IsValid(i) {
			lo, any = min(lo, keys[i]), true
		}
	}
	if !any {
		lo = 0
	}
	if a.NullN() > 0 {
		for i := range keys {
			if a.IsNull(i) {
				keys[i] = lo
			}
		}
	}
	ints := appendInts(nil, keys, true)
	width := a.DataType().(arrow.FixedWidthDataType).BitWidth() / 8
	if len(ints) < 1+len(vals)*width {
		return append(body(encInts), ints...)
	}
	dst := body(encPlain)
	for _, k := range keys {
		if key(*new(T)) == signBit { // signed: undo the flip
			k ^= signBit
		}
		for b := range width {
			dst = append(dst, byte(k>>(8*b)))
		}
	}
	return dst
}

// encodeDecimal writes offsets from the smallest value when the range
// fits 64 bits, else plain (16 bytes a value).
func encodeDecimal(body func(byte) []byte, a *array.Decimal128) []byte {
	vals := a.Values()
	var lo, hi decimal128.Num
	any := false
	for i, v := range vals {
		if a.IsNull(i) {
			continue
		}
		if !any || v.Less(lo) {
			lo = v
		}
		if !any || hi.Less(v) {
			hi = v
		}
		any = true
	}
	if span := hi.Sub(lo); span.HighBits() == 0 {
		keys := make([]uint64, len(vals))
		for i, v := range vals {
			if a.IsValid(i) {
				keys[i] = v.Sub(lo).LowBits()
			}
		}
		dst := body(encInts)
		dst = binary.LittleEndian.AppendUint64(dst, lo.LowBits())
		dst = binary.LittleEndian.AppendUint64(dst, uint64(lo.HighBits()))
		return appendInts(dst, keys, true)
	}
	dst := body(encPlain)
	for _, v := range vals {
		dst = binary.LittleEndian.AppendUint64(dst, v.LowBits())
		dst = binary.LittleEndian.AppendUint64(dst, uint64(v.HighBits()))
	}
	return dst
}

// Decode builds the array of type t and rows values from chunk. Buffers
// it allocates come from mem; the array may share chunk's bytes.
func Decode(t arrow.DataType, rows int, chunk []byte, mem memory.Allocator) (arrow.Array, error) {
	r := &reader{b: chunk}
	enc := r.u8("encoding")
	n := r.uv("row count")
	flags := r.u8("flags")
	if r.err != nil {
		return nil, r.err
	}
	if n != uint64(rows) {
		return nil, fmt.Errorf("%w: chunk of %d rows, expected %d", ErrCorrupt, n, rows)
	}
	if flags&^hasNulls != 0 {
		return nil, fmt.Errorf("%w: chunk flags %#x", ErrCorrupt, flags)
	}
	var validity []byte
	nulls := 0
	if flags&hasNulls != 0 {
		validity = r.bytes("validity", int(bitutil.BytesForBits(int64(rows))))
		if r.err != nil {
			return nil, r.err
		}
		nulls = rows - bitutil.CountSetBits(validity, 0, rows)
	}
	d := decoder{r: r, t: t, rows: rows, mem: mem, validity: validity, nulls: nulls}
	a := d.decode(enc)
	if r.err == nil && len(r.b) != 0 {
		r.fail("%d bytes after the chunk", len(r.b))
	}
	if r.err != nil {
		if a != nil {
			a.Release()
		}
		return nil, r.err
	}
	return a, nil
}

type decoder struct {
	r        *reader
	t        arrow.DataType
	rows     int
	mem      memory.Allocator
	validity []byte
	nulls    int
}

// array makes the array from its buffers (after validity), which it
// releases (the array holds them).
func (d *decoder) array(bufs ...*memory.Buffer) arrow.Array {
	var v *memory.Buffer
	if d.validity != nil {
		v = memory.NewBufferBytes(d.validity)
	}
	data := array.NewData(d.t, d.rows, append([]*memory.Buffer{v}, bufs...), nil, d.nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	a := array.MakeFromData(data)
	data.Release()
	return a
}

// alloc is a buffer of n bytes from mem.
func (d *decoder) alloc(n int) *memory.Buffer {
	b := memory.NewResizableBuffer(d.mem)
	b.Resize(n)
	return b
}

// allocSlack is a buffer of n bytes from mem whose Buf has at least slack
// bytes more, for writes in whole words past the last value.
func (d *decoder) allocSlack(n, slack int) *memory.Buffer {
	b := memory.NewResizableBuffer(d.mem)
	b.Reserve(n + slack)
	b.ResizeNoShrink(n)
	return b
}

func (d *decoder) decode(enc byte) arrow.Array {
	r := d.r
	switch t := d.t.(type) {
	case *arrow.BooleanType:
		if enc != encPlain {
			break
		}
		bits := r.bytes("booleans", int(bitutil.BytesForBits(int64(d.rows))))
		if r.err != nil {
			return nil
		}
		return d.array(memory.NewBufferBytes(bits))
	case *arrow.Int8Type:
		return decodeInts[int8](d, enc, 1, signBit)
	case *arrow.Int16Type:
		return decodeInts[int16](d, enc, 2, signBit)
	case *arrow.Int32Type:
		return decodeInts[int32](d, enc, 4, signBit)
	case *arrow.Int64Type:
		return decodeInts[int64](d, enc, 8, signBit)
	case *arrow.Date32Type:
		return decodeInts[arrow.Date32](d, enc, 4, signBit)
	case *arrow.TimestampType:
		return decodeInts[arrow.Timestamp](d, enc, 8, signBit)
	case *arrow.Uint8Type:
		return decodeInts[uint8](d, enc, 1, 0)
	case *arrow.Uint16Type:
		return decodeInts[uint16](d, enc, 2, 0)
	case *arrow.Uint32Type:
		return decodeInts[uint32](d, enc, 4, 0)
	case *arrow.Uint64Type:
		return decodeInts[uint64](d, enc, 8, 0)
	case *arrow.Float32Type:
		if enc == encPlain {
			return d.plain(4)
		}
	case *arrow.Float64Type:
		if enc == encPlain {
			return d.plain(8)
		}
	case *arrow.Decimal128Type:
		return d.decimal(enc)
	case *arrow.StringType, *arrow.BinaryType:
		if enc == encLZ4 {
			return d.compressed()
		}
		return d.strings(enc)
	default:
		r.fail("type %s", t)
		return nil
	}
	r.fail("encoding %d for %s", enc, d.t)
	return nil
}

// plain copies rows values of width bytes (the bits as written).
func (d *decoder) plain(width int) arrow.Array {
	src := d.r.bytes("plain values", d.rows*width)
	if d.r.err != nil {
		return nil
	}
	b := d.alloc(len(src))
	copy(b.Bytes(), src)
	return d.array(b)
}

// decodeInts decodes an integer column straight into its Arrow buffer.
func decodeInts[T intLike](d *decoder, enc byte, width int, flip uint64) arrow.Array {
	switch enc {
	case encPlain:
		return d.plain(width)
	case encInts:
		b := d.alloc(d.rows * width)
		ints(d.r, castBytes[T](b.Bytes(), d.rows), true, flip)
		if d.r.err != nil {
			b.Release()
			return nil
		}
		return d.array(b)
	}
	d.r.fail("encoding %d for %s", enc, d.t)
	return nil
}

func (d *decoder) decimal(enc byte) arrow.Array {
	r := d.r
	switch enc {
	case encPlain:
		return d.plain(16)
	case encInts:
		lo := r.u64("decimal base")
		hi := r.u64("decimal base")
		if r.err != nil {
			return nil
		}
		base := decimal128.New(int64(hi), lo)
		b := d.alloc(d.rows * 16)
		nums := castBytes[uint64](b.Bytes(), 2*d.rows)
		if len(r.b) > 0 && r.b[0] == intsPacked {
			// The usual case: unpack straight into the values.
			s := r.stream(d.rows, true)
			if r.err != nil {
				b.Release()
				return nil
			}
			unpackDecimal(nums, s.src, s.base, s.width, base.LowBits(), uint64(base.HighBits()))
			return d.array(b)
		}
		// Offsets first, then base + offset with a carry, in place.
		offs := nums[d.rows:]
		ints(r, offs, true, 0)
		if r.err != nil {
			b.Release()
			return nil
		}
		bl, bh := base.LowBits(), uint64(base.HighBits())
		// offs[i] is word rows+i; step i writes words 2i and 2i+1, which
		// are offsets already read (index <= i) or below them.
		for i := range d.rows {
			lo, carry := bits.Add64(bl, offs[i], 0)
			nums[2*i], nums[2*i+1] = lo, bh+carry
		}
		return d.array(b)
	}
	r.fail("encoding %d for %s", enc, d.t)
	return nil
}

// castBytes views b (from mem: aligned, n values long) as []T.
func castBytes[T any](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
