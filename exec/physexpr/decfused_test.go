package physexpr

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// The fused decimal program (decfused.go) against the unfused kernels it
// replaces: the same tree bound twice, once with every node's program
// removed, must give the same values, the same NULLs and the same error
// on every batch, whether the fused path answers or falls back.

// unfuse is b with the fused programs of its decimal nodes removed.
func unfuse(b Bound) Bound {
	e, ok := b.(boundDecimalArith)
	if !ok {
		return b
	}
	e.fused, e.l, e.r = nil, unfuse(e.l), unfuse(e.r)
	return e
}

// fusedCase decodes data: a 9-byte header (the tree's shape, its two
// operators, the three leaves' precisions and scales packed, which are
// scalars, the slice offset) then 27 bytes a row (per leaf a class byte,
// bit 7 for NULL, and a random word, as FuzzDecimalArithKernel's).
type fusedCase struct {
	expr   Expr
	types  [3]*arrow.Decimal128Type
	scalar [3]bool
	vals   [3][]decimal128.Num
	valid  [3][]bool
	off    int
	nrows  int
}

func decodeFusedCase(data []byte) (fusedCase, bool) {
	if len(data) < 9 {
		return fusedCase{}, false
	}
	h := data[:9]
	var c fusedCase
	c.off = int(h[8] % 5)
	for k := range 3 {
		p := int32(h[2+k]%20) + 1 // now and then wider than 18 digits: no fusing
		c.types[k] = &arrow.Decimal128Type{Precision: p, Scale: int32(h[5+k]) % (p + 1)}
		c.scalar[k] = h[1]>>k&1 != 0
	}
	body := data[9:]
	c.nrows = min(len(body)/27, 64)
	for i := range c.nrows {
		row := body[i*27:]
		for k := range 3 {
			cls, r := row[k*9], binary.LittleEndian.Uint64(row[k*9+1:])
			// Mostly ordinary values, so most batches take the fused path.
			if cls&0x40 == 0 {
				cls = cls &^ 0x0f
			}
			c.vals[k] = append(c.vals[k], arrowtest.Num128(arrowtest.FuzzDecimal(cls, r, c.types[k].Precision)))
			c.valid[k] = append(c.valid[k], cls&0x80 == 0)
		}
	}
	if c.nrows == 0 {
		return c, false
	}
	ops := []Op{OpAdd, OpSub, OpMul}
	leaf := func(k int) Expr {
		if !c.scalar[k] {
			return Col{Index: k}
		}
		if !c.valid[k][0] {
			return Lit{Type: c.types[k]}
		}
		return Lit{Value: c.vals[k][0], Type: c.types[k]}
	}
	o1, o2 := ops[h[0]%3], ops[h[0]/3%3]
	switch h[0] / 9 % 3 {
	case 0: // (a o1 b) o2 c: Q1's shape
		c.expr = DecimalArith{Op: o2, L: DecimalArith{Op: o1, L: leaf(0), R: leaf(1)}, R: leaf(2)}
	case 1: // a o2 (b o1 c)
		c.expr = DecimalArith{Op: o2, L: leaf(0), R: DecimalArith{Op: o1, L: leaf(1), R: leaf(2)}}
	default: // (a o1 b) o2 (b o1 c)
		c.expr = DecimalArith{Op: o2, L: DecimalArith{Op: o1, L: leaf(0), R: leaf(1)}, R: DecimalArith{Op: o1, L: leaf(1), R: leaf(2)}}
	}
	return c, true
}

func (c fusedCase) batch(mem memory.Allocator) arrow.RecordBatch {
	var fields []arrow.Field
	var cols []arrow.Array
	for k := range 3 {
		b := array.NewDecimal128Builder(mem, c.types[k])
		for i := range c.off {
			b.Append(decimal128.FromI64(int64(i*5 - 2)))
		}
		b.AppendValues(c.vals[k], c.valid[k]) // values under NULLs kept
		whole := b.NewArray()
		b.Release()
		cols = append(cols, array.NewSlice(whole, int64(c.off), int64(c.off+c.nrows)))
		whole.Release()
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", k), Type: c.types[k], Nullable: true})
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(c.nrows))
	for _, a := range cols {
		a.Release()
	}
	return rec
}

func checkFusedCase(t *testing.T, c fusedCase) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := c.batch(mem)
	defer rec.Release()
	fused, err := Bind(c.expr, rec.Schema())
	if err != nil {
		return // a type DecimalResult refuses
	}
	desc := fmt.Sprintf("%s over %v, scalars %v, offset %d", c.expr, c.types, c.scalar, c.off)
	want, wantErr := unfuse(fused).Eval(t.Context(), mem, rec)
	got, gotErr := fused.Eval(t.Context(), mem, rec)
	if wantErr != nil {
		require.Error(t, gotErr, desc)
		require.Equal(t, wantErr.Error(), gotErr.Error(), desc)
		return
	}
	require.NoError(t, gotErr, desc)
	defer want.Release()
	defer got.Release()
	require.Equal(t, want.Kind(), got.Kind(), desc)
	w, err := materialize(want, c.nrows, mem)
	require.NoError(t, err)
	defer w.Release()
	g, err := materialize(got, c.nrows, mem)
	require.NoError(t, err)
	defer g.Release()
	require.True(t, arrow.TypeEqual(w.DataType(), g.DataType()), desc)
	require.True(t, array.Equal(w, g), "%s\nwant %v\ngot  %v", desc, w, g)
}

// FuzzDecimalFused: a fused tree equals the unfused kernels on every
// row, NULLs and errors included.
func FuzzDecimalFused(f *testing.F) {
	row := func(cls [3]byte, v [3]uint64) []byte {
		var b []byte
		for k := range 3 {
			b = append(b, cls[k])
			b = binary.LittleEndian.AppendUint64(b, v[k])
		}
		return b
	}
	seed := func(h [9]byte, rows ...[]byte) []byte {
		b := h[:]
		for _, r := range rows {
			b = append(b, r...)
		}
		return b
	}
	// Q1: price * (1 - discount) * (1 + tax) as (p * d) * t over 15-digit
	// columns; a NULL, then a value past int64 (the batch falls back).
	f.Add(seed([9]byte{2 + 3*2, 0, 14, 14, 14, 2, 2, 2, 0}, row([3]byte{0, 0, 0}, [3]uint64{9000000, 7, 3}), row([3]byte{0x80, 0, 0}, [3]uint64{1, 2, 3})))
	f.Add(seed([9]byte{1 + 3*2, 2, 14, 0, 14, 2, 0, 2, 1}, row([3]byte{0, 0, 0}, [3]uint64{9000000, 1, 3}), row([3]byte{0x43, 0, 0}, [3]uint64{1, 2, 3})))
	// Near 10^18 in 17-digit columns: a sum past its 18 digits errors.
	f.Add(seed([9]byte{0, 0, 16, 16, 16, 0, 0, 0, 2}, row([3]byte{0x42, 0x42, 0x42}, [3]uint64{99, 99, 99})))
	f.Add(seed([9]byte{9 + 4, 4, 17, 17, 17, 1, 2, 3, 3}, row([3]byte{0x41, 0x41, 0}, [3]uint64{5, 5, 5}), row([3]byte{0, 0x80, 0}, [3]uint64{5, 5, 5})))
	f.Add(seed([9]byte{18 + 5, 0, 19, 5, 8, 0, 1, 2, 4}, row([3]byte{0x50, 0x44, 0x13}, [3]uint64{1, 2, 3})))
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, ok := decodeFusedCase(data); ok {
			checkFusedCase(t, c)
		}
	})
}

// Q1's expressions fuse, and over Q1-like values the fused path answers
// (no fallback) with the unfused kernels' values; a value past int64 in
// one row makes the batch fall back, and the answer is still the same.
func TestDecimalFusedQ1(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	d := func(p, s int32) *arrow.Decimal128Type { return &arrow.Decimal128Type{Precision: p, Scale: s} }
	const n = 1000
	build := func(f func(i int) decimal128.Num) arrow.Array {
		b := array.NewDecimal128Builder(mem, d(15, 2))
		defer b.Release()
		for i := range n {
			if i%97 == 5 {
				b.AppendNull()
				continue
			}
			b.Append(f(i))
		}
		return b.NewArray()
	}
	price := build(func(i int) decimal128.Num { return decimal128.FromI64(90000 + int64(i*7919%10000000)) })
	disc := build(func(i int) decimal128.Num { return decimal128.FromI64(int64(i % 11)) })
	tax := build(func(i int) decimal128.Num { return decimal128.FromI64(int64(i % 9)) })
	schema := arrow.NewSchema([]arrow.Field{{Name: "p", Type: d(15, 2), Nullable: true}, {Name: "d", Type: d(15, 2), Nullable: true}, {Name: "t", Type: d(15, 2), Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{price, disc, tax}, n)
	price.Release()
	disc.Release()
	tax.Release()
	defer rec.Release()
	one := Lit{Value: decimal128.FromI64(1), Type: d(1, 0)}
	disc1 := DecimalArith{Op: OpMul, L: Col{Index: 0}, R: DecimalArith{Op: OpSub, L: one, R: Col{Index: 1}}}
	charge := DecimalArith{Op: OpMul, L: disc1, R: DecimalArith{Op: OpAdd, L: one, R: Col{Index: 2}}}
	for _, e := range []Expr{disc1, charge} {
		b, err := Bind(e, schema)
		require.NoError(t, err)
		bd := b.(boundDecimalArith)
		require.NotNil(t, bd.fused, "%s does not fuse", e)
		got, ok, err := bd.fused.eval(t.Context(), mem, rec, bd.typ)
		require.NoError(t, err)
		require.True(t, ok, "%s fell back", e)
		want, err := unfuse(b).Eval(t.Context(), mem, rec)
		require.NoError(t, err)
		w, g := want.(*compute.ArrayDatum).MakeArray(), got.(*compute.ArrayDatum).MakeArray()
		require.True(t, array.Equal(w, g), "%s", e)
		for _, r := range []interface{ Release() }{w, g, want, got} {
			r.Release()
		}
	}
}
