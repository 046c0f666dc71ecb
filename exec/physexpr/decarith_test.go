package physexpr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/value"
	"github.com/stretchr/testify/require"
)

// The decimal kernel's lanes (decarith.go) against an independent
// reference: each row in math/big from the raw values, whatever lane the
// types pick. The generator aims at the lanes' edges: values at their
// precision's limit, near 10^18 (the int64 lanes' bound), near 10^38 and
// 2^127 (wider than the declared precision: bad data the int64 lanes
// must hand on), NULLs over such values, sliced columns at odd offsets,
// and scalar operands.

// refDecimalArith is x op y as the SQL operator defines it, from the
// unscaled operands: exact for + - * %, refDivide for /; nil and the
// error kind when the row fails.
func refDecimalArith(op Op, x *big.Int, s1 int32, y *big.Int, s2 int32, p, s int32) (*big.Int, error) {
	x, y = new(big.Int).Set(x), new(big.Int).Set(y)
	var z *big.Int
	switch op {
	case OpAdd, OpSub, OpMod:
		x.Mul(x, value.Pow10(s-s1))
		y.Mul(y, value.Pow10(s-s2))
		switch op {
		case OpAdd:
			z = x.Add(x, y)
		case OpSub:
			z = x.Sub(x, y)
		default:
			if y.Sign() == 0 {
				return nil, ErrDivisionByZero
			}
			z = x.Rem(x, y)
		}
	case OpMul:
		z = x.Mul(x, y)
	default:
		if y.Sign() == 0 {
			return nil, ErrDivisionByZero
		}
		z = arrowtest.RefDivide(x, s1, y, s2, s)
	}
	if new(big.Int).Abs(z).Cmp(value.Pow10(p)) >= 0 {
		return nil, errkind.OutOfRange
	}
	return z, nil
}

// decimalArithCase decodes data: an 8-byte header (op, both types, the
// slice offset, which operands are scalars) then 18 bytes a row (for each
// operand a class byte, whose bit 7 makes it NULL, and a random word).
type decimalArithCase struct {
	op       Op
	lt, rt   *arrow.Decimal128Type
	off      int
	scalar   [2]bool
	vals     [2][]*big.Int
	valid    [2][]bool
	nrows    int
	describe string
}

func decodeDecimalArithCase(data []byte) (decimalArithCase, bool) {
	if len(data) < 8 {
		return decimalArithCase{}, false
	}
	h := data[:8]
	c := decimalArithCase{op: []Op{OpAdd, OpSub, OpMul, OpDiv, OpMod}[h[0]%5], off: int(h[5] % 7)}
	p1, p2 := int32(h[1]%38)+1, int32(h[3]%38)+1
	c.lt = &arrow.Decimal128Type{Precision: p1, Scale: int32(h[2]) % (p1 + 1)}
	c.rt = &arrow.Decimal128Type{Precision: p2, Scale: int32(h[4]) % (p2 + 1)}
	c.scalar = [2]bool{h[6]&1 != 0, h[6]&2 != 0}
	body := data[8:]
	c.nrows = min(len(body)/18, 64)
	for i := range c.nrows {
		row := body[i*18:]
		for k, t := range []*arrow.Decimal128Type{c.lt, c.rt} {
			cls, r := row[k*9], binary.LittleEndian.Uint64(row[k*9+1:])
			c.vals[k] = append(c.vals[k], arrowtest.FuzzDecimal(cls, r, t.Precision))
			c.valid[k] = append(c.valid[k], cls&0x80 == 0)
		}
	}
	c.describe = fmt.Sprintf("%s %s %s, offset %d, scalars %v", c.lt, opInfo[c.op].sym, c.rt, c.off, c.scalar)
	return c, c.nrows > 0
}

// column builds operand k as a column of off filler rows and the case's
// rows, sliced to the latter.
func (c decimalArithCase) column(mem memory.Allocator, k int) arrow.Array {
	t := []*arrow.Decimal128Type{c.lt, c.rt}[k]
	b := array.NewDecimal128Builder(mem, t)
	defer b.Release()
	for i := range c.off {
		b.Append(decimal128.FromI64(int64(i*7 - 3)))
	}
	// AppendValues keeps the values under NULLs: a NULL over a value past
	// the int64 lanes' reach must not raise an error.
	vals := make([]decimal128.Num, len(c.vals[k]))
	for i, v := range c.vals[k] {
		vals[i] = arrowtest.Num128(v)
	}
	b.AppendValues(vals, c.valid[k])
	whole := b.NewArray()
	defer whole.Release()
	return array.NewSlice(whole, int64(c.off), int64(c.off+c.nrows))
}

func checkDecimalArithCase(t *testing.T, c decimalArithCase) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	p, s, ok := DecimalResult(c.op, c.lt.Precision, c.lt.Scale, c.rt.Precision, c.rt.Scale)
	if !ok {
		return
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: c.lt, Nullable: true}, {Name: "y", Type: c.rt, Nullable: true}}, nil)
	xa, ya := c.column(mem, 0), c.column(mem, 1)
	rec := array.NewRecordBatch(schema, []arrow.Array{xa, ya}, int64(c.nrows))
	xa.Release()
	ya.Release()
	defer rec.Release()
	// A scalar operand is row 0's value, for every row.
	operand := func(k int) (Expr, func(i int) (*big.Int, bool)) {
		if !c.scalar[k] {
			return Col{Index: k}, func(i int) (*big.Int, bool) { return c.vals[k][i], c.valid[k][i] }
		}
		t := []*arrow.Decimal128Type{c.lt, c.rt}[k]
		if !c.valid[k][0] {
			return Lit{Type: t}, func(int) (*big.Int, bool) { return nil, false }
		}
		return Lit{Value: arrowtest.Num128(c.vals[k][0]), Type: t}, func(int) (*big.Int, bool) { return c.vals[k][0], true }
	}
	l, lv := operand(0)
	r, rv := operand(1)
	out, err := DecimalArith{Op: c.op, L: l, R: r}.Evaluate(t.Context(), mem, rec)

	// The reference: the first valid row's error, else every row's value.
	want := make([]*big.Int, c.nrows)
	var wantErr error
	for i := range c.nrows {
		x, okx := lv(i)
		y, oky := rv(i)
		if !okx || !oky {
			continue
		}
		z, err := refDecimalArith(c.op, x, c.lt.Scale, y, c.rt.Scale, p, s)
		if err != nil {
			wantErr = err
			break
		}
		want[i] = z
	}
	if wantErr != nil {
		require.Error(t, err, c.describe)
		require.True(t, errors.Is(err, wantErr), "%s: %v, want %v", c.describe, err, wantErr)
		return
	}
	require.NoError(t, err, c.describe)
	defer out.Release()
	d := out.(*array.Decimal128)
	require.Equal(t, c.nrows, d.Len())
	for i, w := range want {
		if w == nil {
			require.True(t, d.IsNull(i), "%s: row %d not NULL", c.describe, i)
			continue
		}
		require.True(t, d.IsValid(i), "%s: row %d NULL", c.describe, i)
		require.Equal(t, w.String(), d.Value(i).BigInt().String(), "%s: row %d", c.describe, i)
	}
}

// FuzzDecimalArithKernel: every lane of numeric + - * / % equals the
// math/big reference on every row, NULLs where an operand is NULL, and
// the first failing row's error kind.
func FuzzDecimalArithKernel(f *testing.F) {
	row := func(cx byte, x uint64, cy byte, y uint64) []byte {
		b := []byte{cx}
		b = binary.LittleEndian.AppendUint64(b, x)
		b = append(b, cy)
		return binary.LittleEndian.AppendUint64(b, y)
	}
	seed := func(h [8]byte, rows ...[]byte) []byte {
		b := h[:]
		for _, r := range rows {
			b = append(b, r...)
		}
		return b
	}
	// Q1's shapes: 1 - l_discount (a scalar, laneSmall), price * (1 -
	// discount) (laneWide), and that times (1 + tax) (laneChecked).
	f.Add(seed([8]byte{1, 0, 0, 14, 2, 3, 1, 0}, row(0, 1, 0, 7), row(0, 1, 0x80, 12), row(0, 1, 0x10, 99)))
	f.Add(seed([8]byte{2, 14, 2, 15, 2, 1, 0, 0}, row(0, 9999999, 0, 6), row(1, 0, 0x11, 3), row(0x80, 5, 0, 5)))
	f.Add(seed([8]byte{2, 31, 4, 15, 2, 0, 0, 0}, row(1, 0, 1, 0), row(0x11, 4, 1, 2), row(3, 0, 0, 8)))
	// Near 10^18 in an 18-digit column (bad data), and 10^38, 2^127.
	f.Add(seed([8]byte{0, 17, 0, 17, 9, 5, 0, 0}, row(2, 60, 2, 70), row(0x12, 60, 0x82, 0), row(4, 0, 0, 1)))
	f.Add(seed([8]byte{0, 37, 0, 37, 37, 2, 0, 0}, row(3, 0, 0x13, 0), row(4, 0, 0x14, 0), row(0x34, 0, 0x34, 0)))
	f.Add(seed([8]byte{2, 37, 10, 37, 30, 0, 2, 0}, row(1, 0, 1, 0), row(0, 3, 0, 3)))
	f.Add(seed([8]byte{3, 10, 2, 5, 0, 1, 0, 0}, row(0, 1234, 0, 0), row(0, 7, 0, 3)))
	f.Add(seed([8]byte{4, 10, 2, 5, 0, 6, 2, 0}, row(0x10, 1234, 0, 7), row(0, 7, 0, 3)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, ok := decodeDecimalArithCase(data); ok {
			checkDecimalArithCase(t, c)
		}
	})
}

// The lanes the TPC-H types take (decimal(15,2) columns; Q1's 1 -
// l_discount, l_extendedprice * (1 - l_discount) and its product with 1 +
// l_tax; / in laneDiv, % always exact). A lane change shows here before it shows as
// a slower Q1.
func TestDecimalArithLanes(t *testing.T) {
	d := func(p, s int32) *arrow.Decimal128Type { return &arrow.Decimal128Type{Precision: p, Scale: s} }
	for _, c := range []struct {
		op     Op
		lt, rt *arrow.Decimal128Type
		lane   decLane
	}{
		{OpSub, d(1, 0), d(15, 2), laneSmall},
		{OpMul, d(15, 2), d(16, 2), laneWide},
		{OpMul, d(32, 4), d(16, 2), laneMulNarrow},
		{OpMul, d(16, 2), d(32, 4), laneMulNarrow},
		{OpMul, d(19, 2), d(32, 4), laneChecked},
		{OpAdd, d(38, 2), d(1, 0), laneChecked},
		{OpDiv, d(15, 2), d(15, 2), laneDiv},
		{OpDiv, d(38, 4), d(1, 0), laneDiv},
		{OpMod, d(15, 2), d(15, 2), laneExact},
	} {
		p, s, ok := DecimalResult(c.op, c.lt.Precision, c.lt.Scale, c.rt.Precision, c.rt.Scale)
		require.True(t, ok)
		b := newBoundDecimalArith(DecimalArith{Op: c.op}, nil, nil, c.lt, c.rt, d(p, s))
		require.Equal(t, c.lane, b.lane, "%s %s %s", c.lt, opInfo[c.op].sym, c.rt)
	}
}

// Checked 128-bit helpers against math/big at the edges of int128.
func TestInt128Helpers(t *testing.T) {
	one := big.NewInt(1)
	maxI := new(big.Int).Sub(new(big.Int).Lsh(one, 127), one)
	minI := new(big.Int).Neg(new(big.Int).Lsh(one, 127))
	fits := func(v *big.Int) bool { return v.Cmp(minI) >= 0 && v.Cmp(maxI) <= 0 }
	vals := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(-1), maxI, minI, new(big.Int).Lsh(one, 64), new(big.Int).Neg(new(big.Int).Lsh(one, 64)),
		new(big.Int).Lsh(one, 63), value.Pow10(19), new(big.Int).Neg(value.Pow10(19)), value.Pow10(38), new(big.Int).Sub(value.Pow10(19), one), new(big.Int).Lsh(one, 126)}
	for _, x := range vals {
		for _, y := range vals {
			for name, f := range map[string]struct {
				got  func(a, b decimal128.Num) (decimal128.Num, bool)
				want func(z, a, b *big.Int) *big.Int
			}{
				"+": {value.Add128, (*big.Int).Add}, "-": {value.Sub128, (*big.Int).Sub}, "*": {value.Mul128, (*big.Int).Mul},
			} {
				w := f.want(new(big.Int), x, y)
				z, ok := f.got(arrowtest.Num128(x), arrowtest.Num128(y))
				if name == "*" && w.Cmp(minI) == 0 {
					require.False(t, ok, "%s %s %s", x, name, y) // -2^127 as a product is refused: no decimal reaches it
					continue
				}
				require.Equal(t, fits(w), ok, "%s %s %s", x, name, y)
				if ok {
					require.Equal(t, w.String(), z.BigInt().String(), "%s %s %s", x, name, y)
				}
			}
		}
	}
	for _, x := range vals {
		for k := range int32(value.MaxDecimalPrecision + 1) {
			w := new(big.Int).Mul(x, value.Pow10(k))
			z, ok := scale128(arrowtest.Num128(x), value.Pow10x128(k))
			require.Equal(t, fits(w) && (w.Cmp(minI) != 0 || k == 0), ok, "%s * 10^%d", x, k) // 10^0 is x itself
			if ok {
				require.Equal(t, w.String(), z.BigInt().String(), "%s * 10^%d", x, k)
			}
		}
	}
	for _, a := range []int64{0, 1, -1, 1<<63 - 1, -1 << 63, 999999999999999999, -999999999999999999} {
		for _, b := range []int64{0, 1, -1, 1<<63 - 1, -1 << 63, 100, -7} {
			w := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
			require.Equal(t, w.String(), value.Mul64x64(a, b).BigInt().String(), "%d * %d", a, b)
		}
	}
}
