package radix

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// pair is a key and the payload SortKeyed moves with it.
type pair struct {
	k uint64
	p int32
}

// TestSortKeyed compares SortKeyed with a stable comparison sort of the
// (key, payload) pairs by key, across the insertion-sort cut (64 keys),
// keys that share some or all bytes (skipped passes), full 64-bit keys,
// and scratch buffers too short, long enough, and longer than needed.
func TestSortKeyed(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{0, 1, 2, 63, 64, 65, 1000, 100_000} {
		for _, spread := range []uint64{1, 3, 1 << 24, 1<<64 - 1} {
			for _, scratch := range []int{0, n, n + 7} {
				base := r.Uint64() // shared high bytes when spread is small
				ps := make([]pair, n)
				for i := range ps {
					ps[i] = pair{base&^(1<<40-1) | r.Uint64N(spread), int32(i)}
					if spread == 1<<64-1 {
						ps[i].k = r.Uint64()
					}
				}
				want := slices.Clone(ps)
				slices.SortStableFunc(want, func(a, b pair) int { return cmp.Compare(a.k, b.k) })
				keys, pay := make([]uint64, n), make([]int32, n)
				for i, p := range ps {
					keys[i], pay[i] = p.k, p.p
				}
				SortKeyedBuf(keys, pay, make([]uint64, scratch), make([]int32, scratch))
				for i := range want {
					if keys[i] != want[i].k || pay[i] != want[i].p {
						t.Fatalf("n %d spread %d scratch %d: position %d is (%d, %d), want (%d, %d)",
							n, spread, scratch, i, keys[i], pay[i], want[i].k, want[i].p)
					}
				}
			}
		}
	}
}

// TestSortPairs: (key, value) order, against a comparison sort, with
// many equal keys so the value order matters.
func TestSortPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for _, n := range []int{0, 1, 50, 5000} {
		keys, vals := make([]uint64, n), make([]uint64, n)
		for i := range keys {
			keys[i], vals[i] = r.Uint64N(17), r.Uint64()
		}
		type kv struct{ k, v uint64 }
		want := make([]kv, n)
		for i := range want {
			want[i] = kv{keys[i], vals[i]}
		}
		slices.SortFunc(want, func(a, b kv) int {
			if c := cmp.Compare(a.k, b.k); c != 0 {
				return c
			}
			return cmp.Compare(a.v, b.v)
		})
		SortPairs(keys, vals)
		for i := range want {
			if keys[i] != want[i].k || vals[i] != want[i].v {
				t.Fatalf("n %d: position %d is (%d, %d), want (%d, %d)", n, i, keys[i], vals[i], want[i].k, want[i].v)
			}
		}
	}
}

// FuzzSortKeyed checks SortKeyed against a stable comparison sort on
// fuzzed keys (the payload is the input position).
func FuzzSortKeyed(f *testing.F) {
	f.Add([]byte{9, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		n := len(b) / 2
		keys, pay := make([]uint64, n), make([]int32, n)
		want := make([]pair, n)
		for i := range keys {
			// two bytes a key, spread over the word: passes both taken and skipped
			keys[i] = uint64(b[2*i])<<48 | uint64(b[2*i+1])
			pay[i] = int32(i)
			want[i] = pair{keys[i], int32(i)}
		}
		slices.SortStableFunc(want, func(a, b pair) int { return cmp.Compare(a.k, b.k) })
		SortKeyed(keys, pay)
		for i := range want {
			if keys[i] != want[i].k || pay[i] != want[i].p {
				t.Fatalf("position %d is (%d, %d), want (%d, %d)", i, keys[i], pay[i], want[i].k, want[i].p)
			}
		}
	})
}
