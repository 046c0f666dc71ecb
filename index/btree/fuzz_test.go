package btree

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stablerow/stablerow/internal/fuzzseed"
)

// pageSeeds are encoded pages of every kind and sequence form.
func pageSeeds() [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	run := []uint64{5, 6, 7, 8, 9, 10}
	random := make([]uint64, 40)
	for i := range random {
		random[i] = r.Uint64N(1 << 20)
	}
	sortedRandom := slices.Clone(random)
	slices.Sort(sortedRandom)
	addrs := make([]uint64, 6)
	for i := range addrs {
		addrs[i] = uint64(i%2)<<32 | uint64(100+i)
	}
	var seeds [][]byte
	seeds = append(seeds, encodePage(nil, pageInt, run, nil, addrs, nil))
	seeds = append(seeds, encodePage(nil, pageInt, sortedRandom, nil, random, nil))
	seeds = append(seeds, encodePage(nil, pageInt, []uint64{3, 3, 3, 3, 3, 3}, nil, addrs, nil))
	seeds = append(seeds, encodePage(nil, pageNull, nil, nil, addrs, nil))
	seeds = append(seeds, encodePage(nil, pageString, nil, []string{"", "a", "ab", "abc", "b", "b"}, addrs, nil))
	seeds = append(seeds, []byte{pageInt, 1, seqFOR, 0, 64, 1, 2, 3, 4, 5, 6, 7, 8, seqRuns, 1, 0, 1, seqRLE, 1, 9, 1})
	return seeds
}

func FuzzDecodePage(f *testing.F) {
	for _, s := range pageSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodePage(b)
		if err != nil {
			if !typed(err) {
				t.Fatalf("error not ErrCorrupt: %v", err)
			}
			return
		}
		// Every accessor stays in bounds, and re-encoding round-trips.
		addrs := make([]uint64, p.n)
		var ukeys []uint64
		for i := range addrs {
			addrs[i] = p.addr(i)
			if p.kind == pageInt {
				ukeys = append(ukeys, p.ukeys.at(i))
				_ = p.ukeys.lowerBound(ukeys[i])
			}
		}
		back, err := decodePage(encodePage(nil, p.kind, ukeys, p.skeys, addrs, nil))
		if err != nil {
			t.Fatalf("re-encoded page does not decode: %v", err)
		}
		for i := range addrs {
			if back.addr(i) != addrs[i] || p.kind == pageInt && back.ukeys.at(i) != ukeys[i] || p.kind == pageString && back.skeys[i] != p.skeys[i] {
				t.Fatalf("round trip changed entry %d", i)
			}
		}
	})
}

// lookupSeeds are lookup files of every key type.
func lookupSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, kc := range keyCases {
		lb, _ := corruptFixture(t.(*testing.T), kc)
		seeds = append(seeds, lb)
	}
	lb, _ := compositeFixture(t)
	return append(seeds, lb)
}

func FuzzOpen(f *testing.F) {
	// Seeds come from the committed corpus (testdata/fuzz/FuzzOpen), written
	// by TestWriteCorpus, because building them needs a *testing.T.
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := decodeLookup(b, -1)
		if err != nil {
			if !typed(err) {
				t.Fatalf("error not ErrCorrupt/ErrFormat: %v", err)
			}
			return
		}
		back, err := decodeLookup(l.encode(), l.pagesSize)
		if err != nil {
			t.Fatalf("re-encoded lookup does not decode: %v", err)
		}
		if !slices.Equal(back.pages, l.pages) || !slices.Equal(back.umin, l.umin) || !slices.Equal(back.smax, l.smax) || back.meta.Column != l.meta.Column || !slices.Equal(back.parts, l.parts) {
			t.Fatal("round trip changed the lookup")
		}
	})
}

func TestWriteCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzDecodePage", pageSeeds())
	fuzzseed.Write(t, "FuzzOpen", lookupSeeds(t))
}
