package exec

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestPackedKeyIndex checks a two-column integer key packed into one word
// (then indexed densely or hashed) against the unpacked hash table's
// index, chain by chain: probe keys from the build, and keys with one
// column one past its range's ends (in range, the other column alone
// would collide with a build key's field), NULLs in either column.
func TestPackedKeyIndex(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(13, 14))
	for _, tc := range []struct {
		name          string
		alo, aspan    int64 // column a's build values: alo..alo+aspan-1
		blo, bspan    int64
		rows          int
		packed, dense bool
	}{
		{"partsupp-like", 1, 2000, 1, 100, 20_000, true, true},
		{"negative", -500, 1000, -50, 100, 3000, true, true},
		{"constant-column", 5, 1, 0, 1000, 2000, true, true},
		{"wide-hashed", 0, 1 << 30, -(1 << 20), 1 << 21, 5000, true, false},
		{"64-bits", math.MinInt64 / 2, 1 << 34, 0, 1 << 30, 2000, true, false},
		{"65-bits", math.MinInt64 / 2, 1<<34 + 1, 0, 1 << 30, 2000, false, false},
		{"over-64-bits", math.MinInt64, math.MaxInt64, 0, 4, 2000, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := make([]int64, tc.rows)
			b := make([]int64, tc.rows)
			for i := range a {
				a[i], b[i] = tc.alo+r.Int64N(tc.aspan), tc.blo+r.Int64N(tc.bspan)
				if i > 0 && r.IntN(4) == 0 { // a repeated key: a chain
					j := r.IntN(i)
					a[i], b[i] = a[j], b[j]
				}
			}
			// The ranges' ends are in the build.
			a[0], b[0] = tc.alo, tc.blo
			a[1], b[1] = tc.alo+tc.aspan-1, tc.blo+tc.bspan-1
			ab, bb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
			for i := range a {
				ab.Append(a[i])
				if i > 1 && i%11 == 0 {
					bb.AppendNull()
				} else {
					bb.Append(b[i])
				}
			}
			ahi, bhi := tc.alo+tc.aspan-1, tc.blo+tc.bspan-1
			type key struct{ a, b int64 }
			var probes []key
			for i := range a {
				probes = append(probes, key{a[i], b[i]}, key{a[i], bhi + 1}, key{a[i], tc.blo - 1}, key{ahi + 1, b[i]}, key{tc.alo - 1, b[i]})
			}
			for range 1000 {
				probes = append(probes, key{tc.alo + r.Int64N(tc.aspan), tc.blo + r.Int64N(tc.bspan)})
			}
			pa, pb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
			for i, k := range probes {
				switch i % 13 {
				case 5:
					pa.AppendNull()
					pb.Append(k.b)
				case 7:
					pa.Append(k.a)
					pb.AppendNull()
				default:
					pa.Append(k.a)
					pb.Append(k.b)
				}
			}
			build := []arrow.Array{ab.NewArray(), bb.NewArray()}
			probe := []arrow.Array{pa.NewArray(), pb.NewArray()}
			for _, x := range []array.Builder{ab, bb, pa, pb} {
				x.Release()
			}
			defer physexpr.ReleaseAll(build)
			defer physexpr.ReleaseAll(probe)

			x := newKeyIndex(build, tc.rows)
			if got := x.pack != nil; got != tc.packed {
				t.Fatalf("packed %v, want %v", got, tc.packed)
			}
			if got := x.dense != nil; got != tc.dense {
				t.Fatalf("dense %v, want %v", got, tc.dense)
			}
			old := denseJoinIndex
			denseJoinIndex = false
			y := newKeyIndex(build, tc.rows)
			denseJoinIndex = old
			var p, q keyCols
			p.normalize(probe, len(probes))
			q.normalize(probe, len(probes))
			_, got, _ := x.probe(&p, len(probes), nil, nil, nil)
			_, want, _ := y.probe(&q, len(probes), nil, nil, nil)
			hits := 0
			for i := range probes {
				var gc, wc []int32
				for m := got[i]; m >= 0; m = x.next[m] {
					gc = append(gc, m)
				}
				for m := want[i]; m >= 0; m = y.next[m] {
					wc = append(wc, m)
				}
				if !slices.Equal(gc, wc) {
					t.Fatalf("probe row %d (key %v): build rows %v, want %v", i, probes[i], gc, wc)
				}
				if len(wc) > 0 {
					hits++
				}
			}
			if hits == 0 || hits == len(probes) {
				t.Fatalf("%d of %d probe rows hit: the test wants both", hits, len(probes))
			}
		})
	}
}
