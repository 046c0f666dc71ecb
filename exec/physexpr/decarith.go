package physexpr

import (
	"fmt"
	"math/big"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stablerow/stablerow/value"
)

// The column kernel of DecimalArith (numeric + - * / %). The output's
// values are written straight into one buffer of n decimal128s and its
// validity is the AND of the operands' bitmaps: no builder, no per-row
// NULL branch. Each batch runs in the lane its operand types allow,
// chosen once at Bind:
//
//	laneSmall    operands and result of at most 18 digits: int64 math,
//	             which cannot wrap and cannot leave the result's precision
//	laneWide     operands of at most 18 digits, result wider (a product
//	             such as price * (1 - discount)): exact 64×64 → 128-bit
//	             products and 128-bit sums, which cannot wrap either
//	laneMulNarrow  * of a wide operand and one of at most 18 digits (Q1's
//	             price * (1 - discount) * (1 + tax)): 128 × 64-bit products
//	             that report wrapping, and a precision check of each result
//	laneChecked  anything else: 128-bit arithmetic that reports wrapping,
//	             and a precision check of each result
//	laneDiv      / of values below 10^18 (every column of at most 18
//	             digits, and most values of wider ones: a sum of them):
//	             PostgreSQL's rounding in 128-bit arithmetic (divide64)
//	laneExact    % and scales outside [0, 38] (Arrow allows negative
//	             ones): every row to exactRow
//	                      │ a row a lane cannot vouch for
//	                      ▼
//	exactRow     math/big on that row alone: the exact result or the
//	             row's error ("numeric field overflow", "division by zero")
//
// The int64 lanes trust the operand types only after checking each value
// against its precision (an Arrow decimal column can hold a value wider
// than its declared precision); a value that fails goes to exactRow, so
// every lane returns what exactRow returns for every row. Rows under a
// NULL are computed from whatever their slots hold and never raise an
// error: only valid rows reach exactRow.

type decLane uint8

const (
	laneSmall decLane = iota
	laneWide
	laneMulNarrow
	laneChecked
	laneDiv
	laneExact
)

// maxInt64Digits is the most digits every value of which fits in int64.
const maxInt64Digits = 18

// newBoundDecimalArith plans e over operands of types lt and rt with a
// result of type typ.
func newBoundDecimalArith(e DecimalArith, l, r Bound, lt, rt, typ *arrow.Decimal128Type) boundDecimalArith {
	b := boundDecimalArith{exprOf: exprOf[DecimalArith]{e}, l: l, r: r, ls: lt.Scale, rs: rt.Scale, typ: typ, max: value.MaxOfPrecision(typ.Precision), lane: laneExact}
	scaleOK := func(t *arrow.Decimal128Type) bool {
		return t.Scale >= 0 && t.Scale <= t.Precision && t.Precision <= value.MaxDecimalPrecision
	}
	if !scaleOK(lt) || !scaleOK(rt) || !scaleOK(typ) {
		return b
	}
	if e.Op == OpDiv {
		// Each row in math/big was TPC-DS Q4's cost: its
		// sum((list - wholesale - discount + sales) / 2) spent 3 µs a row
		// dividing, 80% of the query.
		b.lane = laneDiv
		return b
	}
	if e.Op != OpAdd && e.Op != OpSub && e.Op != OpMul {
		return b
	}
	b.lane = laneChecked
	// + and - align both operands to the result's scale, max(ls, rs); the
	// product's scale is the sum of the scales, so * aligns nothing.
	b.kx, b.ky = value.Pow10x128(typ.Scale-lt.Scale), value.Pow10x128(typ.Scale-rt.Scale)
	if e.Op == OpMul {
		b.kx, b.ky = value.Pow10x128(0), value.Pow10x128(0)
	}
	b.mx, b.my = value.MaxOfPrecision(lt.Precision), value.MaxOfPrecision(rt.Precision)
	if lt.Precision <= maxInt64Digits && rt.Precision <= maxInt64Digits {
		// Both scales are then at most 18: the scale factors fit in
		// int64, and the result has at most 37 digits (DecimalResult), so
		// its precision is never capped.
		b.lane = laneWide
		if typ.Precision <= maxInt64Digits {
			b.lane = laneSmall
		}
	}
	if e.Op == OpMul && (lt.Precision <= maxInt64Digits) != (rt.Precision <= maxInt64Digits) {
		b.lane = laneMulNarrow
	}
	b.fused = fuseDecimal(b)
	return b
}

// decOperand is one operand of the kernel: a column's values from its
// offset (stride 1), or a scalar's one value (stride 0).
type decOperand struct {
	v      []decimal128.Num
	bitmap []byte // nil when nothing is NULL
	off    int    // bit offset into bitmap
	stride int
	null   bool // a NULL scalar
}

func decOperandOf(d compute.Datum) (decOperand, error) {
	switch d := d.(type) {
	case *compute.ArrayDatum:
		a := d.Value
		if a.DataType().ID() != arrow.DECIMAL128 {
			return decOperand{}, fmt.Errorf("%w: %s is not decimal128", ErrSchema, a.DataType())
		}
		o := decOperand{stride: 1, off: a.Offset()}
		if bufs := a.Buffers(); len(bufs) > 1 && bufs[1] != nil {
			o.v = arrow.Decimal128Traits.CastFromBytes(bufs[1].Bytes())[a.Offset() : a.Offset()+a.Len()]
		} else {
			o.v = make([]decimal128.Num, a.Len()) // an empty array may have no value buffer
		}
		if a.NullN() != 0 && a.Buffers()[0] != nil {
			o.bitmap = a.Buffers()[0].Bytes()
		}
		return o, nil
	case *compute.ScalarDatum:
		s, ok := d.Value.(*scalar.Decimal128)
		if !ok {
			return decOperand{}, fmt.Errorf("%w: %s is not decimal128", ErrSchema, d.Type())
		}
		return decOperand{v: []decimal128.Num{s.Value}, null: !s.IsValid()}, nil
	}
	return decOperand{}, fmt.Errorf("%w: datum %s", ErrSchema, d.Kind())
}

func (o *decOperand) valid(i int) bool {
	if o.stride == 0 {
		return !o.null
	}
	return o.bitmap == nil || bitutil.BitIsSet(o.bitmap, o.off+i)
}

func (o *decOperand) at(i int) decimal128.Num { return o.v[i*o.stride] }

// decValidity is the validity of n rows of l op r: nil when no row is
// NULL, else a bitmap and its count of NULLs.
func decValidity(mem memory.Allocator, n int, l, r *decOperand) (*memory.Buffer, int) {
	if !l.null && !r.null && l.bitmap == nil && r.bitmap == nil {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := buf.Bytes()
	switch {
	case l.null || r.null:
		clear(bits)
		return buf, n
	case l.bitmap != nil && r.bitmap != nil:
		bitutil.BitmapAnd(l.bitmap, r.bitmap, int64(l.off), int64(r.off), bits, 0, int64(n))
	case l.bitmap != nil:
		bitutil.CopyBitmap(l.bitmap, l.off, n, bits, 0)
	default:
		bitutil.CopyBitmap(r.bitmap, r.off, n, bits, 0)
	}
	return buf, n - bitutil.CountSetBits(bits, 0, n)
}

// kernel computes n rows of l op r into a new decimal column.
func (e boundDecimalArith) kernel(mem memory.Allocator, n int, l, r *decOperand) (arrow.Array, error) {
	vals := memory.NewResizableBuffer(mem)
	vals.Resize(n * arrow.Decimal128SizeBytes)
	out := arrow.Decimal128Traits.CastFromBytes(vals.Bytes())[:n]
	var bad []int // rows for exactRow
	switch e.lane {
	case laneSmall:
		bad = e.smallLane(out, l, r, bad)
	case laneWide:
		bad = e.wideLane(out, l, r, bad)
	case laneMulNarrow:
		bad = e.mulNarrowLane(out, l, r, bad)
	case laneChecked:
		bad = e.checkedLane(out, l, r, bad)
	case laneDiv:
		bad = e.divLane(out, l, r, bad)
	default:
		bad = everyRow(bad, n)
	}
	for _, i := range bad {
		if !l.valid(i) || !r.valid(i) {
			out[i] = decimal128.Num{}
			continue
		}
		z, err := e.exactRow(l.at(i), r.at(i))
		if err != nil {
			vals.Release()
			return nil, err
		}
		out[i] = z
	}
	valid, nulls := decValidity(mem, n, l, r)
	d := array.NewData(e.typ, n, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	vals.Release()
	a := array.MakeFromData(d)
	d.Release()
	return a, nil
}

// small64 is x as an int64 when it is one and |x| <= m.
func small64(x decimal128.Num, m int64) (int64, bool) {
	a := int64(x.LowBits())
	return a, x.HighBits() == a>>63 && uint64(a+m) <= 2*uint64(m)
}

// int64Operands prepares the int64 lanes: it lists in bad the rows whose
// operands are not int64 values within their precision (small64), in row
// order; ok is false when a scalar operand is not, and every row must go
// to exactRow. The lanes then compute every row without a check; the
// rows in bad get exactRow's value after.
func (e boundDecimalArith) int64Operands(l, r *decOperand, n int, bad []int) ([]int, bool) {
	ops := [2]*decOperand{l, r}
	lim := [2]int64{int64(e.mx.LowBits()), int64(e.my.LowBits())}
	nbad := 0
	for k, o := range ops {
		if o.stride == 0 {
			if _, ok := small64(o.v[0], lim[k]); !ok {
				return bad, false
			}
			continue
		}
		before := len(bad)
		for i, x := range o.v[:n] {
			if _, ok := small64(x, lim[k]); !ok {
				bad = append(bad, i)
			}
		}
		if len(bad) > before {
			nbad++
		}
	}
	if nbad > 1 { // both columns: merge the two ascending lists
		slices.Sort(bad)
		bad = slices.Compact(bad)
	}
	return bad, true
}

// smallLane is + - * in int64: + and - as x*kx + y*ky with ky negated
// for -, * as x*y; one loop per operand shape, free of checks.
func (e boundDecimalArith) smallLane(out []decimal128.Num, l, r *decOperand, bad []int) []int {
	n := len(out)
	bad, ok := e.int64Operands(l, r, n, bad)
	if !ok {
		return everyRow(bad, n)
	}
	kx, ky := int64(e.kx.LowBits()), int64(e.ky.LowBits())
	if e.src.Op == OpSub {
		ky = -ky
	}
	mul := e.src.Op == OpMul
	put := func(i int, z int64) { out[i] = decimal128.New(z>>63, uint64(z)) }
	switch {
	case l.stride == 1 && r.stride == 1:
		xs, ys := l.v[:n], r.v[:n]
		if mul {
			for i := range out {
				put(i, int64(xs[i].LowBits())*int64(ys[i].LowBits()))
			}
		} else {
			for i := range out {
				put(i, int64(xs[i].LowBits())*kx+int64(ys[i].LowBits())*ky)
			}
		}
	case l.stride == 0 && r.stride == 1:
		ys := r.v[:n]
		a := int64(l.v[0].LowBits())
		if mul {
			for i := range out {
				put(i, a*int64(ys[i].LowBits()))
			}
		} else {
			a *= kx
			for i := range out {
				put(i, a+int64(ys[i].LowBits())*ky)
			}
		}
	default: // a column and a scalar, or two scalars (n is 1)
		xs := l.v
		sx := l.stride
		b := int64(r.v[0].LowBits())
		if mul {
			for i := range out {
				put(i, int64(xs[i*sx].LowBits())*b)
			}
		} else {
			b *= ky
			for i := range out {
				put(i, int64(xs[i*sx].LowBits())*kx+b)
			}
		}
	}
	return bad
}

// wideLane is + - * of int64 operands with 128-bit results: exact 64×64
// products (mul64x64); each scaled operand of + and - is below 10^36, so
// their sum cannot wrap.
func (e boundDecimalArith) wideLane(out []decimal128.Num, l, r *decOperand, bad []int) []int {
	n := len(out)
	bad, ok := e.int64Operands(l, r, n, bad)
	if !ok {
		return everyRow(bad, n)
	}
	kx, ky := int64(e.kx.LowBits()), int64(e.ky.LowBits())
	if e.src.Op == OpSub {
		ky = -ky
	}
	mul := e.src.Op == OpMul
	switch {
	case l.stride == 1 && r.stride == 1:
		xs, ys := l.v[:n], r.v[:n]
		if mul {
			for i := range out {
				out[i] = value.Mul64x64(int64(xs[i].LowBits()), int64(ys[i].LowBits()))
			}
		} else {
			for i := range out {
				out[i] = value.Mul64x64(int64(xs[i].LowBits()), kx).Add(value.Mul64x64(int64(ys[i].LowBits()), ky))
			}
		}
	case l.stride == 0 && r.stride == 1:
		ys := r.v[:n]
		a := int64(l.v[0].LowBits())
		if mul {
			for i := range out {
				out[i] = value.Mul64x64(a, int64(ys[i].LowBits()))
			}
		} else {
			ax := value.Mul64x64(a, kx)
			for i := range out {
				out[i] = ax.Add(value.Mul64x64(int64(ys[i].LowBits()), ky))
			}
		}
	default:
		xs := l.v
		sx := l.stride
		b := int64(r.v[0].LowBits())
		if mul {
			for i := range out {
				out[i] = value.Mul64x64(int64(xs[i*sx].LowBits()), b)
			}
		} else {
			by := value.Mul64x64(b, ky)
			for i := range out {
				out[i] = value.Mul64x64(int64(xs[i*sx].LowBits()), kx).Add(by)
			}
		}
	}
	return bad
}

// divLane is x / y for the rows whose operands are int64 values below
// 10^18 (small64) and that divide64 can vouch for; every other row goes
// to bad.
func (e boundDecimalArith) divLane(out []decimal128.Num, l, r *decOperand, bad []int) []int {
	xs, ys, sx, sy := l.v, r.v, l.stride, r.stride
	for i := range out {
		x, okx := small64(xs[i*sx], below1e18)
		y, oky := small64(ys[i*sy], below1e18)
		if okx && oky {
			if z, ok := divide64(x, e.ls, y, e.rs, e.typ.Scale, e.max); ok {
				out[i] = z
				continue
			}
		}
		bad = append(bad, i)
	}
	return bad
}

// below1e18 is the largest 18-digit value.
const below1e18 = 999_999_999_999_999_999

// everyRow lists every row of n in bad.
func everyRow(bad []int, n int) []int {
	for i := range n {
		bad = append(bad, i)
	}
	return bad
}

// mulNarrowLane is x * y where one operand's precision is at most 18
// digits: its values are checked to be int64s within it (others go to
// bad), and the product of the other's 128-bit magnitude and that int64's
// is two 64×64 products, whose overflow past 127 bits sends the row to
// bad as well, as does a product past the result's precision.
func (e boundDecimalArith) mulNarrowLane(out []decimal128.Num, l, r *decOperand, bad []int) []int {
	wide, narrow, mn := l, r, int64(e.my.LowBits())
	if e.mx.HighBits() == 0 && e.mx.LowBits() < 1e18 {
		wide, narrow, mn = r, l, int64(e.mx.LowBits())
	}
	xs, ys, sx, sy := wide.v, narrow.v, wide.stride, narrow.stride
	mh, ml := uint64(e.max.HighBits()), e.max.LowBits()
	for i := range out {
		x := xs[i*sx]
		b, ok := small64(ys[i*sy], mn)
		if !ok {
			bad = append(bad, i)
			continue
		}
		xh, xl := value.Abs128(x)
		m := b >> 63
		ub := uint64((b ^ m) - m)
		h1, l1 := bits.Mul64(xl, ub)
		h2, l2 := bits.Mul64(xh, ub)
		hi, c := bits.Add64(h1, l2, 0)
		// The magnitude must fit 128 bits and be within the precision
		// (whose largest value is below 2^127).
		if h2 != 0 || c != 0 || hi > mh || (hi == mh && l1 > ml) {
			bad = append(bad, i)
			continue
		}
		if (x.HighBits() < 0) != (b < 0) {
			var br uint64
			l1, br = bits.Sub64(0, l1, 0)
			hi, _ = bits.Sub64(0, hi, br)
		}
		out[i] = decimal128.New(int64(hi), l1)
	}
	return bad
}

// checkedLane is + - * in checked 128-bit arithmetic; a row that wraps or
// leaves the result's precision goes to bad (exactRow then finds whether
// it overflows: an aligned operand past 128 bits can still cancel).
func (e boundDecimalArith) checkedLane(out []decimal128.Num, l, r *decOperand, bad []int) []int {
	op := e.src.Op
	xs, ys, sx, sy := l.v, r.v, l.stride, r.stride
	for i := range out {
		x, y := xs[i*sx], ys[i*sy]
		var z decimal128.Num
		ok := true
		if op == OpMul {
			z, ok = value.Mul128(x, y)
		} else {
			x, ok1 := scale128(x, e.kx)
			y, ok2 := scale128(y, e.ky)
			if op == OpAdd {
				z, ok = value.Add128(x, y)
			} else {
				z, ok = value.Sub128(x, y)
			}
			ok = ok && ok1 && ok2
		}
		if !ok || !value.Within(z, e.max) {
			bad = append(bad, i)
			continue
		}
		out[i] = z
	}
	return bad
}

// scale128 is x * k for k a power of ten: nothing for 10^0 (one operand
// of + - already has the result's scale), a 128 × 64-bit product below
// 10^19, mul128 above; ok is false when it wraps.
func scale128(x, k decimal128.Num) (decimal128.Num, bool) {
	if k.HighBits() == 0 {
		switch m := k.LowBits(); {
		case m == 1:
			return x, true
		case m>>63 == 0:
			xh, xl := value.Abs128(x)
			h1, l1 := bits.Mul64(xl, m)
			h2, l2 := bits.Mul64(xh, m)
			hi, c := bits.Add64(h1, l2, 0)
			if h2 != 0 || c != 0 {
				return decimal128.Num{}, false
			}
			return value.Signed128(hi, l1, x.HighBits() < 0)
		}
	}
	return value.Mul128(x, k)
}

// exactRow is x op y in math/big: the exact result at the result's
// scale (/ rounded as numdiv.go says), or the row's error.
func (e boundDecimalArith) exactRow(xv, yv decimal128.Num) (decimal128.Num, error) {
	x, y := xv.BigInt(), yv.BigInt()
	var z *big.Int
	var err error
	switch e.src.Op {
	case OpMul:
		z = x.Mul(x, y) // scale ls + rs, the result's
	case OpDiv:
		if z, err = DivideDecimal(x, e.ls, y, e.rs, e.typ.Scale); err != nil {
			return decimal128.Num{}, err
		}
	case OpMod:
		x.Mul(x, value.Pow10(e.typ.Scale-e.ls))
		y.Mul(y, value.Pow10(e.typ.Scale-e.rs))
		if y.Sign() == 0 {
			return decimal128.Num{}, fmt.Errorf("%w", ErrDivisionByZero)
		}
		z = x.Rem(x, y) // truncated: the dividend's sign, as numeric_mod
	default:
		// Align both to the result's scale, then add or subtract.
		x.Mul(x, value.Pow10(e.typ.Scale-e.ls))
		y.Mul(y, value.Pow10(e.typ.Scale-e.rs))
		if e.src.Op == OpAdd {
			z = x.Add(x, y)
		} else {
			z = x.Sub(x, y)
		}
	}
	if new(big.Int).Abs(z).Cmp(value.Pow10(e.typ.Precision)) >= 0 {
		return decimal128.Num{}, value.ErrNumericOverflow
	}
	return decimal128.FromBigInt(z), nil
}
