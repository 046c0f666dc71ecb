package fragreuse_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/fragreuse"
	"github.com/stablerow/stablerow/table/store"
)

func newStore() store.Store { return store.NewMemory() }

const fragreuseDeleted = fragreuse.DeletedAddr

func fragreuseOpen(ctx context.Context, tb *table.Table, ts []table.Transition, since uint64) (*fragreuse.History, error) {
	return fragreuse.Open(ctx, tb.Store(), ts, since)
}

// TestModel runs random appends, deletes, compactions and reclusters (all
// deferring the remap) and, after every rewrite, translates the addresses
// of every earlier snapshot through the history since it.
func TestModel(t *testing.T) {
	seeds, steps := []uint64{1, 2, 3, 4}, 30
	if testing.Short() {
		seeds, steps = seeds[:3], 18
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			f := newFixture(t, seed, table.Options{MaxRowsPerFragment: 150, BatchRows: 16})
			f.appendRows(400)
			snaps := []snapshot{f.snapshot()}
			rewrites := 0
			for step := 0; step < steps; step++ {
				switch op := f.r.IntN(9); {
				case op == 8:
					// A delete commits between the rewrite's read and its
					// commit: the rewrite folds it onto its destinations.
					read := f.tb
					f.deleteSome(0.2)
					var err error
					if f.r.IntN(2) == 0 {
						f.tb, err = read.Compact(f.ctx, table.CompactOptions{TargetRows: 200, DeferIndexRemap: true, Mem: f.mem})
					} else {
						f.tb, err = read.Recluster(f.ctx, "k", table.ReclusterOptions{Destinations: 3, DeferIndexRemap: true, Mem: f.mem})
					}
					require.NoError(t, err)
					f.tb, err = f.tb.Latest(f.ctx) // Compact returns read when idle
					require.NoError(t, err)
					rewrites++
				case op < 2:
					f.appendRows(1 + f.r.IntN(300))
				case op < 4:
					f.deleteSome(f.r.Float64() * 0.4)
				case op < 6:
					var err error
					f.tb, err = f.tb.Compact(f.ctx, table.CompactOptions{TargetRows: 50 + f.r.IntN(300),
						MinDeletedFraction: f.r.Float64() * 0.5, DeferIndexRemap: true, Mem: f.mem})
					require.NoError(t, err)
					rewrites++
				default:
					o := table.ReclusterOptions{Destinations: 1 + f.r.IntN(6), DeferIndexRemap: true, Mem: f.mem}
					if ids := f.tb.FragmentIDs(); f.r.IntN(2) == 0 && len(ids) > 1 {
						lo := f.r.IntN(len(ids))
						o.Fragments = ids[lo : lo+1+f.r.IntN(len(ids)-lo)]
					}
					key := []string{"k", "s"}[f.r.IntN(2)]
					var err error
					f.tb, err = f.tb.Recluster(f.ctx, key, o)
					require.NoError(t, err)
					rewrites++
				}
				f.checkContent()
				for _, s := range snaps {
					f.checkTranslate(s)
				}
				if f.r.IntN(3) == 0 {
					snaps = append(snaps, f.snapshot())
				}
			}
			ts, err := f.tb.History()
			require.NoError(t, err)
			t.Logf("%d rewrites, %d transitions, %d fragments; translated %v (live, deleted later, deleted)", rewrites, len(ts), len(f.tb.Fragments()), f.seen)
			require.Positive(t, len(ts))
			for _, n := range f.seen {
				require.Positive(t, n)
			}
		})
	}
}
