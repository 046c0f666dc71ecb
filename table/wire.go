package table

import (
	"encoding/binary"
	"math"
)

// encoder appends little-endian varint-framed values; decoder reads them
// back with a sticky error and a bounds check on every read, so a corrupt
// manifest yields ErrCorrupt rather than a panic or a huge allocation.
type encoder struct{ b []byte }

func (e *encoder) uv(x uint64)    { e.b = binary.AppendUvarint(e.b, x) }
func (e *encoder) i64(x int64)    { e.b = binary.LittleEndian.AppendUint64(e.b, uint64(x)) }
func (e *encoder) u32(x uint32)   { e.b = binary.LittleEndian.AppendUint32(e.b, x) }
func (e *encoder) bytes(p []byte) { e.uv(uint64(len(p))); e.b = append(e.b, p...) }
func (e *encoder) str(s string)   { e.uv(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = errorf(ErrCorrupt, "manifest: truncated or bad %s", what)
	}
}

func (d *decoder) uv(what string) uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return x
}

// count reads a length that must fit in what is left, each item taking at
// least minItem bytes; it bounds allocations by the input size.
func (d *decoder) count(what string, minItem int) int {
	n := d.uv(what)
	if d.err != nil {
		return 0
	}
	if minItem < 1 {
		minItem = 1
	}
	if n > uint64(len(d.b)/minItem) {
		d.fail(what)
		return 0
	}
	return int(n)
}

func (d *decoder) u32(what string) uint32 {
	x := d.uv(what)
	if x > math.MaxUint32 {
		d.fail(what)
		return 0
	}
	return uint32(x)
}

func (d *decoder) i64(what string) int64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.fail(what)
		return 0
	}
	x := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return int64(x)
}

// fixed reads exactly n bytes (nil after an error).
func (d *decoder) fixed(what string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.b) < n {
		d.fail(what)
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

// u32le reads a fixed little-endian uint32 (checksums, which varints
// would not shorten).
func (d *decoder) u32le(what string) uint32 {
	p := d.fixed(what, 4)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

func (d *decoder) bytes(what string) []byte {
	n := d.uv(what)
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail(what)
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) str(what string) string { return string(d.bytes(what)) }

func (d *decoder) bool(what string) bool {
	if d.err != nil {
		return false
	}
	if len(d.b) < 1 || d.b[0] > 1 {
		d.fail(what)
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}
