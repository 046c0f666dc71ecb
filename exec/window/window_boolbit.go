package window

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// boolAgg is bool_and (every) or bool_or over every row's frame. PostgreSQL
// evaluates them as moving aggregates (bool_accum with bool_accum_inv: a
// count of the non-NULL values and of the true ones); here both counts are
// differences of prefix totals, O(1) a row. bool_and is true when every
// non-NULL value is true, bool_or when one is; NULL for a frame without
// one.
func (p *partition) boolAgg(or bool, x arrow.Array, f *frameBounds) (arrow.Array, error) {
	bx, ok := x.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("%w: bool_and/bool_or of %s", physexpr.ErrInvalidArgument, x.DataType())
	}
	cnt := p.prefixCounts(x)
	trues := make([]int64, p.n+1)
	for i := range p.n {
		trues[i+1] = trues[i]
		if bx.IsValid(i) && bx.Value(i) {
			trues[i+1]++
		}
	}
	b := array.NewBooleanBuilder(p.mem)
	defer b.Release()
	b.Reserve(p.n)
	var buf [3]span
	for i := range p.n {
		var n, t int64
		for _, sp := range f.spans(i, &buf) {
			n, t = n+cnt[sp.e]-cnt[sp.s], t+trues[sp.e]-trues[sp.s]
		}
		switch {
		case n == 0:
			b.AppendNull()
		case or:
			b.UnsafeAppend(t > 0)
		default:
			b.UnsafeAppend(t == n)
		}
	}
	return b.NewArray(), nil
}

// bitAgg is bit_and or bit_or of a smallint, integer or bigint column over
// every row's frame, in the argument's type. PostgreSQL has no inverse
// for them (int4and is not invertible) and re-ANDs a frame whose start
// moved; a segment tree gives the same bits in O(log n) a row (AND and
// OR are exact and associative). NULLs are the identity (all ones for
// AND, zero for OR) and a frame of NULLs only is NULL.
func (p *partition) bitAgg(or bool, x arrow.Array, typ arrow.DataType, f *frameBounds) (arrow.Array, error) {
	switch x.DataType().ID() {
	case arrow.INT16, arrow.INT32, arrow.INT64:
	default:
		return nil, fmt.Errorf("%w: bit_and/bit_or of %s", physexpr.ErrInvalidArgument, x.DataType())
	}
	id := int64(-1)
	if or {
		id = 0
	}
	leaves := make([]int64, p.n)
	for i := range p.n {
		v, ok := intAt(x, i)
		if !ok {
			v = id
		}
		leaves[i] = v
	}
	tree := newSegTree(leaves, id, func(a, b int64) int64 { return exec.BitCombine(or, a, b) })
	cnt := p.prefixCounts(x)
	vals := make([]int64, p.n)
	set := make([]bool, p.n)
	var buf [3]span
	for i := range p.n {
		sps := f.spans(i, &buf)
		var n int64
		for _, sp := range sps {
			n += cnt[sp.e] - cnt[sp.s]
		}
		if n == 0 {
			continue
		}
		vals[i], set[i] = treeOver(tree, sps), true
	}
	return exec.BuildInts(p.mem, typ, vals, set)
}
