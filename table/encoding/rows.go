package encoding

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DecodeRows builds the array of the values at positions pos (each below
// rows, any order, repeats allowed) of a chunk of type t and rows values:
// what Decode followed by a take of pos gives, for a point take of a few
// rows of a batch. A bit-packed stream (integers, dates, decimals,
// dictionary codes) is read at those positions only, as is a plain
// fixed-width chunk, so the cost is per row taken, not per chunk. What
// has no random access is decoded whole first: run-length streams,
// string lengths (a row's offset is the sum of the lengths before it)
// and LZ4 blocks.
//
// The chunk's structure is checked as Decode checks it (every length
// against the bytes, the chunk used exactly); of a dictionary's codes
// only those read are checked against its size. A position outside
// [0, rows) is ErrCorrupt too (the caller's addresses are checked first;
// this is the second line). Nothing of the chunk is shared with the
// array: its buffers come from mem.
func DecodeRows(t arrow.DataType, rows int, chunk []byte, pos []int32, mem memory.Allocator) (arrow.Array, error) {
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
	for _, p := range pos {
		if p < 0 || int(p) >= rows {
			return nil, fmt.Errorf("%w: row %d of a chunk of %d", ErrCorrupt, p, rows)
		}
	}
	if flags&hasNulls != 0 {
		validity := r.bytes("validity", int(bitutil.BytesForBits(int64(rows))))
		if r.err != nil {
			return nil, r.err
		}
		if enc == encLZ4 {
			// No random access to the values: decode whole, then pick.
			return decodeThenPick(t, rows, chunk, pos, mem)
		}
		return pickRows(r, t, enc, rows, validity, pos, mem)
	}
	if enc == encLZ4 {
		return decodeThenPick(t, rows, chunk, pos, mem)
	}
	return pickRows(r, t, enc, rows, nil, pos, mem)
}

// pickRows decodes the rest of the chunk in r (its payload) at pos.
func pickRows(r *reader, t arrow.DataType, enc byte, rows int, validity []byte, pos []int32, mem memory.Allocator) (arrow.Array, error) {
	p := picker{r: r, t: t, rows: rows, pos: pos, mem: mem}
	p.pickValidity(validity)
	a := p.decode(enc)
	if r.err == nil && len(r.b) != 0 {
		r.fail("%d bytes after the chunk", len(r.b))
	}
	if r.err != nil {
		if a != nil {
			a.Release()
		}
		if p.valid != nil {
			p.valid.Release()
		}
		return nil, r.err
	}
	return a, nil
}

// decodeThenPick is DecodeRows of a chunk without random access.
func decodeThenPick(t arrow.DataType, rows int, chunk []byte, pos []int32, mem memory.Allocator) (arrow.Array, error) {
	whole, err := Decode(t, rows, chunk, mem)
	if err != nil {
		return nil, err
	}
	defer whole.Release()
	switch w := whole.(type) {
	case *array.String:
		return pickStrings(w.Data(), w.ValueOffsets(), []byte(w.ValueBytes()), pos, mem)
	case *array.Binary:
		return pickStrings(w.Data(), w.ValueOffsets(), w.ValueBytes(), pos, mem)
	}
	return nil, fmt.Errorf("%w: %s", ErrType, t)
}

// pickStrings is the string or binary array of data's values at pos,
// which lie at offs in vals.
func pickStrings(data arrow.ArrayData, offs []int32, vals []byte, pos []int32, mem memory.Allocator) (arrow.Array, error) {
	p := picker{r: &reader{}, t: data.DataType(), pos: pos, mem: mem}
	if data.NullN() > 0 {
		p.pickValidity(data.Buffers()[0].Bytes())
	}
	a := p.strings(func(i int32) []byte { return vals[offs[i]:offs[i+1]] })
	if p.r.err != nil {
		return nil, p.r.err
	}
	return a, nil
}

// picker builds the array of the rows at pos.
type picker struct {
	r     *reader
	t     arrow.DataType
	rows  int
	pos   []int32
	mem   memory.Allocator
	valid *memory.Buffer // nil: no row picked is null
	nulls int
}

// pickValidity picks the validity bits of pos (validity nil: no nulls).
func (p *picker) pickValidity(validity []byte) {
	if validity == nil {
		return
	}
	nulls := 0
	for _, i := range p.pos {
		if !bitutil.BitIsSet(validity, int(i)) {
			nulls++
		}
	}
	if nulls == 0 {
		return
	}
	p.valid = p.alloc(int(bitutil.BytesForBits(int64(len(p.pos)))))
	bm := p.valid.Bytes()
	for j, i := range p.pos {
		if bitutil.BitIsSet(validity, int(i)) {
			bitutil.SetBit(bm, j)
		}
	}
	p.nulls = nulls
}

func (p *picker) alloc(n int) *memory.Buffer {
	b := memory.NewResizableBuffer(p.mem)
	b.Resize(n)
	clear(b.Bytes())
	return b
}

// array makes the array of len(pos) values from its buffers after the
// validity, releasing them (the array holds them).
func (p *picker) array(bufs ...*memory.Buffer) arrow.Array {
	data := array.NewData(p.t, len(p.pos), append([]*memory.Buffer{p.valid}, bufs...), nil, p.nulls, 0)
	if p.valid != nil {
		p.valid.Release()
		p.valid = nil
	}
	for _, b := range bufs {
		b.Release()
	}
	a := array.MakeFromData(data)
	data.Release()
	return a
}

func (p *picker) decode(enc byte) arrow.Array {
	r := p.r
	switch p.t.(type) {
	case *arrow.BooleanType:
		if enc != encPlain {
			break
		}
		src := r.bytes("booleans", int(bitutil.BytesForBits(int64(p.rows))))
		if r.err != nil {
			return nil
		}
		b := p.alloc(int(bitutil.BytesForBits(int64(len(p.pos)))))
		for j, i := range p.pos {
			if bitutil.BitIsSet(src, int(i)) {
				bitutil.SetBit(b.Bytes(), j)
			}
		}
		return p.array(b)
	case *arrow.Int8Type:
		return pickInts[int8](p, enc, 1, signBit)
	case *arrow.Int16Type:
		return pickInts[int16](p, enc, 2, signBit)
	case *arrow.Int32Type:
		return pickInts[int32](p, enc, 4, signBit)
	case *arrow.Int64Type:
		return pickInts[int64](p, enc, 8, signBit)
	case *arrow.Date32Type:
		return pickInts[arrow.Date32](p, enc, 4, signBit)
	case *arrow.TimestampType:
		return pickInts[arrow.Timestamp](p, enc, 8, signBit)
	case *arrow.Uint8Type:
		return pickInts[uint8](p, enc, 1, 0)
	case *arrow.Uint16Type:
		return pickInts[uint16](p, enc, 2, 0)
	case *arrow.Uint32Type:
		return pickInts[uint32](p, enc, 4, 0)
	case *arrow.Uint64Type:
		return pickInts[uint64](p, enc, 8, 0)
	case *arrow.Float32Type:
		if enc == encPlain {
			return p.plain(4)
		}
	case *arrow.Float64Type:
		if enc == encPlain {
			return p.plain(8)
		}
	case *arrow.Decimal128Type:
		return p.decimal(enc)
	case *arrow.StringType, *arrow.BinaryType:
		return p.stringChunk(enc)
	default:
		r.fail("type %s", p.t)
		return nil
	}
	r.fail("encoding %d for %s", enc, p.t)
	return nil
}

// plain copies the width-byte values at pos.
func (p *picker) plain(width int) arrow.Array {
	src := p.r.bytes("plain values", p.rows*width)
	if p.r.err != nil {
		return nil
	}
	b := p.alloc(len(p.pos) * width)
	dst := b.Bytes()
	for j, i := range p.pos {
		copy(dst[j*width:(j+1)*width], src[int(i)*width:])
	}
	return p.array(b)
}

func pickInts[T intLike](p *picker, enc byte, width int, flip uint64) arrow.Array {
	switch enc {
	case encPlain:
		return p.plain(width)
	case encInts:
		s := p.r.stream(p.rows, true)
		if p.r.err != nil {
			return nil
		}
		b := p.alloc(len(p.pos) * width)
		dst := castBytes[T](b.Bytes(), len(p.pos))
		for j, i := range p.pos {
			dst[j] = T(s.at(int(i)) ^ flip)
		}
		return p.array(b)
	}
	p.r.fail("encoding %d for %s", enc, p.t)
	return nil
}

func (p *picker) decimal(enc byte) arrow.Array {
	r := p.r
	switch enc {
	case encPlain:
		return p.plain(16)
	case encInts:
		bl := r.u64("decimal base")
		bh := r.u64("decimal base")
		s := r.stream(p.rows, true)
		if r.err != nil {
			return nil
		}
		b := p.alloc(len(p.pos) * 16)
		nums := castBytes[uint64](b.Bytes(), 2*len(p.pos))
		for j, i := range p.pos {
			lo, carry := bits.Add64(bl, s.at(int(i)), 0)
			nums[2*j], nums[2*j+1] = lo, bh+carry
		}
		return p.array(b)
	}
	r.fail("encoding %d for %s", enc, p.t)
	return nil
}

// stringChunk picks from a plain or dictionary string chunk: the lengths
// (plain) or the dictionary's lengths are decoded whole, the codes read
// at pos only.
func (p *picker) stringChunk(enc byte) arrow.Array {
	r := p.r
	switch enc {
	case encPlain:
		o := make([]int32, p.rows+1)
		total := lengths(r, o, len(r.b))
		vals := r.bytes("string bytes", total)
		if r.err != nil {
			return nil
		}
		return p.strings(func(i int32) []byte { return vals[o[i]:o[i+1]] })
	case encDict:
		size := r.count("dictionary size", max(p.rows, 1))
		if r.err != nil {
			return nil
		}
		dOffs := make([]int32, size+1)
		total := lengths(r, dOffs, len(r.b))
		dict := r.bytes("dictionary bytes", total)
		var s stream
		if size > 0 {
			s = r.stream(p.rows, true)
		} else if p.rows > 0 {
			r.fail("empty dictionary for %d rows", p.rows)
		}
		if r.err != nil {
			return nil
		}
		codes := make([]int32, len(p.pos))
		for j, i := range p.pos {
			c := int32(s.at(int(i))) // as Decode reads codes: int32s
			if c < 0 || int(c) >= size {
				r.fail("dictionary code %d of %d", c, size)
				return nil
			}
			codes[j] = c
		}
		picked := p.pos
		p.pos = codes // strings reads each picked row's code as its position
		a := p.strings(func(c int32) []byte { return dict[dOffs[c]:dOffs[c+1]] })
		p.pos = picked
		return a
	}
	r.fail("encoding %d for %s", enc, p.t)
	return nil
}

// strings builds the string or binary array of value(i) for i in pos.
// (Picked values come from one chunk of at most 2 GiB of values, but
// repeats can sum past it: that is checked.)
func (p *picker) strings(value func(i int32) []byte) arrow.Array {
	offs := p.alloc(4 * (len(p.pos) + 1))
	o := castBytes[int32](offs.Bytes(), len(p.pos)+1)
	var n int64
	for j, i := range p.pos {
		n += int64(len(value(i)))
		if n > math.MaxInt32 {
			offs.Release()
			if p.valid != nil {
				p.valid.Release()
				p.valid = nil
			}
			p.r.fail("picked values of more than 2 GiB")
			return nil
		}
		o[j+1] = int32(n)
	}
	vals := p.alloc(int(n))
	vb := vals.Bytes()
	for j, i := range p.pos {
		copy(vb[o[j]:o[j+1]], value(i))
	}
	return p.array(offs, vals)
}

// stream is an integer stream read for random access: a packed stream
// in place, a run-length one decoded whole.
type stream struct {
	src   []byte
	base  uint64
	width uint
	mask  uint64
	vals  []uint64 // run-length: every value
}

// stream reads an integer stream of n values (run-length only when runs)
// and moves past it.
func (r *reader) stream(n int, runs bool) stream {
	if len(r.b) > 0 && r.b[0] == intsPacked {
		r.u8("integer stream kind")
		s := stream{base: r.u64("base"), width: uint(r.u8("width"))}
		if r.err != nil {
			return stream{}
		}
		if s.width > 64 {
			r.fail("bit width %d", s.width)
			return stream{}
		}
		s.src = r.bytes("packed values", packedLen(n, s.width))
		s.mask = uint64(1)<<s.width - 1
		if s.width == 64 {
			s.mask = ^uint64(0)
		}
		return s
	}
	// Run-length (or damaged: ints reports it).
	vals := make([]uint64, n)
	ints(r, vals, runs, 0)
	return stream{vals: vals}
}

// at is value i (below the stream's n) before any flip.
func (s *stream) at(i int) uint64 {
	if s.vals != nil {
		return s.vals[i]
	}
	if s.width == 0 {
		return s.base
	}
	bit := uint64(i) * uint64(s.width)
	if s.width <= 56 && bit>>3+8 <= uint64(len(s.src)) {
		w := binary.LittleEndian.Uint64(s.src[bit>>3:])
		return s.base + (w>>(bit&7))&s.mask
	}
	return s.base + slowBits(s.src, bit, s.width)
}
