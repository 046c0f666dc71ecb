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

// TestDenseIndex checks the dense index against the hash table's index on
// the same build side, chain by chain, for probe keys at and around every
// edge: the range's ends and one past them, values that wrap (min-1, the
// int64 extremes), every key of the build with its duplicates, NULLs on
// both sides. It also checks which ranges take the dense index: the limit
// of denseBitsPerRow bits per row (or DenseMinSpan) and not one bit more.
func TestDenseIndex(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		name     string
		lo, span int64 // build keys are drawn from lo..lo+span-1
		rows     int
		dups     bool
		nulls    bool
		dense    bool
	}{
		{"tiny", 1, 200_000, 203, false, false, true},
		{"tiny-dups-nulls", 1, 200_000, 203, true, true, true},
		{"negative", -1000, 2000, 500, true, false, true},
		{"around-zero-int64-min", math.MinInt64, 100, 50, true, true, true},
		{"int64-max", math.MaxInt64 - 99, 100, 50, false, false, true},
		{"all-of-range", 5, 4096, 4096, false, false, true},
		{"min-span-limit", 0, physexpr.DenseMinSpan, 10, false, false, true},
		{"min-span-over", 0, physexpr.DenseMinSpan + 1, 10, false, false, false},
		{"per-row-limit", 7, denseBitsPerRow * 40_000, 40_000, false, false, true},
		{"per-row-over", 7, denseBitsPerRow*40_000 + 1, 40_000, false, false, false},
		{"wide", math.MinInt64, math.MaxInt64, 1000, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys := make([]int64, tc.rows)
			for i := range keys {
				keys[i] = tc.lo + r.Int64N(tc.span)
				if tc.dups && i > 0 && r.IntN(3) == 0 {
					keys[i] = keys[r.IntN(i)]
				}
			}
			// The range's ends are in the build, so the span is exact.
			keys[0], keys[len(keys)-1] = tc.lo, tc.lo+tc.span-1
			bb := array.NewInt64Builder(mem)
			for i, k := range keys {
				if tc.nulls && i > 0 && i < len(keys)-1 && r.IntN(5) == 0 {
					bb.AppendNull()
					continue
				}
				bb.Append(k)
			}
			build := bb.NewArray()
			bb.Release()
			defer build.Release()
			hi := tc.lo + tc.span - 1
			probeKeys := []int64{tc.lo, hi, tc.lo - 1, hi + 1, tc.lo + 1, hi - 1, math.MinInt64, math.MaxInt64, 0, -1, 1,
				tc.lo + tc.span/2, tc.lo - tc.span, hi + tc.span}
			for _, k := range keys {
				probeKeys = append(probeKeys, k, k+1, k-1)
			}
			for range 1000 {
				probeKeys = append(probeKeys, tc.lo+r.Int64N(tc.span))
			}
			pb := array.NewInt64Builder(mem)
			for i, k := range probeKeys {
				if tc.nulls && i%7 == 3 {
					pb.AppendNull()
					continue
				}
				pb.Append(k)
			}
			probe := pb.NewArray()
			pb.Release()
			defer probe.Release()

			x := newKeyIndex([]arrow.Array{build}, build.Len())
			if got := x.dense != nil; got != tc.dense {
				t.Fatalf("dense index %v, want %v", got, tc.dense)
			}
			old := denseJoinIndex
			denseJoinIndex = false
			y := newKeyIndex([]arrow.Array{build}, build.Len())
			denseJoinIndex = old
			var p keyCols
			p.normalize([]arrow.Array{probe}, probe.Len())
			_, got, _ := x.probe(&p, probe.Len(), nil, nil, nil)
			_, want, _ := y.probe(&p, probe.Len(), nil, nil, nil)
			hits := 0
			for i := range probeKeys {
				var gc, wc []int32
				for m := got[i]; m >= 0; m = x.next[m] {
					gc = append(gc, m)
				}
				for m := want[i]; m >= 0; m = y.next[m] {
					wc = append(wc, m)
				}
				if !slices.Equal(gc, wc) {
					t.Fatalf("probe row %d (key %d, NULL %v): build rows %v, want %v", i, probeKeys[i], probe.IsNull(i), gc, wc)
				}
				if len(wc) > 0 {
					hits++
				}
			}
			if hits == 0 || hits == len(probeKeys) {
				t.Fatalf("%d of %d probe rows hit: the test wants both", hits, len(probeKeys))
			}
		})
	}
}
