package physexpr

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// FuzzPredicateWords checks the word-evaluated predicates (ranges, merged
// ranges, string and column-column comparisons, and AND/OR of them) against
// a row-at-a-time reference: each comparison on the two sides' scalars
// (128-bit integers, bytes), folded by Kleene's truth table. Both forms are
// checked: Eval's array (NULL rows with their value bit clear) and
// EvalWords at a random set of live rows.
// Input: type, AND/OR, row count, slice offsets, operand count, then per
// operand its operator, shape and constant, then the live mask and rows.
func FuzzPredicateWords(f *testing.F) {
	f.Add([]byte{2, 0, 70, 3, 1, 2, 5, 1, 7, 1, 1, 22, 0xFF, 0xFF, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{10, 0, 130, 0, 5, 3, 4, 1, 3, 2, 1, 30, 0, 0, 0, 9, 7, 0x0F, 4, 9, 14, 19, 30, 41})
	f.Add([]byte{12, 1, 64, 1, 0, 2, 0, 1, 9, 5, 0, 2, 0x55, 1, 2, 3, 2, 2, 2, 0, 0})
	f.Add([]byte{7, 0, 200, 5, 5, 3, 3, 1, 0, 2, 1, 44, 5, 1, 44, 1, 0xF0, 0, 9, 9, 9})
	f.Add([]byte{3, 1, 90, 0, 0, 4, 1, 1, 2, 4, 1, 8, 1, 0, 8, 0, 2, 0, 0, 3, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{b: data}
		typ := kernelTypes[int(in.next())%len(kernelTypes)]
		lop := []Op{OpAnd, OpOr}[in.next()%2]
		n := int(in.next()) % 200
		askip, bskip := int(in.next()%67), int(in.next()%67)
		k := 1 + int(in.next()%4)
		type operand struct {
			op    Op
			shape byte // 0: a op k, 1: k op a, 2: a op b, 3: b op k
			k     scalar.Scalar
		}
		ops := make([]operand, k)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		for i := range ops {
			ops[i].op = Op(in.next() % 6)
			ops[i].shape = in.next() % 4
			c := fuzzColumn(mem, typ, &fuzzBytes{b: []byte{in.next()}}, 1, 0)
			s, err := scalarAt(c, 0)
			c.Release()
			if err != nil {
				t.Fatal(err)
			}
			ops[i].k = s
			if rs, ok := s.(scalar.Releasable); ok {
				defer rs.Release()
			}
		}
		liveBytes := []byte{in.next(), in.next(), in.next(), in.next()}
		a := fuzzColumn(mem, typ, in, n, askip)
		defer a.Release()
		bcol := fuzzColumn(mem, typ, in, n, bskip)
		defer bcol.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: typ, Nullable: true}, {Name: "b", Type: typ, Nullable: true}}, nil)
		batch := array.NewRecordBatch(schema, []arrow.Array{a, bcol}, int64(n))
		defer batch.Release()
		ctx := context.Background()

		// The general path, per operand.
		cols := []Bound{boundCol{exprOf[Col]{Col{Index: 0, Name: "a"}}, ofType{typ}}, boundCol{exprOf[Col]{Col{Index: 1, Name: "b"}}, ofType{typ}}}
		var bs []Bound
		var want [][]*bool // per operand, per row: nil for NULL
		for _, o := range ops {
			lit := boundLit{exprOf: exprOf[Lit]{Lit{Value: "k"}}, s: o.k}
			l, r := []Bound{cols[0], lit, cols[0], cols[1]}[o.shape], []Bound{lit, cols[0], cols[1], lit}[o.shape]
			bd, err := bindCompare(o.op, l, r)
			if err != nil {
				t.Fatal(err)
			}
			bs = append(bs, bd)
			col := make([]*bool, n)
			for i := range col {
				x, y := rowScalar(t, l, batch, i), rowScalar(t, r, batch, i)
				col[i] = refCompareRow(t, o.op, x, y)
				for _, s := range []scalar.Scalar{x, y} {
					if rs, ok := s.(scalar.Releasable); ok && s != o.k {
						rs.Release()
					}
				}
			}
			want = append(want, col)
			checkBoolDatum(t, ctx, mem, bd, batch, col)
		}
		fold := make([]*bool, n)
		for i := range fold {
			decider := lop == OpOr
			var v *bool
			null := false
			for _, col := range want {
				switch {
				case col[i] == nil:
					null = true
				case *col[i] == decider:
					v = &decider
				}
			}
			if v == nil && !null {
				x := !decider
				v = &x
			}
			fold[i] = v
		}
		lg := newLogic(lop, bs)
		checkBoolDatum(t, ctx, mem, lg, batch, fold)

		// EvalWords at random live rows.
		nw := WordsFor(n)
		live, vals, valid := make([]uint64, nw), make([]uint64, nw), make([]uint64, nw)
		for w := range live {
			x := uint64(liveBytes[w%4]) * 0x0101010101010101
			x ^= x << (w % 5) // vary density per word
			if liveBytes[(w+1)%4]%3 == 0 {
				x = ^uint64(0)
			}
			live[w] = x & fullWord(w, n)
		}
		for w := range vals {
			vals[w], valid[w] = 0xA5A5A5A5A5A5A5A5, 0x5A5A5A5A5A5A5A5A // garbage
		}
		if err := lg.EvalWords(ctx, mem, batch, live, vals, valid); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if live[i/64]>>(i%64)&1 == 0 {
				continue
			}
			gv, gm := vals[i/64]>>(i%64)&1 == 1, valid[i/64]>>(i%64)&1 == 1
			if gm != (fold[i] != nil) || gm && gv != *fold[i] {
				t.Fatalf("%s, live row %d: got valid %v value %v, want %v", lg, i, gm, gv, show(fold[i]))
			}
		}
	})
}

func show(b *bool) any {
	if b == nil {
		return "NULL"
	}
	return *b
}

// checkBoolDatum evaluates bd over b and compares with want row by row.
func checkBoolDatum(t *testing.T, ctx context.Context, mem memory.Allocator, bd Bound, b arrow.RecordBatch, want []*bool) {
	t.Helper()
	d, err := bd.Eval(ctx, mem, b)
	if err != nil {
		t.Fatalf("%s: %v", bd, err)
	}
	defer d.Release()
	ad, ok := d.(*compute.ArrayDatum)
	if !ok {
		t.Fatalf("%s: %s, want an array", bd, d)
	}
	ga := ad.MakeArray()
	defer ga.Release()
	g := ga.(*array.Boolean)
	if g.Len() != len(want) {
		t.Fatalf("%s: %d rows, want %d", bd, g.Len(), len(want))
	}
	nulls := 0
	for i, w := range want {
		if w == nil {
			nulls++
		}
		if g.IsNull(i) != (w == nil) || w != nil && g.Value(i) != *w {
			t.Fatalf("%s row %d: got %v, want %v", bd, i, g.GetOneForMarshal(i), show(w))
		}
		if g.IsNull(i) && g.Value(i) {
			t.Fatalf("%s row %d: NULL with its value bit set", bd, i)
		}
	}
	if g.NullN() != nulls {
		t.Fatalf("%s: %d NULLs, want %d", bd, g.NullN(), nulls)
	}
}

// rowScalar is row i of a column or literal operand.
func rowScalar(t *testing.T, e Bound, b arrow.RecordBatch, i int) scalar.Scalar {
	switch e := e.(type) {
	case boundLit:
		return e.s
	case boundCol:
		s, err := scalarAt(b.Column(e.src.Index), i)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	t.Fatalf("operand %s", e)
	return nil
}

// refCompareRow is l op r on two scalars of one type (nil: NULL).
func refCompareRow(t *testing.T, op Op, l, r scalar.Scalar) *bool {
	if !l.IsValid() || !r.IsValid() {
		return nil
	}
	var c int
	if x, ok := constNum(l); ok {
		y, _ := constNum(r)
		c = x.Cmp(y)
	} else {
		c = bytes.Compare(l.(scalar.BinaryScalar).Data(), r.(scalar.BinaryScalar).Data())
	}
	v := cmpHolds(op, c)
	return &v
}
