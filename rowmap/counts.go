package rowmap

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
)

// BlockSize is the number of source rows per logical block.
const BlockSize = 65536

// MaxDestinations is the largest destination list a map can address.
const MaxDestinations = 65536

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CountsMatrix is the dense num_blocks × m grid of cumulative
// per-destination counts: row b holds the counts after block b. It is
// immutable once built.
type CountsMatrix struct {
	blockSize uint32
	m         uint32
	numBlocks uint32
	totalRows uint64
	data      []uint32 // numBlocks*m, row-major
}

// NewCountsMatrix builds a matrix from raw cumulative data and validates it.
func NewCountsMatrix(m, blockSize uint32, totalRows uint64, data []uint32) (*CountsMatrix, error) {
	if m == 0 && totalRows > 0 {
		// all rows deleted with no destination is allowed; m==0 with data is not
		if len(data) != 0 {
			return nil, fmt.Errorf("%w: data without destinations", ErrInvalidArgument)
		}
	}
	if blockSize == 0 || m > MaxDestinations {
		return nil, fmt.Errorf("%w: block size %d, destinations %d", ErrInvalidArgument, blockSize, m)
	}
	nb := numBlocksFor(totalRows, blockSize)
	if nb > 1<<32-1 || uint64(len(data)) != nb*uint64(m) {
		return nil, fmt.Errorf("%w: counts data has %d cells, want %d×%d", ErrInvalidArgument, len(data), nb, m)
	}
	c := &CountsMatrix{blockSize: blockSize, m: m, numBlocks: uint32(nb), totalRows: totalRows, data: data}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func numBlocksFor(rows uint64, bs uint32) uint64 {
	return (rows + uint64(bs) - 1) / uint64(bs)
}

// NumBlocks returns the number of blocks.
func (c *CountsMatrix) NumBlocks() int { return int(c.numBlocks) }

// NumDestinations returns m.
func (c *CountsMatrix) NumDestinations() int { return int(c.m) }

// BlockSize returns the rows per block.
func (c *CountsMatrix) BlockSize() int { return int(c.blockSize) }

// TotalRows returns the number of source physical rows.
func (c *CountsMatrix) TotalRows() uint64 { return c.totalRows }

// BlockLen returns the number of rows in block b (the last may be short).
func (c *CountsMatrix) BlockLen(b int) int {
	start := uint64(b) * uint64(c.blockSize)
	n := c.totalRows - start
	if n > uint64(c.blockSize) {
		n = uint64(c.blockSize)
	}
	return int(n)
}

// After returns the cumulative counts after block b. The slice must not be
// modified.
func (c *CountsMatrix) After(b int) []uint32 {
	return c.data[b*int(c.m) : (b+1)*int(c.m) : (b+1)*int(c.m)]
}

// Base returns the cumulative counts before block b (nil meaning zeros for
// b == 0). The slice must not be modified.
func (c *CountsMatrix) Base(b int) []uint32 {
	if b == 0 {
		return nil
	}
	return c.After(b - 1)
}

// Totals returns the per-destination totals (a copy).
func (c *CountsMatrix) Totals() []uint32 {
	t := make([]uint32, c.m)
	if c.numBlocks > 0 {
		copy(t, c.After(int(c.numBlocks)-1))
	}
	return t
}

// LiveRows returns the total number of live (non-deleted) rows.
func (c *CountsMatrix) LiveRows() uint64 {
	var s uint64
	for _, v := range c.Totals() {
		s += uint64(v)
	}
	return s
}

// BlockLive returns the number of live rows in block b.
func (c *CountsMatrix) BlockLive(b int) int {
	after := c.After(b)
	base := c.Base(b)
	var s uint64
	for j, v := range after {
		if base != nil {
			v -= base[j]
		}
		s += uint64(v)
	}
	return int(s)
}

// Validate checks that counts never decrease and that no block's deltas sum
// to more than its length.
func (c *CountsMatrix) Validate() error {
	m := int(c.m)
	if m == 0 {
		return nil // no cells: nothing can decrease or exceed a budget
	}
	for b := 0; b < int(c.numBlocks); b++ {
		var sum uint64
		after := c.data[b*m : (b+1)*m]
		for j, v := range after {
			var prev uint32
			if b > 0 {
				prev = c.data[(b-1)*m+j]
			}
			if v < prev {
				return fmt.Errorf("%w: counts decrease at block %d destination %d (%d < %d)", ErrCorrupt, b, j, v, prev)
			}
			sum += uint64(v - prev)
		}
		if sum > uint64(c.BlockLen(b)) {
			return fmt.Errorf("%w: block %d has %d live rows but only %d rows", ErrCorrupt, b, sum, c.BlockLen(b))
		}
	}
	return nil
}

// CountsBuilder accumulates labels row by row into a CountsMatrix.
type CountsBuilder struct {
	m, bs   uint32
	cur     []uint32
	data    []uint32
	inBlock uint32
	rows    uint64
	err     error
}

// NewCountsBuilder starts a matrix over m destinations with the given block
// size (use BlockSize outside tests).
func NewCountsBuilder(m, blockSize int) *CountsBuilder {
	b := &CountsBuilder{m: uint32(m), bs: uint32(blockSize), cur: make([]uint32, max(m, 0))}
	if m < 0 || m > MaxDestinations || blockSize <= 0 {
		b.err = fmt.Errorf("%w: destinations %d, block size %d", ErrInvalidArgument, m, blockSize)
	}
	return b
}

func (b *CountsBuilder) step() {
	b.rows++
	b.inBlock++
	if b.inBlock == b.bs {
		b.data = append(b.data, b.cur...)
		b.inBlock = 0
	}
}

// Add records a live row routed to destination label.
func (b *CountsBuilder) Add(label uint16) {
	if uint32(label) >= b.m {
		if b.err == nil {
			b.err = fmt.Errorf("%w: label %d ≥ %d destinations", ErrInvalidArgument, label, b.m)
		}
		return
	}
	b.cur[label]++
	b.step()
}

// AddNull records a deleted row.
func (b *CountsBuilder) AddNull() { b.step() }

// Finish closes the last (possibly short) block and returns the matrix.
func (b *CountsBuilder) Finish() (*CountsMatrix, error) {
	if b.err != nil {
		return nil, b.err
	}
	data := b.data
	if b.inBlock > 0 {
		data = append(data, b.cur...)
	}
	return &CountsMatrix{blockSize: b.bs, m: b.m, numBlocks: uint32(numBlocksFor(b.rows, b.bs)), totalRows: b.rows, data: data}, nil
}

// Counts codec layout (little endian):
//
//	+0  magic "RMCT"            [4]
//	+4  version (1)             u16
//	+6  representation tag      u16   (1 = dense u32 grid)
//	+8  block size              u32
//	+12 destinations m          u32
//	+16 num blocks              u32
//	+20 total rows              u64
//	+28 cells                   numBlocks*m × u32
//	+.. CRC32C of all the above u32
const (
	countsMagic      = "RMCT"
	countsVersion    = 1
	countsHeaderSize = 28
	// TagDenseU32 is the dense cumulative u32 grid representation.
	TagDenseU32 = 1
	// TagPackedDeltas stores, per block, a u8 bit width w then the m
	// per-block deltas bit-packed LSB first into ceil(m*w/64) u64 words; if
	// w has sparseFlag set, a presence bitmap of ceil(m/64) u64 words comes
	// first and only the nonzero deltas are packed.
	TagPackedDeltas = 2
	sparseFlag      = 0x80
)

func (c *CountsMatrix) delta(b, j int) uint32 {
	v := c.data[b*int(c.m)+j]
	if b > 0 {
		v -= c.data[(b-1)*int(c.m)+j]
	}
	return v
}

// packedWidths returns each block's delta width and the packed payload size.
func (c *CountsMatrix) packedWidths() ([]uint8, int) {
	ws := make([]uint8, c.numBlocks)
	size := 0
	for b := range ws {
		var or uint32
		for j := 0; j < int(c.m); j++ {
			or |= c.delta(b, j)
		}
		ws[b] = uint8(bits.Len32(or))
		dense := 1 + (int(c.m)*int(ws[b])+63)/64*8
		nz := 0
		for j := 0; j < int(c.m); j++ {
			if c.delta(b, j) != 0 {
				nz++
			}
		}
		sparse := 1 + (int(c.m)+63)/64*8 + (nz*int(ws[b])+63)/64*8
		if sparse < dense {
			ws[b] |= sparseFlag
			dense = sparse
		}
		size += dense
	}
	return ws, size
}

// Tag returns the representation AppendBinary chooses: the smaller one.
func (c *CountsMatrix) Tag() uint16 {
	if _, packed := c.packedWidths(); packed < 4*len(c.data) {
		return TagPackedDeltas
	}
	return TagDenseU32
}

// EncodedSize returns the size of MarshalBinary's output.
func (c *CountsMatrix) EncodedSize() int {
	_, packed := c.packedWidths()
	return countsHeaderSize + min(4*len(c.data), packed) + 4
}

// AppendBinary appends the encoding of c to dst.
func (c *CountsMatrix) AppendBinary(dst []byte) []byte {
	start := len(dst)
	dst = append(dst, countsMagic...)
	dst = binary.LittleEndian.AppendUint16(dst, countsVersion)
	ws, _ := c.packedWidths()
	tag := c.Tag()
	dst = binary.LittleEndian.AppendUint16(dst, tag)
	dst = binary.LittleEndian.AppendUint32(dst, c.blockSize)
	dst = binary.LittleEndian.AppendUint32(dst, c.m)
	dst = binary.LittleEndian.AppendUint32(dst, c.numBlocks)
	dst = binary.LittleEndian.AppendUint64(dst, c.totalRows)
	if tag == TagDenseU32 {
		for _, v := range c.data {
			dst = binary.LittleEndian.AppendUint32(dst, v)
		}
	} else {
		for b, wf := range ws {
			dst = append(dst, wf)
			w := wf &^ sparseFlag
			sparse := wf&sparseFlag != 0
			if sparse {
				for j := 0; j < int(c.m); j += 64 {
					var word uint64
					for k := j; k < int(c.m) && k < j+64; k++ {
						if c.delta(b, k) != 0 {
							word |= 1 << (k - j)
						}
					}
					dst = binary.LittleEndian.AppendUint64(dst, word)
				}
			}
			if w > 0 {
				pk := bitPacker{dst: dst, w: uint(w)}
				for j := 0; j < int(c.m); j++ {
					v := uint64(c.delta(b, j))
					if sparse && v == 0 {
						continue
					}
					pk.put(v)
				}
				dst = pk.finish()
			}
		}
	}
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// MarshalBinary encodes c.
func (c *CountsMatrix) MarshalBinary() ([]byte, error) {
	return c.AppendBinary(make([]byte, 0, c.EncodedSize())), nil
}

// DecodeCounts decodes and validates an encoded matrix. Every failure wraps
// ErrCorrupt; an unknown tag also wraps ErrUnknownRepresentation.
func DecodeCounts(buf []byte) (*CountsMatrix, error) {
	if len(buf) < countsHeaderSize+4 {
		return nil, fmt.Errorf("%w: counts buffer truncated (%d bytes)", ErrCorrupt, len(buf))
	}
	if string(buf[:4]) != countsMagic {
		return nil, fmt.Errorf("%w: bad counts magic %q", ErrCorrupt, buf[:4])
	}
	if v := binary.LittleEndian.Uint16(buf[4:]); v != countsVersion {
		return nil, fmt.Errorf("%w: unsupported counts version %d", ErrCorrupt, v)
	}
	tag := binary.LittleEndian.Uint16(buf[6:])
	if tag != TagDenseU32 && tag != TagPackedDeltas {
		return nil, fmt.Errorf("%w: %w: tag %d", ErrCorrupt, ErrUnknownRepresentation, tag)
	}
	bs := binary.LittleEndian.Uint32(buf[8:])
	m := binary.LittleEndian.Uint32(buf[12:])
	nb := binary.LittleEndian.Uint32(buf[16:])
	rows := binary.LittleEndian.Uint64(buf[20:])
	if bs == 0 || m > MaxDestinations {
		return nil, fmt.Errorf("%w: block size %d, destinations %d", ErrCorrupt, bs, m)
	}
	if numBlocksFor(rows, bs) != uint64(nb) {
		return nil, fmt.Errorf("%w: %d blocks for %d rows of block size %d", ErrCorrupt, nb, rows, bs)
	}
	cells := uint64(nb) * uint64(m)
	if tag == TagPackedDeltas {
		return decodePackedCounts(buf, bs, m, nb, rows)
	}
	if cells*4+countsHeaderSize+4 != uint64(len(buf)) {
		return nil, fmt.Errorf("%w: counts buffer is %d bytes, want %d", ErrCorrupt, len(buf), cells*4+countsHeaderSize+4)
	}
	body := buf[:len(buf)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(buf[len(buf)-4:]) {
		return nil, fmt.Errorf("%w: counts checksum mismatch", ErrCorrupt)
	}
	data := make([]uint32, cells)
	for i := range data {
		data[i] = binary.LittleEndian.Uint32(buf[countsHeaderSize+4*i:])
	}
	c := &CountsMatrix{blockSize: bs, m: m, numBlocks: nb, totalRows: rows, data: data}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func decodePackedCounts(buf []byte, bs, m, nb uint32, rows uint64) (*CountsMatrix, error) {
	body := buf[:len(buf)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(buf[len(buf)-4:]) {
		return nil, fmt.Errorf("%w: counts checksum mismatch", ErrCorrupt)
	}
	// Each block costs at least its width byte, so nb is bounded by the size.
	if uint64(nb) > uint64(len(body)) {
		return nil, fmt.Errorf("%w: %d blocks in %d bytes", ErrCorrupt, nb, len(body))
	}
	data := make([]uint32, uint64(nb)*uint64(m))
	p := countsHeaderSize
	for b := 0; b < int(nb); b++ {
		if p >= len(body) {
			return nil, fmt.Errorf("%w: packed counts truncated", ErrCorrupt)
		}
		w := uint(body[p] &^ sparseFlag)
		sparse := body[p]&sparseFlag != 0
		p++
		if w > 32 {
			return nil, fmt.Errorf("%w: delta width %d", ErrCorrupt, w)
		}
		var present []byte
		n := int(m)
		if sparse {
			psz := (int(m) + 63) / 64 * 8
			if p+psz > len(body) {
				return nil, fmt.Errorf("%w: packed counts truncated", ErrCorrupt)
			}
			present = body[p : p+psz]
			p += psz
			n = 0
			for i := 0; i < psz; i += 8 {
				n += bits.OnesCount64(binary.LittleEndian.Uint64(present[i:]))
			}
			if r := m % 64; r != 0 && binary.LittleEndian.Uint64(present[psz-8:])>>r != 0 {
				return nil, fmt.Errorf("%w: presence bits past the destinations", ErrCorrupt)
			}
		}
		sz := (n*int(w) + 63) / 64 * 8
		if p+sz > len(body) {
			return nil, fmt.Errorf("%w: packed counts truncated", ErrCorrupt)
		}
		words := body[p : p+sz]
		p += sz
		mask := uint64(1)<<w - 1
		var bitpos uint
		for j := 0; j < int(m); j++ {
			var v uint64
			if present != nil && present[j>>3]>>(j&7)&1 == 0 {
				// absent: delta 0
			} else if w > 0 {
				wi, off := bitpos>>6, bitpos&63
				v = binary.LittleEndian.Uint64(words[wi*8:]) >> off
				if off+w > 64 {
					v |= binary.LittleEndian.Uint64(words[wi*8+8:]) << (64 - off)
				}
				v &= mask
				bitpos += w
			}
			if v > uint64(bs) {
				return nil, fmt.Errorf("%w: block %d delta %d exceeds block size", ErrCorrupt, b, v)
			}
			prev := uint64(0)
			if b > 0 {
				prev = uint64(data[(b-1)*int(m)+j])
			}
			if prev+v > 1<<32-1 {
				return nil, fmt.Errorf("%w: count overflow", ErrCorrupt)
			}
			data[b*int(m)+j] = uint32(prev + v)
		}
	}
	if p != len(body) {
		return nil, fmt.Errorf("%w: packed counts have trailing bytes", ErrCorrupt)
	}
	c := &CountsMatrix{blockSize: bs, m: m, numBlocks: nb, totalRows: rows, data: data}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}
