package physexpr

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// likeAlphabet are the pieces fuzzed patterns and texts are made of:
// wildcards, case pairs, multibyte letters whose lower case differs in
// length (İ), a byte that is not UTF-8.
var likeAlphabet = []string{"%", "a", "b", "A", "B", "ab", "é", "É", "İ", "\xff", " ", "%%", "x"}

func likeString(in *fuzzBytes, k int) string {
	var sb strings.Builder
	for range k {
		sb.WriteString(likeAlphabet[int(in.next())%len(likeAlphabet)])
	}
	return sb.String()
}

// FuzzLikeFast checks the raw-byte LIKE/ILIKE path against likeMatch, the
// general matcher, on a NULL-bearing text column sliced at an offset.
// Input: flags (ILIKE, NOT, large string), pattern length, row count,
// offset, then the pieces of the pattern and of each row.
func FuzzLikeFast(f *testing.F) {
	f.Add([]byte{0, 3, 9, 1, 1, 0, 0, 2, 1, 1, 2, 3, 1, 2})
	f.Add([]byte{1, 2, 20, 0, 0, 6, 7, 3, 1, 1, 3, 3})
	f.Add([]byte{2, 5, 30, 5, 0, 1, 0, 2, 0, 2, 1, 2, 1, 1, 2})
	f.Add([]byte{5, 1, 12, 3, 8, 6, 9, 7, 8, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{b: data}
		flags := in.next()
		ci, not, large := flags&1 != 0, flags&2 != 0, flags&4 != 0
		pat := likeString(in, int(in.next()%7))
		n, skip := int(in.next()%100), int(in.next()%67)
		prep := pat
		if ci {
			prep = strings.ToLower(pat)
		}
		plan, ok := planLike(prep)
		if !ok {
			if utf8Valid := !strings.Contains(prep, "\xff"); utf8Valid {
				t.Fatalf("pattern %q has no '_' or '\\' but no plan", prep)
			}
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		typ := arrow.BinaryTypes.String
		if large {
			typ = arrow.BinaryTypes.LargeString
		}
		bd := array.NewBuilder(mem, typ)
		defer bd.Release()
		rows := make([]*string, 0, n+skip)
		for i := 0; i < n+skip+1; i++ { // one row past the slice's end
			if in.next()%5 == 4 {
				bd.AppendNull()
				rows = append(rows, nil)
				continue
			}
			s := likeString(in, int(in.next()%6))
			bd.(interface{ Append(string) }).Append(s)
			rows = append(rows, &s)
		}
		whole := bd.NewArray()
		defer whole.Release()
		col := array.NewSlice(whole, int64(skip), int64(skip+n))
		defer col.Release()
		d := compute.NewDatum(col)
		defer d.Release()
		res, ok := likeColumn(mem, &plan, ci, not, d)
		if !ok {
			t.Fatal("no fast path for a text column")
		}
		defer res.Release()
		got := res.(*compute.ArrayDatum).MakeArray().(*array.Boolean)
		defer got.Release()
		for i := 0; i < n; i++ {
			r := rows[skip+i]
			if r == nil {
				if got.IsValid(i) || got.Value(i) {
					t.Fatalf("row %d: NULL text, got %v", i, got.GetOneForMarshal(i))
				}
				continue
			}
			text := *r
			if ci {
				text = strings.ToLower(text)
			}
			want, err := LikeMatch(text, prep)
			if err != nil {
				t.Fatal(err)
			}
			if got.IsNull(i) || got.Value(i) != (want != not) {
				t.Fatalf("%q LIKE %q (ci %v, not %v): got %v, want %v", *r, pat, ci, not, got.GetOneForMarshal(i), want != not)
			}
		}
	})
}
