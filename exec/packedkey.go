package exec

import "math/bits"

// packedkey.go packs a join key of several word columns (integers, dates:
// (ps_partkey, ps_suppkey), (c_custkey, c_nationkey)) into one word when
// the build side's values of each column span few enough bits together:
//
//	column i: o_i = v_i - min_i, 0 ≤ o_i ≤ span_i, in bits.Len64(span_i) bits
//	packed   = o_0 | o_1 << width_0 | o_2 << (width_0 + width_1) | ...
//
// Two keys in range are equal exactly when their packed words are (the
// fields do not overlap), so the join indexes and probes the packed word
// as a one-word key: densely when its range is narrow (denseindex.go),
// else through the hash table's one-word probe, one hash and one compare
// instead of a fold and a compare per column. A probe row with a column
// outside the build's range matches no build row: it is marked like a
// NULL key, which the probe clears.

// keyPacking is the build side's per-column ranges and bit offsets.
type keyPacking struct {
	min, span []uint64 // per column: the least value, max - min (as signed integers)
	shift     []uint   // per column: its field's offset
}

// newKeyPacking returns the packing of k's rows [0, n) (rows with a NULL
// key column left out), nil if k is not two or more word columns, has no
// row without a NULL, or needs more than 64 bits.
func newKeyPacking(k *keyCols, n int) *keyPacking {
	if len(k.cols) < 2 {
		return nil
	}
	for i := range k.cols {
		if k.cols[i].kind != kindWord {
			return nil
		}
	}
	p := &keyPacking{min: make([]uint64, len(k.cols)), span: make([]uint64, len(k.cols)), shift: make([]uint, len(k.cols))}
	var width uint
	for ci := range k.cols {
		lo, hi, rows := signedRange(k.cols[ci].w[:n], k.rowNull)
		if rows == 0 {
			return nil
		}
		p.min[ci], p.span[ci], p.shift[ci] = uint64(lo), uint64(hi)-uint64(lo), width
		width += uint(bits.Len64(p.span[ci]))
		if width > 64 {
			return nil
		}
	}
	return p
}

// pack sets out to the packed view of k's rows [0, rows): one word column
// whose NULL rows are k's rows with a NULL or a value outside the build's
// range (out's scratch is reused).
func (p *keyPacking) pack(k *keyCols, rows int, out *keyCols) {
	if cap(out.cols) < 1 {
		out.cols = make([]keyCol, 1)
	}
	out.cols = out.cols[:1]
	c := &out.cols[0]
	c.kind = kindWord
	c.w = growWords(c.w, rows)
	c.nbuf = growBools(c.nbuf, rows)
	clear(c.w)
	clear(c.nbuf)
	w, null := c.w, c.nbuf
	for ci := range k.cols {
		kc := &k.cols[ci]
		lo, span, shift := p.min[ci], p.span[ci], p.shift[ci]
		for r, v := range kc.w[:rows] {
			o := v - lo
			if o > span { // below lo wraps past span too
				null[r] = true
			}
			w[r] |= o << shift
		}
		if kc.null != nil {
			for r, isNull := range kc.null[:rows] {
				null[r] = null[r] || isNull
			}
		}
	}
	c.null, out.anyNull = nil, false
	for _, isNull := range null {
		if isNull {
			c.null, out.anyNull = null, true
			break
		}
	}
}
