package physexpr

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// substrTexts mix ASCII, multibyte characters, a byte that is not UTF-8
// and the empty string, so both of charRange's walks run.
var substrTexts = []string{"", "a", "hello", "héllo", "日本語テキスト", "ab\xffcd", "\xff", "13-555-0101", "éé", "x日"}

var substrBounds = []int64{math.MinInt64, -5, -1, 0, 1, 2, 3, 5, 9, math.MaxInt64 - 1, math.MaxInt64}

// TestSubstrConstMatchesRows runs the one-pass kernel and the row-by-row
// substr over a sliced column with NULLs for every pair of bounds (and
// every start alone): same strings, same NULLs, nothing left allocated.
// Taking one byte too many or too few for non-ASCII rows, or cutting the
// ASCII prefix at end rather than end-1, fails it.
func TestSubstrConstMatchesRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewStringBuilder(mem)
	b.Append("skipped by the slice")
	for i, s := range substrTexts {
		if i%4 == 3 {
			b.AppendNull()
		}
		b.Append(s)
	}
	whole := b.NewArray()
	b.Release()
	defer whole.Release()
	col := array.NewSlice(whole, 1, int64(whole.Len()))
	defer col.Release()
	for _, start := range substrBounds {
		check := func(ds []compute.Datum, name string) {
			t.Helper()
			fast, ok, err := substrConst(mem, ds)
			if err != nil || !ok {
				t.Fatalf("%s: fast path not taken (ok %v, err %v)", name, ok, err)
			}
			defer fast.Release()
			slow, err := substrRows(mem, col.Len(), ds)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			defer slow.Release()
			if !array.Equal(fast, slow) {
				t.Fatalf("%s:\nfast %v\nrows %v", name, fast, slow)
			}
		}
		ds := []compute.Datum{compute.NewDatum(col), compute.NewDatum(start)}
		defer ds[0].Release()
		check(ds, "substr(s, start)")
		for _, count := range substrBounds {
			if count < 0 {
				continue
			}
			ds3 := append(ds[:2:2], compute.NewDatum(count))
			check(ds3, "substr(s, start, count)")
		}
	}
}

// TestSubstrConstNegativeCount: a negative count leaves the fast path, so
// NULL rows alone raise nothing and a valid row raises ErrSubstring.
func TestSubstrConstNegativeCount(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewStringBuilder(mem)
	b.AppendNull()
	nulls := b.NewArray()
	b.Append("x")
	one := b.NewArray()
	b.Release()
	defer nulls.Release()
	defer one.Release()
	for _, c := range []struct {
		a       arrow.Array
		wantErr bool
	}{{nulls, false}, {one, true}} {
		d := compute.NewDatum(c.a)
		out, err := substrKernel(mem, c.a.Len(), []compute.Datum{d, compute.NewDatum(int64(1)), compute.NewDatum(int64(-1))})
		d.Release()
		if (err != nil) != c.wantErr {
			t.Fatalf("%v: err %v, want error %v", c.a, err, c.wantErr)
		}
		if out != nil {
			out.Release()
		}
	}
}

// FuzzSubstrRange checks charRange against substr for any bytes and
// bounds.
func FuzzSubstrRange(f *testing.F) {
	for _, s := range substrTexts {
		f.Add(s, int64(1), int64(2))
		f.Add(s, int64(-3), int64(5))
	}
	f.Add("abc", int64(math.MaxInt64), int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, s string, start, count int64) {
		if count < 0 {
			return
		}
		want, err := substr(s, start, count, true)
		if err != nil {
			t.Fatal(err)
		}
		first, end := max(start, 1), int64(math.MaxInt64)
		if start <= math.MaxInt64-count {
			end = start + count
		}
		from, to := charRange([]byte(s), first, end)
		if got := s[from:to]; got != want {
			t.Fatalf("substr(%q, %d, %d): charRange %q, substr %q", s, start, count, got, want)
		}
	})
}
