package encoding

import (
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pierrec/lz4/v4"
)

// String bytes too distinct for a dictionary (comments, addresses) are
// most of a table's bytes; an LZ4 block of a chunk's bytes halves them
// or better, and LZ4 decodes at GB/s, so a scan of such a column stays
// cheap. Small chunks and gains are not worth a decode step.
const (
	minCompress  = 256 // bytes of values below which plain is kept
	compressGain = 85  // compress only to under this percentage
)

// maxRatio bounds what an LZ4 block expands to (a match token of one
// byte copies at most 255 more), so a damaged raw length cannot make the
// decoder allocate far more than the chunk.
const maxRatio = 256

var compressors = sync.Pool{New: func() any { return new(lz4.Compressor) }}

// compressBlock is the LZ4 block of b.
func compressBlock(b []byte) ([]byte, error) {
	c := compressors.Get().(*lz4.Compressor)
	defer compressors.Put(c)
	z := make([]byte, lz4.CompressBlockBound(len(b)))
	n, err := c.CompressBlock(b, z)
	if err != nil || n == 0 { // 0: incompressible
		return nil, lz4.ErrInvalidSourceShortBuffer
	}
	return z[:n], nil
}

// compressed decodes an encLZ4 string chunk: ints(rows lengths) | uv raw
// length | LZ4 block, the rest of the chunk. The raw length bounds the
// output and the lengths must sum to it exactly.
func (d *decoder) compressed() arrow.Array {
	r := d.r
	offs := d.alloc(4 * (d.rows + 1))
	o := castBytes[int32](offs.Bytes(), d.rows+1)
	total := lengths(r, o, math.MaxInt32)
	raw := r.uv("raw length")
	if r.err == nil && raw != uint64(total) {
		r.fail("lengths sum to %d, the block holds %d", total, raw)
	}
	block := r.bytes("lz4 block", len(r.b))
	if r.err == nil && raw > uint64(len(block))*maxRatio {
		r.fail("lz4 block of %d bytes cannot hold %d", len(block), raw)
	}
	if r.err != nil {
		offs.Release()
		return nil
	}
	vals := d.alloc(total)
	if n, err := lz4.UncompressBlock(block, vals.Bytes()); err != nil || n != total {
		offs.Release()
		vals.Release()
		r.fail("lz4 block of %d bytes does not hold %d", len(block), total)
		return nil
	}
	return d.array(offs, vals)
}
