package encoding

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// maxDict bounds a dictionary's entries: past it the codes are nearly as
// wide as the row count and the dictionary as large as the values.
const maxDict = 1 << 16

// encodeStrings writes a string or binary column plain (lengths, bytes)
// or as a dictionary (distinct values once, then a code per row),
// whichever is smaller. Null slots are empty, code 0.
func encodeStrings(body func(byte) []byte, a arrow.Array, n int, offsets func() []int32, values func() []byte) []byte {
	var offs []int32
	var bytes []byte
	if n > 0 {
		offs, bytes = offsets(), values()
	}
	base := int32(0)
	if n > 0 {
		base = offs[0]
	}
	val := func(i int) []byte { return bytes[offs[i]-base : offs[i+1]-base] }
	lens := make([]uint64, n)
	for i := range lens {
		lens[i] = uint64(offs[i+1] - offs[i])
	}
	plainLens := appendInts(nil, lens, true)
	plainSize := len(plainLens) + len(bytes)

	// Dictionary: give up once it holds more than maxDict values or half
	// the rows (it cannot win by much then, and costs a map per chunk).
	dict := map[string]uint64{}
	codes := make([]uint64, n)
	var dictLens []uint64
	var dictBytes []byte
	ok := true
	for i := range n {
		if a.IsNull(i) {
			continue
		}
		v := val(i)
		c, seen := dict[string(v)]
		if !seen {
			if len(dict) >= maxDict || len(dict) > n/2 {
				ok = false
				break
			}
			c = uint64(len(dict))
			dict[string(v)] = c
			dictLens = append(dictLens, uint64(len(v)))
			dictBytes = append(dictBytes, v...)
		}
		codes[i] = c
	}
	if ok && len(dict) > 0 {
		var d []byte
		d = binary.AppendUvarint(d, uint64(len(dict)))
		d = appendInts(d, dictLens, true)
		d = append(d, dictBytes...)
		d = appendInts(d, codes, true)
		if len(d) < plainSize {
			return append(body(encDict), d...)
		}
	}
	if len(bytes) >= minCompress {
		// lz4's bound is a little over the input: room for the block.
		if z, err := compressBlock(bytes); err == nil && len(z) < len(bytes)*compressGain/100 {
			dst := body(encLZ4)
			dst = append(dst, plainLens...)
			dst = binary.AppendUvarint(dst, uint64(len(bytes)))
			return append(dst, z...)
		}
	}
	dst := body(encPlain)
	dst = append(dst, plainLens...)
	return append(dst, bytes...)
}

// strings decodes a string or binary chunk: plain shares the chunk's
// value bytes, dict copies each row's value out of the dictionary.
func (d *decoder) strings(enc byte) arrow.Array {
	r := d.r
	switch enc {
	case encPlain:
		offs := d.alloc(4 * (d.rows + 1))
		o := castBytes[int32](offs.Bytes(), d.rows+1)
		total := lengths(r, o, len(r.b))
		vals := r.bytes("string bytes", total)
		if r.err != nil {
			offs.Release()
			return nil
		}
		return d.array(offs, memory.NewBufferBytes(vals))
	case encDict:
		size := r.count("dictionary size", max(d.rows, 1))
		if r.err != nil {
			return nil
		}
		dOffs := make([]int32, size+1)
		total := lengths(r, dOffs, len(r.b))
		dict := r.bytes("dictionary bytes", total)
		// The codes are read into the offsets buffer (o[i+1] holds row
		// i's code until copyValues turns it into the row's end offset):
		// no buffer of their own, one pass fewer.
		offs := d.alloc(4 * (d.rows + 1))
		o := castBytes[int32](offs.Bytes(), d.rows+1)
		o[0] = 0
		var n int64
		if size > 0 {
			ints(r, o[1:], true, 0)
			// Check every code below size and sum the value lengths
			// (read only: the codes stay for copyValues).
			for _, c := range o[1:] {
				if r.err != nil {
					break
				}
				if uint32(c) >= uint32(size) {
					r.fail("dictionary code %d of %d", c, size)
					break
				}
				if n += int64(dOffs[c+1] - dOffs[c]); n > math.MaxInt32 {
					r.fail("dictionary values of more than 2 GiB")
				}
			}
		} else if d.rows > 0 {
			r.fail("empty dictionary for %d rows", d.rows)
		}
		if r.err != nil {
			offs.Release()
			return nil
		}
		vals := d.allocSlack(int(n), 8)
		copyValues(vals.Buf(), o, dict, dOffs)
		return d.array(offs, vals)
	}
	r.fail("encoding %d for %s", enc, d.t)
	return nil
}

// lengths reads an integer stream of len(o)-1 lengths into offsets o
// (o[0] = 0, rising), each and their sum at most limit (the bytes left:
// the values follow). It returns the sum.
func lengths(r *reader, o []int32, limit int) int {
	limit = min(limit, math.MaxInt32)
	o[0] = 0
	ls := o[1:]
	ints(r, ls, true, 0)
	if r.err != nil {
		return 0
	}
	var sum int64
	for i, l := range ls {
		sum += int64(l)
		if l < 0 || sum > int64(limit) {
			r.fail("string lengths past the %d bytes left", limit)
			return 0
		}
		ls[i] = int32(sum)
	}
	return int(sum)
}

// copyValues writes each row's dictionary value: o[i+1] holds row i's
// code (checked below the dictionary's size) on entry and the row's end
// offset on return (o[0] is 0), the value at out[o[i]:o[i+1]]. Dictionary
// values are mostly short (flags, modes, brands), where a copy call per
// row cost more than the rest of the decode: a value of up to 64 bytes is
// copied as 8-byte words instead, which may write up to 7 bytes past its
// end (out has 8 bytes of slack past the last value; a later row
// overwrites the excess) and read past the value's end in a padded copy
// of the dictionary.
func copyValues(out []byte, o []int32, dict []byte, dOffs []int32) {
	padded := make([]byte, len(dict)+8)
	copy(padded, dict)
	for i := 1; i < len(o); i++ {
		c := o[i]
		from, to := dOffs[c], dOffs[c+1]
		at := o[i-1]
		o[i] = at + (to - from)
		if to-from > 64 {
			copy(out[at:], padded[from:to])
			continue
		}
		for ; from < to; from, at = from+8, at+8 {
			binary.LittleEndian.PutUint64(out[at:], binary.LittleEndian.Uint64(padded[from:]))
		}
	}
}
