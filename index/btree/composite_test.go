package btree

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table/store"
)

// compRow is one row of the composite fixture: an int64, a string and a
// float64 column, each possibly NULL (nil).
type compRow struct {
	vals [3]any
	addr uint64
}

var compTypes = []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64}

// refCompare is PostgreSQL's btree order of two rows under parts: column
// by column, a NULL after every value (NULLS LAST) or before (FIRST), DESC
// reversing the values only.
func refCompare(parts []KeyPart, a, b [3]any) int {
	for i, p := range parts {
		x, y := a[i], b[i]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil || y == nil:
			c := 1 // x NULL
			if y == nil {
				c = -1
			}
			if p.NullsFirst {
				c = -c
			}
			return c
		}
		var c int
		switch xv := x.(type) {
		case int64:
			c = cmp.Compare(xv, y.(int64))
		case string:
			c = strings.Compare(xv, y.(string))
		case float64:
			xf, yf := xv, y.(float64)
			if xf == 0 {
				xf = 0
			}
			if yf == 0 {
				yf = 0
			}
			c = cmp.Compare(xf, yf)
		}
		if p.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func genCompRows(r *rand.Rand, n int) []compRow {
	strs := []string{"", "a", "a\x00", "a\x00b", "ab", "b", "\xff", "\x00", "a\xff"}
	rows := make([]compRow, n)
	for i := range rows {
		if r.IntN(8) > 0 {
			rows[i].vals[0] = int64(r.IntN(7) - 3)
		}
		if r.IntN(8) > 0 {
			rows[i].vals[1] = strs[r.IntN(len(strs))]
		}
		if r.IntN(8) > 0 {
			rows[i].vals[2] = float64(r.IntN(5)-2) / 2
		}
		rows[i].addr = uint64(r.IntN(3))<<32 | uint64(i)
	}
	return rows
}

func compArrays(mem memory.Allocator, rows []compRow) []arrow.Array {
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	fb := array.NewFloat64Builder(mem)
	defer ib.Release()
	defer sb.Release()
	defer fb.Release()
	for _, row := range rows {
		if v, ok := row.vals[0].(int64); ok {
			ib.Append(v)
		} else {
			ib.AppendNull()
		}
		if v, ok := row.vals[1].(string); ok {
			sb.Append(v)
		} else {
			sb.AppendNull()
		}
		if v, ok := row.vals[2].(float64); ok {
			fb.Append(v)
		} else {
			fb.AppendNull()
		}
	}
	return []arrow.Array{ib.NewArray(), sb.NewArray(), fb.NewArray()}
}

func randParts(r *rand.Rand) []KeyPart {
	names := []string{"i", "s", "f"}
	parts := make([]KeyPart, 3)
	for i := range parts {
		parts[i] = KeyPart{Column: names[i], Desc: r.IntN(2) == 0, NullsFirst: r.IntN(2) == 0}
	}
	return parts
}

// TestCompositeKeyOrder: comparing two encoded keys as bytes is comparing
// the rows in PostgreSQL's index order, for every mix of DESC and NULLS
// FIRST/LAST, with strings that hold 0x00 and 0xff.
func TestCompositeKeyOrder(t *testing.T) {
	mem := newMem(t)
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 40; round++ {
		kp := randParts(r)
		parts, err := partsOf(kp, compTypes)
		if err != nil {
			t.Fatal(err)
		}
		rows := genCompRows(r, 60)
		cols := compArrays(mem, rows)
		keys, err := compositeKeys(parts, cols)
		for _, c := range cols {
			c.Release()
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			for j := range rows {
				want := refCompare(kp, rows[i].vals, rows[j].vals)
				if got := strings.Compare(keys[i], keys[j]); got != want {
					t.Fatalf("parts %+v: rows %v and %v compare %d as keys, want %d", kp, rows[i].vals, rows[j].vals, got, want)
				}
			}
		}
	}
}

// compReader yields the fixture as (i, s, f, address) batches.
func compReader(t testing.TB, mem memory.Allocator, rows []compRow) array.RecordReader {
	cols := compArrays(mem, rows)
	ab := array.NewUint64Builder(mem)
	for _, row := range rows {
		ab.Append(row.addr)
	}
	cols = append(cols, ab.NewArray())
	ab.Release()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: compTypes[0], Nullable: true}, {Name: "s", Type: compTypes[1], Nullable: true},
		{Name: "f", Type: compTypes[2], Nullable: true}, {Name: "a", Type: arrow.PrimitiveTypes.Uint64},
	}, nil)
	rec := array.NewRecordBatch(sc, cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	rdr, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	return rdr
}

func trainComposite(t testing.TB, mem memory.Allocator, st store.Store, prefix string, kp []KeyPart, rows []compRow) *Index {
	rdr := compReader(t, mem, rows)
	defer rdr.Release()
	ix, err := TrainKeys(context.Background(), st, prefix, compTypes, rdr, Meta{Keys: kp, FragmentIDs: []uint32{0, 1, 2}, DatasetVersion: 4}, Options{PageRows: 8})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// refPrefix is the brute-force answer of SearchPrefix.
func refPrefix(rows []compRow, eq []any, rng *Range) []uint64 {
	var out []uint64
next:
	for _, row := range rows {
		for i, v := range eq {
			if row.vals[i] == nil || refCompare([]KeyPart{{}}, [3]any{row.vals[i]}, [3]any{v}) != 0 {
				continue next
			}
		}
		if rng != nil {
			x := row.vals[len(eq)]
			if x == nil {
				continue
			}
			c := func(b any) int { return refCompare([]KeyPart{{}}, [3]any{x}, [3]any{b}) }
			if rng.Lo != nil && (c(rng.Lo) < 0 || c(rng.Lo) == 0 && !rng.LoIncl) ||
				rng.Hi != nil && (c(rng.Hi) > 0 || c(rng.Hi) == 0 && !rng.HiIncl) {
				continue
			}
		}
		out = append(out, row.addr)
	}
	slices.Sort(out)
	return out
}

// TestSearchPrefix: equality on a prefix of the key columns, with or
// without a range on the next one, finds exactly the brute-force rows,
// whatever each column's order; a reopened index answers the same.
func TestSearchPrefix(t *testing.T) {
	ctx := context.Background()
	mem := newMem(t)
	r := rand.New(rand.NewPCG(5, 6))
	vals := [3][]any{{int64(-3), int64(0), int64(2), int64(9)}, {"", "a", "a\x00", "ab", "\xff", "zz"}, {-1.0, 0.0, 0.5, 3.0}}
	for round := 0; round < 12; round++ {
		kp := randParts(r)
		rows := genCompRows(r, 300)
		st := store.NewMemory()
		built := trainComposite(t, mem, st, "c/", kp, rows)
		opened, err := Open(ctx, st, "c/", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(opened.Keys(), kp) || opened.Meta().Column != "i" {
			t.Fatalf("reopened keys %+v column %q, want %+v", opened.Keys(), opened.Meta().Column, kp)
		}
		for _, ix := range []*Index{built, opened} {
			for q := 0; q < 60; q++ {
				n := r.IntN(3) // equality columns
				eq := make([]any, n)
				for i := range eq {
					eq[i] = vals[i][r.IntN(len(vals[i]))]
				}
				var rng *Range
				if n == 2 || n < 3 && r.IntN(2) == 0 || n == 0 {
					rng = &Range{LoIncl: r.IntN(2) == 0, HiIncl: r.IntN(2) == 0}
					if r.IntN(4) > 0 {
						rng.Lo = vals[n][r.IntN(len(vals[n]))]
					}
					if r.IntN(4) > 0 {
						rng.Hi = vals[n][r.IntN(len(vals[n]))]
					}
				}
				got, err := ix.SearchPrefix(ctx, eq, rng)
				if err != nil {
					t.Fatal(err)
				}
				if want := refPrefix(rows, eq, rng); !slices.Equal(bitmapSlice(got), want) {
					t.Fatalf("parts %+v eq %v range %+v: got %v, want %v", kp, eq, rng, bitmapSlice(got), want)
				}
			}
		}
	}
}

// TestCompositeLookup: the ordered probe of a composite index takes its
// encoded keys (EncodeKeys) in input order and reports duplicates; a
// one-column composite key (a DESC index) also takes the column's values.
func TestCompositeLookup(t *testing.T) {
	ctx := context.Background()
	mem := newMem(t)
	rows := []compRow{
		{vals: [3]any{int64(1), "x", 1.0}, addr: 10},
		{vals: [3]any{int64(1), "y", 1.0}, addr: 11},
		{vals: [3]any{int64(2), "x", nil}, addr: 12},
		{vals: [3]any{int64(2), "x", nil}, addr: 13},
	}
	kp := []KeyPart{{Column: "i"}, {Column: "s", Desc: true, NullsFirst: true}, {Column: "f"}}
	ix := trainComposite(t, mem, store.NewMemory(), "c/", kp, rows)
	probe := []compRow{rows[1], {vals: [3]any{int64(1), "z", 1.0}}, rows[2], rows[0]}
	cols := compArrays(mem, probe)
	keys, err := ix.EncodeKeys(cols, mem)
	for _, c := range cols {
		c.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	defer keys.Release()
	res, err := ix.Lookup(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Found, []bool{true, false, true, true}) || !slices.Equal(res.Addrs, []uint64{11, 0, 12, 10}) || !slices.Equal(res.Multi, []int{2}) {
		t.Fatalf("lookup: %+v", res)
	}

	// One DESC column: probed with plain int64 values.
	ib := array.NewInt64Builder(mem)
	defer ib.Release()
	ib.AppendValues([]int64{5, 7, 5}, nil)
	ib.AppendNull()
	col := ib.NewArray()
	defer col.Release()
	ab := array.NewUint64Builder(mem)
	defer ab.Release()
	ab.AppendValues([]uint64{1, 2, 3, 4}, nil)
	addrs := ab.NewArray()
	defer addrs.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "a", Type: arrow.PrimitiveTypes.Uint64}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{col, addrs}, 4)
	defer rec.Release()
	rdr, _ := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	defer rdr.Release()
	one, err := TrainKeys(ctx, store.NewMemory(), "d/", []arrow.DataType{arrow.PrimitiveTypes.Int64}, rdr, Meta{Keys: []KeyPart{{Column: "k", Desc: true, NullsFirst: true}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pb := array.NewInt64Builder(mem)
	defer pb.Release()
	pb.AppendValues([]int64{7, 6, 5}, nil)
	pb.AppendNull()
	pk := pb.NewArray()
	defer pk.Release()
	res, err = one.Lookup(ctx, pk)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Found, []bool{true, false, true, false}) || res.Addrs[0] != 2 || res.Addrs[2] != 1 || !slices.Equal(res.Multi, []int{2}) {
		t.Fatalf("one-column DESC lookup: %+v", res)
	}
}

// compositeFixture returns the two files of a small composite index.
func compositeFixture(t testing.TB) (lookup, pages []byte) {
	mem := newMem(t)
	st := store.NewMemory()
	r := rand.New(rand.NewPCG(8, 9))
	trainComposite(t, mem, st, "x/", []KeyPart{{Column: "i"}, {Column: "s", Desc: true, NullsFirst: true}, {Column: "f", NullsFirst: true}}, genCompRows(r, 120))
	ctx := context.Background()
	lb, err := st.Get(ctx, "x/"+lookupName)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := st.Get(ctx, "x/"+pagesName)
	if err != nil {
		t.Fatal(err)
	}
	return lb, pb
}

// TestCompositeFormatVersions: a composite index is written as version 2
// and a one-column index still as version 1, which this reader reads; a
// composite key kind in a version 1 header is refused.
func TestCompositeFormatVersions(t *testing.T) {
	lb, pb := compositeFixture(t)
	if v := binary.LittleEndian.Uint16(lb[4:]); v != 2 {
		t.Fatalf("composite lookup version %d", v)
	}
	if v := binary.LittleEndian.Uint16(pb[4:]); v != 2 {
		t.Fatalf("composite pages version %d", v)
	}
	l1, _ := corruptFixture(t, keyCases[0])
	if v := binary.LittleEndian.Uint16(l1[4:]); v != 1 {
		t.Fatalf("one-column lookup version %d", v)
	}
	bad := slices.Clone(pb)
	binary.LittleEndian.PutUint16(bad[4:], 1)
	if err := exercise(t, lb, bad); !errors.Is(err, ErrFormat) {
		t.Fatalf("composite pages as version 1: %v", err)
	}
}

// TestCorruptComposite: every truncation and every single-bit flip of
// every byte of either file of a composite index is a typed error naming
// the file.
func TestCorruptComposite(t *testing.T) {
	lb, pb := compositeFixture(t)
	if err := exercise(t, lb, pb); err != nil {
		t.Fatalf("intact index: %v", err)
	}
	for n := 0; n < len(lb); n++ {
		if err := exercise(t, lb[:n], pb); !typed(err) {
			t.Fatalf("lookup truncated to %d: %v", n, err)
		}
	}
	for _, f := range []struct {
		name string
		b    []byte
		run  func([]byte) error
	}{
		{"y/" + lookupName, lb, func(bad []byte) error { return exercise(t, bad, pb) }},
		{"y/" + pagesName, pb, func(bad []byte) error { return exercise(t, lb, bad) }},
	} {
		for i := range f.b {
			for bit := 0; bit < 8; bit++ {
				bad := slices.Clone(f.b)
				bad[i] ^= 1 << bit
				if err := f.run(bad); !typed(err) || !strings.Contains(err.Error(), f.name) {
					t.Fatalf("%s: bit %d of byte %d flipped: %v", f.name, bit, i, err)
				}
			}
		}
	}
}

// FuzzCompositeOrder: for any two rows of (int64, text) and any orders,
// the encoded keys compare as the rows do.
func FuzzCompositeOrder(f *testing.F) {
	f.Add(int64(1), "a", int64(1), "a\x00", uint8(0), uint8(0))
	f.Add(int64(-5), "\xff", int64(7), "", uint8(15), uint8(3))
	f.Fuzz(func(t *testing.T, i1 int64, s1 string, i2 int64, s2 string, flags, nulls uint8) {
		kp := []KeyPart{{Column: "i", Desc: flags&1 != 0, NullsFirst: flags&2 != 0}, {Column: "s", Desc: flags&4 != 0, NullsFirst: flags&8 != 0}}
		parts, err := partsOf(kp, compTypes[:2])
		if err != nil {
			t.Fatal(err)
		}
		row := func(i int64, s string, n uint8) [3]any {
			var r [3]any
			if n&1 == 0 {
				r[0] = i
			}
			if n&2 == 0 {
				r[1] = s
			}
			return r
		}
		a, b := row(i1, s1, nulls), row(i2, s2, nulls>>2)
		enc := func(r [3]any) string {
			var buf []byte
			for j, p := range parts {
				var u uint64
				var s string
				if r[j] != nil {
					u, s, _ = scalarKey(p.kind, r[j])
				}
				buf = appendPart(buf, p, r[j] == nil, u, s)
			}
			return string(buf)
		}
		if got, want := bytes.Compare([]byte(enc(a)), []byte(enc(b))), refCompare(kp, a, b); got != want {
			t.Fatalf("%v vs %v under %+v: keys compare %d, rows %d", a, b, kp, got, want)
		}
	})
}

// TestHasDuplicate: equal keys without a NULL column are duplicates, in a
// composite and a one-column index; equal keys with a NULL are not.
func TestHasDuplicate(t *testing.T) {
	ctx := context.Background()
	mem := newMem(t)
	kp := []KeyPart{{Column: "i"}, {Column: "s", Desc: true}, {Column: "f", NullsFirst: true}}
	for _, c := range []struct {
		rows []compRow
		dup  bool
	}{
		{[]compRow{{vals: [3]any{int64(1), "a\x00", 1.0}, addr: 1}, {vals: [3]any{int64(1), "a", 1.0}, addr: 2}}, false},
		{[]compRow{{vals: [3]any{int64(1), "a\x00", nil}, addr: 1}, {vals: [3]any{int64(1), "a\x00", nil}, addr: 2}}, false},
		{[]compRow{{vals: [3]any{nil, "a", 1.0}, addr: 1}, {vals: [3]any{nil, "a", 1.0}, addr: 2}}, false},
		{[]compRow{{vals: [3]any{int64(2), "", 0.0}, addr: 1}, {vals: [3]any{int64(1), "b", 2.0}, addr: 3}, {vals: [3]any{int64(2), "", -0.0}, addr: 2}}, true},
		{[]compRow{{vals: [3]any{int64(1), "a\x00b", 1.0}, addr: 1}, {vals: [3]any{int64(1), "a\x00b", 1.0}, addr: 9}}, true},
	} {
		// Spread over pages of 1 entry, so neighbours straddle pages.
		rdr := compReader(t, mem, c.rows)
		ix, err := TrainKeys(ctx, store.NewMemory(), "u/", compTypes, rdr, Meta{Keys: kp}, Options{PageRows: 1})
		rdr.Release()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ix.HasDuplicate(ctx); err != nil || got != c.dup {
			t.Fatalf("rows %+v: HasDuplicate %v, %v; want %v", c.rows, got, err, c.dup)
		}
	}
	kc := keyCases[0]
	es := []refEntry{{key: nil, addr: 1}, {key: nil, addr: 2}, {key: kc.gen(rand.New(rand.NewPCG(1, 1)), 10), addr: 3}}
	ix := train(t, mem, store.NewMemory(), "p/", kc, es, Options{PageRows: 1})
	if got, err := ix.HasDuplicate(ctx); err != nil || got {
		t.Fatalf("two NULLs and a key: HasDuplicate %v, %v", got, err)
	}
	es = append(es, refEntry{key: es[2].key, addr: 4})
	ix = train(t, mem, store.NewMemory(), "q/", kc, es, Options{PageRows: 1})
	if got, err := ix.HasDuplicate(ctx); err != nil || !got {
		t.Fatalf("a key twice: HasDuplicate %v, %v", got, err)
	}
}
