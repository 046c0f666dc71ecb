package rowid

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/bits"
)

// Encoded layout of a Sequence (integers little-endian; uv = uvarint):
//
//	+--------+---------+--------+------------------+---------+
//	| "SRRS" | version | uv     | segment ...      | crc32c  |
//	| 4 B    | u8 = 1  | nsegs  | (nsegs of them)  | u32     |
//	+--------+---------+--------+------------------+---------+
//
// crc32c (Castagnoli) covers every byte before it. Each segment starts with
// its Kind byte:
//
//	Range            kind | uv lo | uv n
//	RangeWithHoles   kind | uv lo | uv span1 | uv nholes | w | nholes×w hole offsets from lo
//	RangeWithBitmap  kind | uv lo | uv span1 | span1/8+1 bytes, bit i (LSB first) = lo+i present
//	SortedArray      kind | uv lo | uv n | w | n×w offsets from lo, strictly ascending
//	Array            kind | uv min | uv n | w | n×w offsets from min
//
// span1 = hi-lo and w ∈ {1,2,4,8}. Canonical constraints (checked on
// decode): lo and hi are present ids, holes lie strictly inside, bitmap
// padding bits are zero, a SortedArray starts at offset 0 and an Array's
// smallest offset is 0. A pure-Range fragment of 10K ids costs 16 bytes.
const (
	seqMagic   = "SRRS"
	seqVersion = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (g *segment) encodedSize() int {
	switch g.kind {
	case KindRange:
		return rangeSize(g.lo, g.n)
	case KindRangeWithHoles:
		return 2 + uvLen(g.lo) + uvLen(g.span()) + uvLen(uint64(g.arr.n)) + len(g.arr.b)
	case KindRangeWithBitmap:
		return bitmapSize(g.lo, g.span())
	default:
		return 2 + uvLen(g.lo) + uvLen(g.n) + len(g.arr.b)
	}
}

// EncodedSize is len(MarshalBinary()), computed without encoding.
func (s *Sequence) EncodedSize() int {
	size := 4 + 1 + uvLen(uint64(len(s.segsOrNil()))) + 4
	for _, g := range s.segsOrNil() {
		size += g.encodedSize()
	}
	return size
}

func (s *Sequence) segsOrNil() []*segment {
	if s == nil {
		return nil
	}
	return s.segs
}

// MarshalBinary encodes the sequence (nil-safe).
func (s *Sequence) MarshalBinary() ([]byte, error) {
	out := make([]byte, 0, s.EncodedSize())
	out = append(out, seqMagic...)
	out = append(out, seqVersion)
	out = binary.AppendUvarint(out, uint64(len(s.segsOrNil())))
	for _, g := range s.segsOrNil() {
		out = append(out, byte(g.kind))
		out = binary.AppendUvarint(out, g.lo)
		switch g.kind {
		case KindRange:
			out = binary.AppendUvarint(out, g.n)
		case KindRangeWithHoles:
			out = binary.AppendUvarint(out, g.span())
			out = binary.AppendUvarint(out, uint64(g.arr.n))
			out = append(out, g.arr.w)
			out = append(out, g.arr.b...)
		case KindRangeWithBitmap:
			out = binary.AppendUvarint(out, g.span())
			nb := int(g.span()/8 + 1)
			for i := 0; i < nb; i++ {
				out = append(out, byte(g.words[i/8]>>(8*(i%8))))
			}
		default:
			out = binary.AppendUvarint(out, g.n)
			out = append(out, g.arr.w)
			out = append(out, g.arr.b...)
		}
	}
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli)), nil
}

// reader is a bounds-checked cursor over an encoded sequence.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = errorf(ErrCorrupt, format, args...)
	}
}

func (r *reader) uv(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("bad varint for %s", what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte1(what string) byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 1 {
		r.fail("truncated %s", what)
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// bytesN takes n bytes, copying so the sequence never aliases the input.
func (r *reader) bytesN(n uint64, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.fail("truncated %s: need %d bytes, have %d", what, n, len(r.b))
		return nil
	}
	out := make([]byte, n)
	copy(out, r.b)
	r.b = r.b[n:]
	return out
}

// packedN reads width + count×width offsets.
func (r *reader) packedN(base, count uint64, what string) packed {
	w := r.byte1(what + " width")
	if r.err != nil {
		return packed{}
	}
	if !validWidth(w) {
		r.fail("%s width %d", what, w)
		return packed{}
	}
	if count > uint64(len(r.b))/uint64(w) {
		r.fail("truncated %s: %d×%d bytes", what, count, w)
		return packed{}
	}
	return packed{base: base, w: w, n: int(count), b: r.bytesN(count*uint64(w), what)}
}

// UnmarshalSequence decodes b. Every defect gives an error wrapping
// ErrCorrupt; allocation is bounded by a small multiple of len(b).
func UnmarshalSequence(b []byte) (*Sequence, error) {
	if len(b) < 4+1+1+4 {
		return nil, errorf(ErrCorrupt, "%d bytes is shorter than the header", len(b))
	}
	if string(b[:4]) != seqMagic {
		return nil, errorf(ErrCorrupt, "bad magic")
	}
	if b[4] != seqVersion {
		return nil, errorf(ErrCorrupt, "unsupported version %d", b[4])
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, errorf(ErrCorrupt, "checksum mismatch")
	}
	r := &reader{b: body[5:]}
	nseg := r.uv("segment count")
	if r.err != nil {
		return nil, r.err
	}
	if nseg > uint64(len(r.b))/3 { // every segment takes ≥ 3 bytes
		return nil, errorf(ErrCorrupt, "%d segments cannot fit in %d bytes", nseg, len(r.b))
	}
	segs := make([]*segment, 0, nseg)
	var sum uint64
	for k := uint64(0); k < nseg && r.err == nil; k++ {
		g := decodeSegment(r)
		if r.err != nil {
			break
		}
		if g.n > math.MaxUint64-sum {
			r.fail("id count overflows")
			break
		}
		sum += g.n
		segs = append(segs, g)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, errorf(ErrCorrupt, "%d trailing bytes", len(r.b))
	}
	s := &Sequence{segs: segs, starts: make([]uint64, len(segs)), n: sum, disjoint: true}
	var at uint64
	for k, g := range segs {
		s.starts[k] = at
		at += g.n
		if k > 0 && g.lo <= segs[k-1].hi {
			s.disjoint = false
		}
	}
	return s, nil
}

func decodeSegment(r *reader) *segment {
	kind := Kind(r.byte1("segment kind"))
	lo := r.uv("segment lo")
	if r.err != nil {
		return nil
	}
	g := &segment{kind: kind, lo: lo}
	switch kind {
	case KindRange:
		n := r.uv("range length")
		if r.err == nil && (n == 0 || n-1 > math.MaxUint64-lo) {
			r.fail("range [%d,+%d) invalid", lo, n)
		}
		g.n, g.hi = n, lo+n-1
	case KindRangeWithHoles:
		span1 := r.uv("holes span")
		h := r.uv("hole count")
		if r.err == nil && (span1 < 2 || span1 > math.MaxUint64-lo || h == 0 || h > span1-1) {
			r.fail("holes segment span %d with %d holes invalid", span1, h)
		}
		g.arr = r.packedN(lo, h, "holes")
		if r.err != nil {
			return nil
		}
		for j := 0; j < g.arr.n; j++ {
			o := g.arr.off(j)
			if o == 0 || o >= span1 || (j > 0 && o <= g.arr.off(j-1)) {
				r.fail("hole %d at offset %d invalid", j, o)
				return nil
			}
		}
		g.hi, g.n = lo+span1, span1+1-h
	case KindRangeWithBitmap:
		span1 := r.uv("bitmap span")
		if r.err == nil && (span1 > math.MaxUint64-lo || span1/8 >= uint64(len(r.b))) {
			r.fail("bitmap span %d invalid for %d remaining bytes", span1, len(r.b))
		}
		raw := r.bytesN(span1/8+1, "bitmap")
		if r.err != nil {
			return nil
		}
		g.words = make([]uint64, span1/64+1)
		for i, c := range raw {
			g.words[i/8] |= uint64(c) << (8 * (i % 8))
		}
		last := g.words[len(g.words)-1]
		if g.words[0]&1 == 0 || last&(1<<(span1%64)) == 0 || (span1%64 != 63 && last>>(span1%64+1) != 0) {
			r.fail("bitmap endpoints or padding invalid")
			return nil
		}
		for _, w := range g.words {
			g.n += uint64(bits.OnesCount64(w))
		}
		g.hi = lo + span1
		g.ranks = buildRanks(g.words)
	case KindSortedArray, KindArray:
		n := r.uv("array length")
		if r.err == nil && (n == 0 || (kind == KindArray && n > maxArrayLen)) {
			r.fail("array length %d invalid", n)
		}
		g.arr = r.packedN(lo, n, "array")
		if r.err != nil {
			return nil
		}
		g.n = n
		var mn, mx uint64 = math.MaxUint64, 0
		for j := 0; j < g.arr.n; j++ {
			o := g.arr.off(j)
			if kind == KindSortedArray && j > 0 && o <= g.arr.off(j-1) {
				r.fail("sorted array not strictly ascending at %d", j)
				return nil
			}
			mn, mx = min(mn, o), max(mx, o)
		}
		if mn != 0 || mx > math.MaxUint64-lo {
			r.fail("array offsets [%d,%d] invalid for base %d", mn, mx, lo)
			return nil
		}
		g.hi = lo + mx
	default:
		r.fail("unknown segment kind %d", kind)
		return nil
	}
	if r.err != nil {
		return nil
	}
	return g
}
