package exec

import (
	"math"
	"slices"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The fuzzed key columns: an int32, a string, a float64, a decimal and an
// int64, each with NULLs, few distinct values (so keys repeat) and equality
// traps (-0 and 0, two NaN payloads, "" and NULL, a decimal with its high
// word set). The two integers together are a key the join packs into one
// word (packedkey.go).
var (
	fuzzKeyStrings = []string{"", "a", "b", "ab", "a\x00", "a long string that is longer than a word or two"}
	fuzzKeyFloats  = []float64{0, math.Copysign(0, -1), math.NaN(), math.Float64frombits(math.Float64bits(math.NaN()) | 3), 1, math.Inf(-1)}
)

// fuzzKeyColumns decodes two bytes per row into the four key columns. The
// arrays are slices starting at row 1 of what was built, so the views'
// offset handling is exercised.
func fuzzKeyColumns(mem memory.Allocator, data []byte) []arrow.Array {
	ib := array.NewInt32Builder(mem)
	sb := array.NewStringBuilder(mem)
	fb := array.NewFloat64Builder(mem)
	db := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 20, Scale: 2})
	lb := array.NewInt64Builder(mem)
	bs := []array.Builder{ib, sb, fb, db, lb}
	defer func() {
		for _, b := range bs {
			b.Release()
		}
	}()
	ib.Append(99)
	sb.Append("padding")
	fb.Append(99)
	db.Append(decimal128.FromI64(99))
	lb.Append(99)
	for i := 0; i+1 < len(data); i += 2 {
		a, b := data[i], data[i+1]
		if a&0x80 != 0 {
			ib.AppendNull()
		} else {
			ib.Append(int32(a%5) - 2)
		}
		if b&0x80 != 0 {
			sb.AppendNull()
		} else {
			sb.Append(fuzzKeyStrings[int(a>>3)%len(fuzzKeyStrings)])
		}
		if b&0x40 != 0 {
			fb.AppendNull()
		} else {
			fb.Append(fuzzKeyFloats[int(b)%len(fuzzKeyFloats)])
		}
		if a&0x40 != 0 {
			db.AppendNull()
		} else {
			db.Append(decimal128.FromI64(int64(b%4) - 1))
		}
		if a&0x20 != 0 && b&0x20 != 0 {
			lb.AppendNull()
		} else {
			lb.Append(int64(b%7) - 3)
		}
	}
	out := make([]arrow.Array, len(bs))
	for i, b := range bs {
		full := b.NewArray()
		out[i] = array.NewSlice(full, 1, int64(full.Len()))
		full.Release()
	}
	return out
}

var fuzzKeySets = [][]int{{0}, {1}, {2}, {3}, {0, 1}, {1, 3, 2}, {2, 0}, {3, 0, 1, 2}, {0, 4}, {4, 0, 4}}

func pickKeys(cols []arrow.Array, set []int, lo, hi int) []arrow.Array {
	out := make([]arrow.Array, len(set))
	for i, c := range set {
		out[i] = array.NewSlice(cols[c], int64(lo), int64(hi))
	}
	return out
}

// FuzzHashTable checks the hash table's two users against a reference
// model, a Go map keyed by encodeGroupKey's bytes (NULL tagged, floats
// canonical, strings length-prefixed), over fuzzed rows of every key
// column set:
//   - the join's keyIndex: the build rows' chains for every probe row are
//     the model's rows of that key in build order, and nothing for a key
//     with a NULL;
//   - the group table: ids in order of first appearance over batches of a
//     fuzzed size, lookups of the probe rows (-1 for a key never seen), and
//     the emitted key columns (group g's key is its first row's).
//
// Input: byte 0 = build rows out of the rows, byte 1 = batch size, then two
// bytes per row.
func FuzzHashTable(f *testing.F) {
	f.Add([]byte{5, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{40, 7, 0xff, 0x00, 0x00, 0xff, 0x41, 0x41, 0x12, 0x34, 0, 0, 0, 0, 0x80, 0x80, 3, 3})
	f.Add([]byte("NaN and -0 and NULL and a string or two"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 2+2*1000 {
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		cols := fuzzKeyColumns(mem, data[2:])
		defer physexpr.ReleaseAll(cols)
		n := cols[0].Len()
		nb := min(n, int(data[0])%(n+1))
		batch := int(data[1]%9) + 1
		for _, set := range fuzzKeySets {
			build, probe := pickKeys(cols, set, 0, nb), pickKeys(cols, set, nb, n)
			checkKeyIndex(t, set, build, probe)
			checkGroupTable(t, mem, set, pickKeys(cols, set, 0, n), probe, batch)
			physexpr.ReleaseAll(build)
			physexpr.ReleaseAll(probe)
		}
	})
}

// hasKeyRow reports whether some row of cols has no NULL.
func hasKeyRow(cols []arrow.Array) bool {
	for r := range cols[0].Len() {
		if !slices.ContainsFunc(cols, func(c arrow.Array) bool { return c.IsNull(r) }) {
			return true
		}
	}
	return false
}

func checkKeyIndex(t *testing.T, set []int, build, probe []arrow.Array) {
	nb, np := build[0].Len(), probe[0].Len()
	model := map[string][]int32{}
	var buf []byte
	hasNull := func(cols []arrow.Array, r int) bool {
		return slices.ContainsFunc(cols, func(c arrow.Array) bool { return c.IsNull(r) })
	}
	for r := range nb {
		if !hasNull(build, r) {
			buf = encodeGroupKey(buf[:0], build, r)
			model[string(buf)] = append(model[string(buf)], int32(r))
		}
	}
	// Both indexes: the dense one (taken by a one-word key over a narrow
	// range: the int32 column, unless every build key is NULL) and the
	// hash table.
	defer func(old bool) { denseJoinIndex = old }(denseJoinIndex)
	for _, dense := range []bool{true, false} {
		denseJoinIndex = dense
		x := newKeyIndex(build, nb)
		// The integers, alone or together: narrow (packed: int32 -2..2 in 3 bits, int64 -3..3 in 3)
		intKey := !slices.ContainsFunc(set, func(c int) bool { return c != 0 && c != 4 }) && hasKeyRow(build)
		if took := x.dense != nil; dense && intKey && !took || took && !dense {
			t.Fatalf("keys %v (%d build rows, %d NULL): dense index %v", set, nb, build[0].NullN(), took)
		}
		words := !slices.Contains(set, 1) && !slices.Contains(set, 3) // no string, no decimal
		if packed := x.pack != nil; dense && intKey && len(set) > 1 && !packed || packed && (!dense || !words || len(set) == 1) {
			t.Fatalf("keys %v (%d build rows): packed %v", set, nb, packed)
		}
		var p keyCols
		p.normalize(probe, np)
		_, heads, _ := x.probe(&p, np, nil, nil, nil)
		for r := range np {
			var want []int32
			if !hasNull(probe, r) {
				buf = encodeGroupKey(buf[:0], probe, r)
				want = model[string(buf)]
			}
			var got []int32
			for m := heads[r]; m >= 0; m = x.next[m] {
				got = append(got, m)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("keys %v (dense %v) probe row %d: build rows %v, want %v", set, dense, r, got, want)
			}
		}
	}
}

func checkGroupTable(t *testing.T, mem memory.Allocator, set []int, all, probe []arrow.Array, batch int) {
	defer physexpr.ReleaseAll(all)
	n := all[0].Len()
	types := make([]arrow.DataType, len(all))
	for i, c := range all {
		types[i] = c.DataType()
	}
	model := map[string]int32{}
	var first []int // group -> its first row
	var buf []byte
	tb := newGroupTable(mem, types)
	defer tb.release()
	var ids []uint32
	for lo := 0; lo < n; lo += batch {
		hi := min(n, lo+batch)
		b := pickKeys(all, slicesIdx(len(all)), lo, hi)
		var err error
		ids, err = tb.assign(b, hi-lo, ids)
		if err != nil {
			t.Fatal(err)
		}
		for r := lo; r < hi; r++ {
			buf = encodeGroupKey(buf[:0], all, r)
			g, ok := model[string(buf)]
			if !ok {
				g = int32(len(first))
				model[string(buf)] = g
				first = append(first, r)
			}
			if ids[r-lo] != uint32(g) {
				t.Fatalf("keys %v row %d: group %d, want %d", set, r, ids[r-lo], g)
			}
		}
		physexpr.ReleaseAll(b)
	}
	if tb.len() != len(first) {
		t.Fatalf("keys %v: %d groups, want %d", set, tb.len(), len(first))
	}
	found := tb.lookup(probe, probe[0].Len(), nil)
	for r := range probe[0].Len() {
		buf = encodeGroupKey(buf[:0], probe, r)
		g, ok := model[string(buf)]
		if !ok {
			g = -1
		}
		if found[r] != g {
			t.Fatalf("keys %v lookup of probe row %d: %d, want %d", set, r, found[r], g)
		}
	}
	keys := tb.finish()
	defer physexpr.ReleaseAll(keys)
	var kb []byte
	for g, r := range first {
		buf = encodeGroupKey(buf[:0], all, r)
		kb = encodeGroupKey(kb[:0], keys, g)
		if string(buf) != string(kb) {
			t.Fatalf("keys %v group %d: key %x, want row %d's %x", set, g, kb, r, buf)
		}
	}
}

func slicesIdx(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
