package exec

import (
	"math/bits"

	"github.com/stablerow/stablerow/exec/physexpr"
)

// denseindex.go is the join's key index for a one-word key whose build
// values lie in a narrow range (a partkey, an orderkey, a date): no hash
// at all, but a bitmap over the range, one bit per value, and a rank per
// bitmap word, which number the distinct build values 0..d-1 in value
// order (a minimal perfect hash):
//
//	o = v - min                               (modular: v < min wraps past span)
//	o < span and bit o set ─▶ id = rank[o/64] + popcount(bits[o/64] below bit o)
//	                          head[id] is the value's first build row
//	otherwise              ─▶ no build row
//
// A probe row costs one load of the bitmap, cached when the range is small
// (Q17's 200K partkeys are 25 KB, L1), and for a hit a second of rank and
// head; a row that misses stops at its bit, so a selective join costs
// about what a scan of its keys does. The hash table's probe hashes every
// row and loads its slot and the stored key. The answer is the same: the
// bit is set exactly for the build rows' values, and words compare as the
// hash table compares them (kindWord: integers, dates, canonical floats).

// Dense thresholds: the range may span denseBitsPerRow bits per build row
// (at 256, 32 bytes a row of bitmap that a missing probe row touches, about
// the hash table's 16 to 32 bytes of slots, plus 16 of ranks that only a
// hit reads; BenchmarkJoinProbe's 64K orderkeys of 6M, 94 bits a row,
// probe in 9.5 ns a row densely, 33 hashed), and at least DenseMinSpan
// bits whatever the rows (a tiny build over a wide key column: 192 KiB at
// most, still cache-sized).
const denseBitsPerRow = 256

// denseJoinIndex turns the dense index on; tests turn it off to check the
// hash table's probe against it.
var denseJoinIndex = true

// denseIndex maps a one-word key to its first build row.
type denseIndex struct {
	min, span uint64   // the values min..min+span-1 are covered
	bits      []uint64 // bit o: some build row holds min+o
	rank      []uint32 // set bits in bits[:w]
	head      []int32  // first build row of the id-th value
}

// newDenseIndex indexes key column c (n build rows) if its non-NULL values
// span a narrow enough range, chaining the rows of a value through next in
// build order (next[r] = -1 ends); nil if not (or no row is non-NULL).
func newDenseIndex(c *keyCol, n int, next []int32) *denseIndex {
	// The range is taken over the words as signed integers (so -2..2 is
	// narrow); any interval works, as probe's test is modular.
	lo, hi, rows := signedRange(c.w[:n], c.isNull)
	if rows == 0 {
		return nil
	}
	limit := max(uint64(physexpr.DenseMinSpan), denseBitsPerRow*uint64(rows))
	if uint64(hi)-uint64(lo) >= limit { // span > limit, without overflowing at 2^64
		return nil
	}
	d := &denseIndex{min: uint64(lo), span: uint64(hi) - uint64(lo) + 1}
	words := (d.span + 63) / 64
	d.bits = make([]uint64, words)
	for r, v := range c.w[:n] {
		if !c.isNull(r) {
			o := v - d.min
			d.bits[o/64] |= 1 << (o % 64)
		}
	}
	d.rank = make([]uint32, words)
	var ids uint32
	for w, b := range d.bits {
		d.rank[w] = ids
		ids += uint32(bits.OnesCount64(b))
	}
	d.head = make([]int32, ids)
	tail := make([]int32, ids)
	for i := range d.head {
		d.head[i] = -1
	}
	for r, v := range c.w[:n] {
		next[r] = -1
		if c.isNull(r) {
			continue
		}
		id := d.id(v - d.min)
		if d.head[id] < 0 {
			d.head[id] = int32(r)
		} else {
			next[tail[id]] = int32(r) // append keeps build order within a key
		}
		tail[id] = int32(r)
	}
	return d
}

// id is the number of the value at offset o (o < span, its bit set).
func (d *denseIndex) id(o uint64) uint32 {
	w := d.bits[o/64]
	return d.rank[o/64] + uint32(bits.OnesCount64(w&(1<<(o%64)-1)))
}

// probe sets heads[r] to the first build row holding v[r], -1 for none
// (a NULL probe row's word is whatever the column holds: the caller
// clears those).
func (d *denseIndex) probe(v []uint64, heads []int32) {
	heads = heads[:len(v)]
	min, span, bm := d.min, d.span, d.bits
	for r, x := range v {
		h := int32(-1)
		if o := x - min; o < span {
			if w := bm[o/64]; w&(1<<(o%64)) != 0 {
				h = d.head[d.rank[o/64]+uint32(bits.OnesCount64(w&(1<<(o%64)-1)))]
			}
		}
		heads[r] = h
	}
}

// bytes is the index's memory.
func (d *denseIndex) bytes() int64 {
	return int64(8*cap(d.bits) + 4*cap(d.rank) + 4*cap(d.head))
}

// signedRange is the least and greatest of words as signed integers, over
// the rows null does not exclude, and how many rows that is (lo and hi
// are 0 when none): the build range both the dense index and the key
// packing are sized by.
func signedRange(words []uint64, null func(int) bool) (lo, hi int64, rows int) {
	for r, w := range words {
		if null(r) {
			continue
		}
		v := int64(w)
		if rows == 0 || v < lo {
			lo = v
		}
		if rows == 0 || v > hi {
			hi = v
		}
		rows++
	}
	return lo, hi, rows
}
