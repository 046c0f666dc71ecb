package exec

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestFindWordsStaged checks the staged probe of a table big enough to
// take it (FuzzHashTable's tables are small and take the row-at-a-time
// loop) against findWord row by row: keys repeated in the build (chains),
// probes that hit, miss, and land on other keys' slots.
func TestFindWordsStaged(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	hashedJoinIndex(t) // the keys' narrow range would index them densely
	r := rand.New(rand.NewPCG(7, 8))
	const nb, np = 100_000, 30_000
	bb, pb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	for range nb {
		bb.Append(r.Int64N(3 * nb / 2)) // about 2/3 distinct: chains
	}
	for range np {
		pb.Append(r.Int64N(3 * nb)) // about half absent
	}
	build, probe := bb.NewArray(), pb.NewArray()
	bb.Release()
	pb.Release()
	defer build.Release()
	defer probe.Release()
	x := newKeyIndex([]arrow.Array{build}, nb)
	if len(x.table.slots) < stagedMinSlots {
		t.Fatalf("table of %d slots does not take the staged path", len(x.table.slots))
	}
	var p keyCols
	p.normalize([]arrow.Array{probe}, np)
	hashes, heads, _ := x.probe(&p, np, nil, nil, nil)
	hits := 0
	for i, h := range hashes {
		want := x.table.findWord(h, p.cols[0].w[i], x.keys.cols[0].w)
		if heads[i] != want {
			t.Fatalf("probe row %d (key %d): head %d, want %d", i, p.cols[0].w[i], heads[i], want)
		}
		if want >= 0 {
			hits++
			if x.keys.cols[0].w[want] != p.cols[0].w[i] {
				t.Fatalf("probe row %d: build row %d holds another key", i, want)
			}
		}
	}
	if hits == 0 || hits == np {
		t.Fatalf("%d of %d probe rows hit: the test wants both", hits, np)
	}
}
