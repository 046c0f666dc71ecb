package physexpr

import (
	"context"
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A fused decimal expression: a tree of numeric + - * whose leaves fit
// int64 (TPC-H Q1's l_extendedprice * (1 - l_discount) * (1 + l_tax)) is
// evaluated at its root, node by node over int64 vectors, and only the
// root's values are written out as decimal128. Unfused, every inner node
// allocates (and the Go allocator zeroes) a decimal128 column and checks
// its operands again.
//
//	leaves (columns, literals, any other expression)
//	   │ values that fit int64 (else: the batch falls back)
//	   ▼
//	ops, children first: x*kx ± y*ky, or x*y, in int64 with overflow
//	   │ flags ORed per node; a node of at most 18 digits also checks
//	   │ its precision (a wider one holds every int64)
//	   ▼
//	root ──▶ one decimal128 column, validity = AND of the leaves'
//
// A batch where any flag is raised (a value past int64 anywhere, a node
// past its precision: extreme or bad data, or garbage under a NULL) is
// evaluated again unfused, which has the exact answer or error for every
// row. The fused answer needs no check of its own: each node's value is
// the exact integer the unfused kernel computes (exactRow's, lanes
// included), and its precision check is the one exactRow makes.

// fusedDecimal is the program of one tree, its nodes children first.
type fusedDecimal struct {
	leaves []Bound
	nodes  []fusedNode
}

// fusedNode is a leaf (leaf >= 0, an index into leaves) or an operation
// on two earlier nodes.
type fusedNode struct {
	leaf   int
	op     Op
	x, y   int   // operand nodes
	kx, ky int64 // + -: the scale factors, ky negated for -
	max    int64 // the largest value of the node's precision when at most 18 digits; 0 for none
}

// fuseDecimal is e's program when e is a tree of at least two fusable
// operations, else nil.
func fuseDecimal(e boundDecimalArith) *fusedDecimal {
	f := &fusedDecimal{}
	if _, ok := f.add(e); !ok || len(f.nodes)-len(f.leaves) < 2 {
		return nil
	}
	return f
}

// fusableOp reports whether e's operation runs in the fused program: +
// - * in a lane short of laneExact, with scale factors that fit int64.
func fusableOp(e boundDecimalArith) bool {
	if e.lane == laneExact || e.src.Op != OpAdd && e.src.Op != OpSub && e.src.Op != OpMul {
		return false
	}
	small := func(k decimal128.Num) bool { return k.HighBits() == 0 && k.LowBits() <= 1e18 }
	return small(e.kx) && small(e.ky)
}

// add appends b's nodes and returns the index of b's own; ok is false
// when a leaf is wider than 18 digits (its values would not fit int64).
func (f *fusedDecimal) add(b Bound) (int, bool) {
	if b == nil {
		return 0, false
	}
	if e, ok := b.(boundDecimalArith); ok && fusableOp(e) {
		x, ok := f.add(e.l)
		if !ok {
			return 0, false
		}
		y, ok := f.add(e.r)
		if !ok {
			return 0, false
		}
		n := fusedNode{leaf: -1, op: e.src.Op, x: x, y: y, kx: int64(e.kx.LowBits()), ky: int64(e.ky.LowBits())}
		if n.op == OpSub {
			n.ky = -n.ky
		}
		if e.typ.Precision <= maxInt64Digits {
			n.max = int64(e.max.LowBits())
		}
		f.nodes = append(f.nodes, n)
		return len(f.nodes) - 1, true
	}
	t, ok := b.Type().(*arrow.Decimal128Type)
	if !ok || t.Precision > maxInt64Digits {
		return 0, false
	}
	f.nodes = append(f.nodes, fusedNode{leaf: len(f.leaves)})
	f.leaves = append(f.leaves, b)
	return len(f.nodes) - 1, true
}

// fusedVec is a node's values over a batch: v, or the one value s for
// every row.
type fusedVec struct {
	v      []int64
	s      int64
	scalar bool
}

// fusedScratch holds the nodes' int64 vectors between batches (a bound
// expression is shared by the partitions' goroutines).
var fusedScratch sync.Pool

// eval is the tree over b; ok is false when the batch must be evaluated
// unfused (an overflow flag, a NULL scalar leaf, or every leaf a scalar).
func (f *fusedDecimal) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, typ *arrow.Decimal128Type) (compute.Datum, bool, error) {
	args, err := evalBound(ctx, mem, b, f.leaves...)
	if err != nil {
		return nil, false, err
	}
	defer releaseDatums(args)
	n := int(b.NumRows())
	ops := make([]decOperand, len(args))
	anyColumn := false
	for i, d := range args {
		if ops[i], err = decOperandOf(d); err != nil {
			return nil, false, err
		}
		if ops[i].null {
			return nil, false, nil
		}
		anyColumn = anyColumn || ops[i].stride == 1
	}
	if !anyColumn {
		return nil, false, nil
	}
	sp, _ := fusedScratch.Get().(*[]int64)
	if sp == nil {
		sp = new([]int64)
	}
	defer fusedScratch.Put(sp)
	if cap(*sp) < n*len(f.nodes) {
		*sp = make([]int64, n*len(f.nodes))
	}
	scratch := (*sp)[:n*len(f.nodes)]
	vals := make([]fusedVec, len(f.nodes))
	var ovf uint64
	for k, nd := range f.nodes {
		z := scratch[k*n : (k+1)*n : (k+1)*n]
		if nd.leaf >= 0 {
			vals[k], ovf = fusedLeaf(&ops[nd.leaf], z, ovf)
		} else {
			vals[k], ovf = fusedOp(nd, vals[nd.x], vals[nd.y], z, ovf)
		}
		if ovf != 0 {
			return nil, false, nil
		}
	}
	root := vals[len(vals)-1].v
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * arrow.Decimal128SizeBytes)
	out := arrow.Decimal128Traits.CastFromBytes(buf.Bytes())[:n]
	for i, z := range root {
		out[i] = decimal128.New(z>>63, uint64(z))
	}
	valid, nulls := fusedValidity(mem, n, ops)
	d := array.NewData(typ, n, []*memory.Buffer{valid, buf}, nil, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	buf.Release()
	a := array.MakeFromData(d)
	d.Release()
	defer a.Release()
	return compute.NewDatum(a), true, nil
}

// fusedLeaf is a leaf's values as int64 (a column's into z); ovf gains a
// set bit for a value that does not fit.
func fusedLeaf(o *decOperand, z []int64, ovf uint64) (fusedVec, uint64) {
	if o.stride == 0 {
		x := o.v[0]
		a := int64(x.LowBits())
		return fusedVec{s: a, scalar: true}, ovf | uint64(x.HighBits()^a>>63)
	}
	for i, x := range o.v[:len(z)] {
		a := int64(x.LowBits())
		z[i] = a
		ovf |= uint64(x.HighBits() ^ a>>63)
	}
	return fusedVec{v: z}, ovf
}

// mul64c is a*b and a flag, non-zero when the product does not fit int64.
func mul64c(a, b int64) (int64, uint64) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	hi -= uint64((a >> 63) & b)
	hi -= uint64((b >> 63) & a)
	return int64(lo), hi ^ uint64(int64(lo)>>63)
}

// add64c is a+b and a flag, non-zero when the sum wraps.
func add64c(a, b int64) (int64, uint64) {
	s := a + b
	return s, uint64((a^s)&(b^s)) >> 63
}

// fusedOp is one operation over its operands' values, into z (or a
// scalar when both operands are); ovf gains a set bit for a row that
// wraps or leaves the node's precision.
func fusedOp(nd fusedNode, x, y fusedVec, z []int64, ovf uint64) (fusedVec, uint64) {
	mul := nd.op == OpMul
	if x.scalar && y.scalar {
		var v int64
		var f uint64
		if mul {
			v, f = mul64c(x.s, y.s)
		} else {
			v, f = scaledSum(x.s, nd.kx, y.s, nd.ky)
		}
		ovf |= f
		if nd.max != 0 && uint64(v+nd.max) > 2*uint64(nd.max) {
			ovf |= 1
		}
		return fusedVec{s: v, scalar: true}, ovf
	}
	switch {
	case mul && !x.scalar && !y.scalar:
		for i, a := range x.v[:len(z)] {
			v, f := mul64c(a, y.v[i])
			z[i] = v
			ovf |= f
		}
	case mul: // a scalar factor: multiplication commutes
		s, v := x.s, y.v
		if !x.scalar {
			s, v = y.s, x.v
		}
		for i, a := range v[:len(z)] {
			p, f := mul64c(a, s)
			z[i] = p
			ovf |= f
		}
	case !x.scalar && !y.scalar:
		for i, a := range x.v[:len(z)] {
			v, f := scaledSum(a, nd.kx, y.v[i], nd.ky)
			z[i] = v
			ovf |= f
		}
	default: // one term is a constant, scaled once
		s, f := mul64c(x.s, nd.kx)
		v, k := y.v, nd.ky
		if !x.scalar {
			s, f = mul64c(y.s, nd.ky)
			v, k = x.v, nd.kx
		}
		ovf |= f
		for i, a := range v[:len(z)] {
			p, f1 := mul64c(a, k)
			q, f2 := add64c(p, s)
			z[i] = q
			ovf |= f1 | f2
		}
	}
	if m := nd.max; m != 0 {
		for _, v := range z {
			if uint64(v+m) > 2*uint64(m) {
				ovf |= 1
			}
		}
	}
	return fusedVec{v: z}, ovf
}

// scaledSum is a*ka + b*kb and its overflow flag.
func scaledSum(a, ka, b, kb int64) (int64, uint64) {
	p, f1 := mul64c(a, ka)
	q, f2 := mul64c(b, kb)
	s, f3 := add64c(p, q)
	return s, f1 | f2 | f3
}

// fusedValidity is the AND of the leaves' validity over n rows: nil when
// no leaf has a NULL (a NULL scalar leaf never gets here), else a bitmap
// and its count of NULLs.
func fusedValidity(mem memory.Allocator, n int, ops []decOperand) (*memory.Buffer, int) {
	var buf *memory.Buffer
	for i := range ops {
		o := &ops[i]
		if o.bitmap == nil {
			continue
		}
		next := memory.NewResizableBuffer(mem)
		next.Resize(int(bitutil.BytesForBits(int64(n))))
		if buf == nil {
			bitutil.CopyBitmap(o.bitmap, o.off, n, next.Bytes(), 0)
		} else {
			bitutil.BitmapAnd(buf.Bytes(), o.bitmap, 0, int64(o.off), next.Bytes(), 0, int64(n))
			buf.Release()
		}
		buf = next
	}
	if buf == nil {
		return nil, 0
	}
	return buf, n - bitutil.CountSetBits(buf.Bytes(), 0, n)
}
