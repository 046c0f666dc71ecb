package btree

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stablerow/stablerow/table/store"
)

// TestMerge: runs trained over disjoint fragment groups (1, 2, 3 and 5 of
// them) merge into an index that answers every search as the reference
// over all entries does, and records the meta it was given.
func TestMerge(t *testing.T) {
	for _, kc := range keyCases {
		for _, nruns := range []int{1, 2, 3, 5} {
			t.Run(kc.name, func(t *testing.T) {
				mem := newMem(t)
				r := rand.New(rand.NewPCG(uint64(nruns), uint64(len(kc.name))))
				es := genEntries(r, kc, 700, 10)
				groups := make([][]refEntry, nruns)
				for _, e := range es {
					g := int(e.addr>>32) % nruns
					groups[g] = append(groups[g], e)
				}
				st := store.NewMemory()
				var runs []*Index
				for i, g := range groups {
					runs = append(runs, train(t, mem, st, "run"+string(rune('a'+i))+"/", kc, g, Options{PageRows: 5 + i}))
				}
				meta := Meta{Column: runs[0].Meta().Column, FragmentIDs: []uint32{0, 1, 2, 3, 4}, DatasetVersion: 12}
				ix, err := Merge(context.Background(), st, "merged/", runs, meta, Options{})
				if err != nil {
					t.Fatal(err)
				}
				checkIndex(t, mem, ix, &ref{kc, es}, r)
				if m := ix.Meta(); !slices.Equal(m.FragmentIDs, meta.FragmentIDs) || m.DatasetVersion != 12 {
					t.Fatalf("Meta = %+v", m)
				}
				if ix.Stats().Rows != len(es) {
					t.Fatalf("%d rows, want %d", ix.Stats().Rows, len(es))
				}
			})
		}
	}
}

func TestMergeErrors(t *testing.T) {
	mem := newMem(t)
	r := rand.New(rand.NewPCG(1, 2))
	st := store.NewMemory()
	a := train(t, mem, st, "a/", keyCases[0], genEntries(r, keyCases[0], 50, 0), Options{})
	s := train(t, mem, st, "s/", keyCases[3], genEntries(r, keyCases[3], 50, 0), Options{})
	if _, err := Merge(context.Background(), st, "m/", nil, Meta{}, Options{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("no runs: %v", err)
	}
	if _, err := Merge(context.Background(), st, "m/", []*Index{a, s}, a.Meta(), Options{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("mixed kinds: %v", err)
	}
	if _, err := Merge(context.Background(), st, "m/", []*Index{a}, Meta{Column: "other"}, Options{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("other column: %v", err)
	}
}
