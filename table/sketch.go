package table

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Distinct-count sketches: one HyperLogLog (Flajolet, Fusy, Gandouet and
// Meunier, 2007) per column per data file, built as the file is written
// (fragmentWriter: Append, COPY, compaction, recluster and update
// rewrites) and mergeable across files by taking each register's
// maximum, so a table's distinct count per column is the merge of its
// fragments' sketches. The optimizer reads it where PostgreSQL reads
// pg_statistic.stadistinct (eqsel's 1/ndistinct, eqjoinsel's
// 1/max(nd1, nd2)).
//
// Our own rather than a library: the only thing a planner needs is
// add, merge and estimate over 2^12 one-byte registers, and the stored
// form must be ours to version and check. Values are hashed with xxhash
// (already a dependency of the module through arrow-go), which, unlike
// hash/maphash, is the same in every process: a sketch written by one
// process merges with one written by another.
//
// The estimate is Ertl's improved raw estimator ("New cardinality
// estimation algorithms for HyperLogLog sketches", 2017, algorithm 6),
// which needs neither the linear-counting switch nor HLL++'s empirical
// bias tables and is unbiased from 0 to far beyond 2^32 distinct values.
// Its relative standard error is about 1.04/sqrt(2^12) = 1.6 %.
//
// Stored form (each sketch framed and checksummed on its own, so its
// decoder stands alone and is fuzzed alone):
//
//	"SRHL" | u16 format 1 | u8 precision (12) | u8 encoding |
//	  encoding 0 (dense):  2^12 bytes, the registers
//	  encoding 1 (sparse): uv n | n x (uv index delta | u8 value), indices ascending, values non-zero
//	| u32 CRC32C of all before
//
// The writer picks the shorter encoding: a column of few distinct values
// sets few registers.

const (
	sketchMagic  = "SRHL"
	sketchFormat = 1
	// sketchP is the precision: 2^sketchP registers.
	sketchP = 12
	sketchM = 1 << sketchP
	// sketchQ is the bits of the hash left after the register index; a
	// register holds 0 (never set) to sketchQ+1.
	sketchQ      = 64 - sketchP
	sketchHeader = 4 + 2 + 1 + 1
	sketchDense  = 0
	sketchSparse = 1
)

// Sketch is a HyperLogLog of 2^12 registers. The zero value is empty.
type Sketch struct {
	reg [sketchM]uint8
}

// addHash adds a value by its 64-bit hash: the top sketchP bits choose
// the register, which keeps the most leading zeros (plus one) seen in
// the remaining bits.
func (s *Sketch) addHash(h uint64) {
	i := h >> sketchQ
	w := h<<sketchP | 1<<(sketchP-1) // a sentinel bit caps the count at sketchQ+1
	if r := uint8(bits.LeadingZeros64(w) + 1); r > s.reg[i] {
		s.reg[i] = r
	}
}

// addBytes adds the value whose canonical bytes are b.
func (s *Sketch) addBytes(b []byte) { s.addHash(xxhash.Sum64(b)) }

// addString adds the value whose canonical bytes are v.
func (s *Sketch) addString(v string) { s.addHash(xxhash.Sum64String(v)) }

// addUint64 adds an 8-byte value (ints, floats' bits).
func (s *Sketch) addUint64(x uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], x)
	s.addHash(xxhash.Sum64(b[:]))
}

// Merge makes s the sketch of the union of what s and o saw.
func (s *Sketch) Merge(o *Sketch) {
	for i, r := range o.reg {
		if r > s.reg[i] {
			s.reg[i] = r
		}
	}
}

// Estimate is the estimated number of distinct values added (Ertl 2017,
// algorithm 6, over the register histogram).
func (s *Sketch) Estimate() float64 {
	var c [sketchQ + 2]int
	for _, r := range s.reg {
		c[r]++
	}
	const m = float64(sketchM)
	z := m * sketchTau(1-float64(c[sketchQ+1])/m)
	for k := sketchQ; k >= 1; k-- {
		z = 0.5 * (z + float64(c[k]))
	}
	z += m * sketchSigma(float64(c[0])/m)
	return m * m / (2 * math.Ln2 * z)
}

// sketchSigma is Ertl's σ(x) = x + Σ_{k≥1} x^(2^k) 2^(k-1); infinite at
// x = 1 (every register empty: the estimate is then 0).
func sketchSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		z2 := z + x*y
		y += y
		if z2 == z {
			return z
		}
		z = z2
	}
}

// sketchTau is Ertl's τ(x) = (1 - x - Σ_{k≥1} (1 - x^(2^-k))^2 2^-k) / 3.
func sketchTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		y *= 0.5
		z2 := z - (1-x)*(1-x)*y
		if z2 == z {
			return z / 3
		}
		z = z2
	}
}

// MarshalBinary encodes s in the shorter of the dense and the sparse
// encoding.
func (s *Sketch) MarshalBinary() ([]byte, error) { return s.encode(), nil }

func (s *Sketch) encode() []byte {
	set := 0
	for _, r := range s.reg {
		if r != 0 {
			set++
		}
	}
	e := &encoder{}
	e.b = append(e.b, sketchMagic...)
	e.b = binary.LittleEndian.AppendUint16(e.b, sketchFormat)
	// A sparse entry takes 2 to 3 bytes: below a third of the registers
	// set it is the shorter.
	if set*3 < sketchM {
		e.b = append(e.b, sketchP, sketchSparse)
		e.uv(uint64(set))
		prev := -1
		for i, r := range s.reg {
			if r != 0 {
				e.uv(uint64(i - prev))
				e.b = append(e.b, r)
				prev = i
			}
		}
	} else {
		e.b = append(e.b, sketchP, sketchDense)
		e.b = append(e.b, s.reg[:]...)
	}
	return binary.LittleEndian.AppendUint32(e.b, crc32.Checksum(e.b, castagnoli))
}

// DecodeSketch reads a stored sketch, checking everything before it is
// believed: magic, format, precision, encoding, CRC, every register
// value within 0..sketchQ+1, sparse indices ascending and in range, no
// trailing bytes. Damage is ErrCorrupt, never a panic.
func DecodeSketch(b []byte) (*Sketch, error) {
	if len(b) < sketchHeader+4 {
		return nil, errorf(ErrCorrupt, "sketch: %d bytes is too short", len(b))
	}
	if !bytes.Equal(b[:4], []byte(sketchMagic)) {
		return nil, errorf(ErrCorrupt, "sketch: bad magic %q", b[:4])
	}
	if v := binary.LittleEndian.Uint16(b[4:]); v != sketchFormat {
		return nil, errorf(ErrCorrupt, "sketch: unsupported format %d", v)
	}
	if b[6] != sketchP {
		return nil, errorf(ErrCorrupt, "sketch: unsupported precision %d", b[6])
	}
	crcAt := len(b) - 4
	if got, want := crc32.Checksum(b[:crcAt], castagnoli), binary.LittleEndian.Uint32(b[crcAt:]); got != want {
		return nil, errorf(ErrCorrupt, "sketch: checksum mismatch (%08x != %08x)", got, want)
	}
	d := &decoder{b: b[sketchHeader:crcAt]}
	s := &Sketch{}
	switch b[7] {
	case sketchDense:
		regs := d.fixed("sketch registers", sketchM)
		if d.err != nil {
			return nil, d.err
		}
		for i, r := range regs {
			if r > sketchQ+1 {
				return nil, errorf(ErrCorrupt, "sketch: register %d holds %d", i, r)
			}
		}
		copy(s.reg[:], regs)
	case sketchSparse:
		n := d.count("sketch entry count", 2)
		i := -1
		for range n {
			delta := d.uv("sketch index")
			r := d.fixed("sketch register", 1)
			if d.err != nil {
				return nil, d.err
			}
			if delta == 0 || delta > uint64(sketchM-1-i) {
				return nil, errorf(ErrCorrupt, "sketch: register index out of order or range after %d", i)
			}
			i += int(delta)
			if r[0] == 0 || r[0] > sketchQ+1 {
				return nil, errorf(ErrCorrupt, "sketch: register %d holds %d", i, r[0])
			}
			s.reg[i] = r[0]
		}
		if d.err != nil {
			return nil, d.err
		}
	default:
		return nil, errorf(ErrCorrupt, "sketch: unknown encoding %d", b[7])
	}
	if len(d.b) != 0 {
		return nil, errorf(ErrCorrupt, "sketch: %d trailing bytes", len(d.b))
	}
	return s, nil
}
