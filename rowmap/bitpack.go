package rowmap

import "encoding/binary"

// bitPacker appends values of a fixed width LSB-first into little-endian
// 64-bit words, the layout unpack, packedAt and translateBlock read.
type bitPacker struct {
	dst []byte
	acc uint64
	nb  uint // bits pending in acc
	w   uint // value width, 1..32
}

// put appends v, which must fit in w bits.
func (p *bitPacker) put(v uint64) {
	p.acc |= v << p.nb
	p.nb += p.w
	if p.nb >= 64 {
		p.dst = binary.LittleEndian.AppendUint64(p.dst, p.acc)
		p.nb -= 64
		p.acc = 0
		if p.nb > 0 {
			p.acc = v >> (p.w - p.nb)
		}
	}
}

// finish flushes a partial last word and returns the buffer.
func (p *bitPacker) finish() []byte {
	if p.nb > 0 {
		p.dst = binary.LittleEndian.AppendUint64(p.dst, p.acc)
		p.nb, p.acc = 0, 0
	}
	return p.dst
}
