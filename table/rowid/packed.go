package rowid

import (
	"encoding/binary"
	"math"
)

// packed is a little-endian array of w-byte unsigned offsets (w ∈ {1,2,4,8})
// added to base. It is kept in exactly its encoded form so that decoding is
// one copy and encoding is one append.
type packed struct {
	base uint64
	w    uint8
	n    int
	b    []byte // n*w bytes
}

// widthFor is the smallest byte width that holds maxOff.
func widthFor(maxOff uint64) uint8 {
	switch {
	case maxOff <= math.MaxUint8:
		return 1
	case maxOff <= math.MaxUint16:
		return 2
	case maxOff <= math.MaxUint32:
		return 4
	}
	return 8
}

func validWidth(w uint8) bool { return w == 1 || w == 2 || w == 4 || w == 8 }

// newPacked packs vals (each ≥ base) with the smallest width.
func newPacked(base uint64, vals []uint64) packed {
	var maxOff uint64
	for _, v := range vals {
		if v-base > maxOff {
			maxOff = v - base
		}
	}
	w := widthFor(maxOff)
	p := packed{base: base, w: w, n: len(vals), b: make([]byte, len(vals)*int(w))}
	switch w {
	case 1:
		for i, v := range vals {
			p.b[i] = byte(v - base)
		}
	case 2:
		for i, v := range vals {
			binary.LittleEndian.PutUint16(p.b[2*i:], uint16(v-base))
		}
	case 4:
		for i, v := range vals {
			binary.LittleEndian.PutUint32(p.b[4*i:], uint32(v-base))
		}
	default:
		for i, v := range vals {
			binary.LittleEndian.PutUint64(p.b[8*i:], v-base)
		}
	}
	return p
}

// off returns the i-th raw offset (without base).
func (p *packed) off(i int) uint64 {
	switch p.w {
	case 1:
		return uint64(p.b[i])
	case 2:
		return uint64(binary.LittleEndian.Uint16(p.b[2*i:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(p.b[4*i:]))
	}
	return binary.LittleEndian.Uint64(p.b[8*i:])
}

// at returns the i-th value.
func (p *packed) at(i int) uint64 { return p.base + p.off(i) }

// searchOff returns the first index whose offset is ≥ x (offsets ascending).
func (p *packed) searchOff(x uint64) int {
	lo, hi := 0, p.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.off(m) < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// appendValues appends all values to dst.
func (p *packed) appendValues(dst []uint64) []uint64 {
	switch p.w {
	case 1:
		for _, b := range p.b {
			dst = append(dst, p.base+uint64(b))
		}
	case 2:
		for i := 0; i < len(p.b); i += 2 {
			dst = append(dst, p.base+uint64(binary.LittleEndian.Uint16(p.b[i:])))
		}
	case 4:
		for i := 0; i < len(p.b); i += 4 {
			dst = append(dst, p.base+uint64(binary.LittleEndian.Uint32(p.b[i:])))
		}
	default:
		for i := 0; i < len(p.b); i += 8 {
			dst = append(dst, p.base+binary.LittleEndian.Uint64(p.b[i:]))
		}
	}
	return dst
}
