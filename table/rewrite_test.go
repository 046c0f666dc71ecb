package table_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// rwFixture is a table of many small fragments with random deletions.
func rwFixture(t *testing.T, seed uint64, appends int, mem memory.Allocator) (*table.Table, map[uint64]refRow, *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 5))
	tb, err := table.Create(ctx, store.NewMemory(), userSchema, table.Options{MaxRowsPerFragment: 120, BatchRows: 16})
	require.NoError(t, err)
	for range appends {
		b := rowsBatch(t, mem, genRows(r, 1+r.IntN(150)), nil)
		tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
		b.Release()
		require.NoError(t, err)
	}
	var del []uint64
	for id := range tb.Manifest().NextRowID {
		if r.IntN(4) == 0 {
			del = append(del, id)
		}
	}
	tb, _, err = tb.DeleteRowIDs(ctx, del)
	require.NoError(t, err)
	return tb, scanAll(t, tb, mem), r
}

// idsInOrder lists a fragment's live row ids in offset order.
func idsInOrder(f *table.Fragment) []uint64 {
	var out []uint64
	for o := range f.PhysicalRows {
		if f.IsLive(uint32(o)) {
			id, _ := f.RowIDs.Get(o)
			out = append(out, id)
		}
	}
	return out
}

// checkTransitions checks each transition of the newest version against
// the snapshot before it: sources as they were, destinations as they are,
// ordered ones holding the sources' live ids in order, stable partitions
// the same ids split into key-sorted destinations keeping source order.
func checkTransitions(t *testing.T, before, after *table.Table, key string, mem memory.Allocator) []table.Transition {
	t.Helper()
	ts, err := after.History()
	require.NoError(t, err)
	var mine []table.Transition
	for _, tr := range ts {
		if tr.Version > before.Version() {
			mine = append(mine, tr)
		}
	}
	for _, tr := range mine {
		require.Equal(t, after.Version(), tr.Version)
		var src []uint64
		for _, s := range tr.Sources {
			f := before.Manifest().Fragment(s.Fragment)
			require.NotNil(t, f)
			require.Nil(t, after.Manifest().Fragment(s.Fragment), "source %d still present", s.Fragment)
			require.Equal(t, f.PhysicalRows, s.PhysicalRows)
			require.True(t, f.Deletions.Equal(s.Deletions))
			src = append(src, idsInOrder(f)...)
		}
		var dst [][]uint64
		for _, d := range tr.Destinations {
			f := after.Manifest().Fragment(d.Fragment)
			require.NotNil(t, f)
			require.Equal(t, d.Rows, f.PhysicalRows)
			ids := make([]uint64, 0, f.PhysicalRows)
			ids = f.RowIDs.AppendTo(ids)
			dst = append(dst, ids)
		}
		switch tr.Kind {
		case table.TransitionOrdered:
			require.Equal(t, src, slices.Concat(dst...))
		case table.TransitionStablePartition:
			require.NotEmpty(t, tr.RowMap)
			_, err := after.Store().Size(context.Background(), tr.RowMap)
			require.NoError(t, err)
			// Each destination is a subsequence of the sources (source
			// order kept), and together they are a partition of them.
			pos := map[uint64]int{}
			for i, id := range src {
				pos[id] = i
			}
			n := 0
			for _, ids := range dst {
				for i := 1; i < len(ids); i++ {
					require.Less(t, pos[ids[i-1]], pos[ids[i]], "destination not in source order")
				}
				n += len(ids)
			}
			require.Equal(t, len(src), n)
			if key != "" {
				checkKeyRanges(t, after, tr, key, mem)
			}
		}
	}
	return mine
}

// checkKeyRanges: destination j's keys all sort before destination j+1's.
func checkKeyRanges(t *testing.T, tb *table.Table, tr table.Transition, key string, mem memory.Allocator) {
	t.Helper()
	var prevMax any
	for _, d := range tr.Destinations {
		sc, err := tb.Scan(context.Background(), table.ScanOptions{Columns: []string{key}, Fragments: []uint32{d.Fragment}, WithDeleted: true, Mem: mem})
		require.NoError(t, err)
		var keys []int64
		for sc.Next() {
			rows, err := exectest.Rows(sc.RecordBatch())
			require.NoError(t, err)
			for _, r := range rows {
				keys = append(keys, r[0].(int64))
			}
		}
		require.NoError(t, sc.Err())
		sc.Release()
		lo, hi := slices.Min(keys), slices.Max(keys)
		if prevMax != nil {
			require.Less(t, prevMax.(int64), lo, "destination %d overlaps its predecessor", d.Fragment)
		}
		prevMax = hi
	}
}

func TestCompact(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	for seed := range uint64(4) {
		tb, want, _ := rwFixture(t, seed, 12, mem)
		nt, err := tb.Compact(ctx, table.CompactOptions{TargetRows: 200, DeferIndexRemap: true, Mem: mem})
		require.NoError(t, err)
		require.Equal(t, want, scanAll(t, nt, mem))
		trs := checkTransitions(t, tb, nt, "", mem)
		require.NotEmpty(t, trs)
		require.Less(t, len(nt.Fragments()), len(tb.Fragments()))
		for _, tr := range trs {
			for _, d := range tr.Destinations {
				f := nt.Manifest().Fragment(d.Fragment)
				require.LessOrEqual(t, f.PhysicalRows, uint64(200))
				require.True(t, f.Deletions.IsEmpty())
			}
		}
		// Compacting again right away has nothing worth doing beyond the
		// leftover small tails; the content never changes.
		again, err := nt.Compact(ctx, table.CompactOptions{TargetRows: 200, DeferIndexRemap: true, Mem: mem})
		require.NoError(t, err)
		require.Equal(t, want, scanAll(t, again, mem))
		// Reopening from the store gives the same history.
		re, err := table.Open(ctx, nt.Store(), table.Options{})
		require.NoError(t, err)
		h1, err := re.History()
		require.NoError(t, err)
		h2, err := again.History()
		require.NoError(t, err)
		require.Equal(t, h2, h1)
	}
}

func TestCompactNothingToDo(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, err := table.Create(ctx, store.NewMemory(), userSchema, table.Options{MaxRowsPerFragment: 100})
	require.NoError(t, err)
	nt, err := tb.Compact(ctx, table.CompactOptions{Mem: mem})
	require.NoError(t, err)
	require.Same(t, tb, nt)
	b := rowsBatch(t, mem, genRows(rand.New(rand.NewPCG(1, 1)), 250), nil)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	// 100 + 100 + 50: one small fragment alone, no deletions: nothing to do.
	nt, err = tb.Compact(ctx, table.CompactOptions{Mem: mem})
	require.NoError(t, err)
	require.Same(t, tb, nt)
	// Deleting everything in a fragment removes it with no destination.
	f := tb.Fragments()[0]
	tb, _, err = tb.DeleteRowIDs(ctx, idsInOrder(f))
	require.NoError(t, err)
	nt, err = tb.Compact(ctx, table.CompactOptions{Mem: mem})
	require.NoError(t, err)
	require.Nil(t, nt.Manifest().Fragment(f.ID))
	require.Equal(t, tb.LiveRows(), nt.LiveRows())
}

func TestRecluster(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	for seed := range uint64(4) {
		tb, want, r := rwFixture(t, seed, 8, mem)
		nt, err := tb.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 1 + r.IntN(8), DeferIndexRemap: true, Mem: mem})
		require.NoError(t, err)
		require.Equal(t, want, scanAll(t, nt, mem))
		trs := checkTransitions(t, tb, nt, "k", mem)
		require.Len(t, trs, 1)
		// A subset of fragments, by a string key with NULLs.
		ids := nt.FragmentIDs()
		sub := ids[:max(1, len(ids)/2)]
		nt2, err := nt.Recluster(ctx, "name", table.ReclusterOptions{Destinations: 3, Fragments: sub, DeferIndexRemap: true, Mem: mem})
		require.NoError(t, err)
		require.Equal(t, want, scanAll(t, nt2, mem))
		trs = checkTransitions(t, nt, nt2, "", mem)
		require.Len(t, trs, 1)
		require.Equal(t, len(sub), len(trs[0].Sources))
	}
}

func TestReclusterErrors(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, _, _ := rwFixture(t, 1, 3, mem)
	_, err := tb.Recluster(ctx, "nope", table.ReclusterOptions{Mem: mem})
	require.ErrorIs(t, err, table.ErrInvalidArgument)
	id := tb.FragmentIDs()[0]
	_, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Fragments: []uint32{id, id}, Mem: mem})
	require.ErrorIs(t, err, table.ErrInvalidArgument)
	_, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Fragments: []uint32{9999}, Mem: mem})
	require.ErrorIs(t, err, table.ErrInvalidArgument)
}

// fakeIndex records an index over the current fragments (no files: the
// table only tracks coverage).
func fakeIndex(t *testing.T, tb *table.Table, name string, frags []uint32) *table.Table {
	t.Helper()
	nt, err := tb.CommitIndex(context.Background(), &table.IndexMeta{Name: name, Column: "_rowid", Kind: "btree",
		Prefix: "_indices/" + name + "/", Fragments: roaring.BitmapOf(frags...), DatasetVersion: tb.Version()}, false)
	require.NoError(t, err)
	return nt
}

func TestRewriteIndexCoverage(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, want, _ := rwFixture(t, 3, 10, mem)
	ids := tb.FragmentIDs()
	half := ids[:len(ids)/2]
	tb = fakeIndex(t, tb, "all", ids)
	tb = fakeIndex(t, tb, "half", half)

	// Deferred compaction never mixes fragments "half" covers with others,
	// and both indexes derive coverage of exactly the live fragments they
	// covered before.
	nt, err := tb.Compact(ctx, table.CompactOptions{TargetRows: 300, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	require.Equal(t, want, scanAll(t, nt, mem))
	ts, err := nt.History()
	require.NoError(t, err)
	require.NotEmpty(t, ts)
	for _, tr := range ts {
		in := 0
		for _, s := range tr.Sources {
			if slices.Contains(half, s.Fragment) {
				in++
			}
		}
		require.Contains(t, []int{0, len(tr.Sources)}, in, "transition mixes covered and uncovered fragments")
	}
	require.True(t, nt.Index("all").Fragments.Equals(tb.Index("all").Fragments), "deferred: bitmap unchanged")
	all := table.DerivedCoverage(nt.Index("all"), ts)
	require.Equal(t, nt.FragmentIDs(), all.ToArray())
	hc := table.DerivedCoverage(nt.Index("half"), ts)
	for _, id := range nt.FragmentIDs() {
		// A live fragment is covered by "half" iff its rows came from half.
		f := nt.Manifest().Fragment(id)
		first, _ := f.RowIDs.Get(0)
		addr, _ := tb.Locate([]uint64{first})
		require.Equal(t, slices.Contains(half, rowid.Address(addr[0]).Fragment()), hc.Contains(id), "fragment %d", id)
	}

	// A deferred recluster across the "half" boundary records the
	// transition for "all" (which derives coverage of the destinations)
	// and drops the sources from "half", which covers only some of them.
	nt2, err := nt.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 2, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	require.Equal(t, want, scanAll(t, nt2, mem))
	ts2, err := nt2.History()
	require.NoError(t, err)
	require.Len(t, ts2, len(ts)+1)
	require.Equal(t, nt2.FragmentIDs(), table.DerivedCoverage(nt2.Index("all"), ts2).ToArray())
	require.True(t, table.DerivedCoverage(nt2.Index("half"), ts2).IsEmpty())
	require.True(t, nt2.Index("all").Fragments.Equals(tb.Index("all").Fragments))

	// Without deferring, the sources leave every bitmap and no history is
	// recorded.
	nt3, err := nt2.Compact(ctx, table.CompactOptions{TargetRows: 10000, MinDeletedFraction: 2, Mem: mem})
	require.NoError(t, err)
	if nt3 != nt2 {
		ts3, err := nt3.History()
		require.NoError(t, err)
		require.Equal(t, ts2, ts3)
	}
	nt4, err := nt3.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 2, Mem: mem})
	require.NoError(t, err)
	require.Equal(t, want, scanAll(t, nt4, mem))
	ts4, err := nt4.History()
	require.NoError(t, err)
	require.Len(t, ts4, len(ts2))
	for _, name := range []string{"all", "half"} {
		cov := table.DerivedCoverage(nt4.Index(name), ts4)
		for _, id := range nt4.FragmentIDs() {
			require.False(t, cov.Contains(id), "%s still covers %d", name, id)
		}
	}
}

// TestRewriteConcurrentDelete: a delete committed between a rewrite's read
// and its commit is folded onto the destinations (ordered: by rank;
// stable partition: through the rowmap), so nothing is resurrected.
func TestRewriteConcurrentDelete(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	for _, kind := range []string{"compact", "recluster"} {
		t.Run(kind, func(t *testing.T) {
			for seed := range uint64(3) {
				t0, want, r := rwFixture(t, seed, 8, mem)
				var del []uint64
				for id := range want {
					if r.IntN(5) == 0 {
						del = append(del, id)
					}
				}
				t1, n, err := t0.DeleteRowIDs(ctx, del)
				require.NoError(t, err)
				require.Equal(t, uint64(len(del)), n)
				var t2 *table.Table
				if kind == "compact" {
					t2, err = t0.Compact(ctx, table.CompactOptions{TargetRows: 250, DeferIndexRemap: true, Mem: mem})
				} else {
					t2, err = t0.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 3, DeferIndexRemap: true, Mem: mem})
				}
				require.NoError(t, err)
				require.Greater(t, t2.Version(), t1.Version())
				for _, id := range del {
					delete(want, id)
				}
				require.Equal(t, want, scanAll(t, t2, mem))
				require.Equal(t, t1.LiveRows(), t2.LiveRows())
				// The transitions record what the rewrite read (t0).
				trs := checkTransitionsAgainst(t, t0, t2)
				require.NotEmpty(t, trs)
			}
		})
	}
}

// checkTransitionsAgainst checks the newest transitions' sources against
// the snapshot the rewrite read.
func checkTransitionsAgainst(t *testing.T, read, after *table.Table) []table.Transition {
	ts, err := after.History()
	require.NoError(t, err)
	var mine []table.Transition
	for _, tr := range ts {
		if tr.Version == after.Version() {
			mine = append(mine, tr)
			for _, s := range tr.Sources {
				f := read.Manifest().Fragment(s.Fragment)
				require.True(t, f.Deletions.Equal(s.Deletions))
			}
		}
	}
	return mine
}

func TestRewriteConflicts(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	t0, want, _ := rwFixture(t, 7, 10, mem)
	ids := t0.FragmentIDs()
	a, b := ids[:len(ids)/2], ids[len(ids)/2:]

	// Disjoint rewrites from one snapshot both commit.
	t1, err := t0.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 2, Fragments: a, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	t2, err := t0.Recluster(ctx, "score", table.ReclusterOptions{Destinations: 2, Fragments: b, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	require.Greater(t, t2.Version(), t1.Version())
	require.Equal(t, want, scanAll(t, t2, mem))
	ts, err := t2.History()
	require.NoError(t, err)
	require.Len(t, ts, 2)

	// Overlapping ones: the second fails cleanly and leaves no trace.
	_, err = t0.Compact(ctx, table.CompactOptions{TargetRows: 1000, DeferIndexRemap: true, Mem: mem})
	require.ErrorIs(t, err, table.ErrConflict)
	latest, err := t2.Latest(ctx)
	require.NoError(t, err)
	require.Equal(t, want, scanAll(t, latest, mem))
	ts2, err := latest.History()
	require.NoError(t, err)
	require.Equal(t, ts, ts2)

	// A delete of rows the rewrite moved, from a snapshot before it, is
	// rebased: the rows are found again by row id where the rewrite put them.
	var some []uint64
	for id := range want {
		some = append(some, id)
		break
	}
	after, n, err := t0.DeleteRowIDs(ctx, some)
	require.NoError(t, err)
	require.Equal(t, uint64(1), n)
	delete(want, some[0])
	require.Equal(t, want, scanAll(t, after, mem))
}

// TestTrimHistory: a transition stays while an index built before it
// covers one of its sources, and goes once the index is rebuilt after it;
// an index covering none of its sources never pins it.
func TestTrimHistory(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, want, _ := rwFixture(t, 11, 8, mem)
	ids := tb.FragmentIDs()
	tb = fakeIndex(t, tb, "first", ids[:1])
	tb = fakeIndex(t, tb, "rest", ids[1:])
	// Compact the "rest" fragments only (two coverage groups), then the
	// transitions: one pinned by "first", the others by "rest".
	nt, err := tb.Compact(ctx, table.CompactOptions{TargetRows: 10000, MinDeletedFraction: 0.01, DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	ts, err := nt.History()
	require.NoError(t, err)
	require.NotEmpty(t, ts)
	same, err := nt.TrimHistory(ctx)
	require.NoError(t, err)
	require.Same(t, nt, same, "every transition is pinned")

	// Rebuild "rest" after the rewrite: only transitions whose sources
	// "first" covered stay.
	nt, err = nt.CommitIndex(ctx, &table.IndexMeta{Name: "rest", Column: "_rowid", Kind: "btree", Prefix: "_indices/rest2/",
		Fragments: roaring.BitmapOf(nt.FragmentIDs()...), DatasetVersion: nt.Version()}, true)
	require.NoError(t, err)
	trimmed, err := nt.TrimHistory(ctx)
	require.NoError(t, err)
	kept, err := trimmed.History()
	require.NoError(t, err)
	require.NotEmpty(t, kept)
	require.Less(t, len(kept), len(ts))
	for _, tr := range ts {
		hasFirst := slices.ContainsFunc(tr.Sources, func(s table.TransitionSource) bool { return s.Fragment == ids[0] })
		require.Equal(t, hasFirst, slices.ContainsFunc(kept, func(k table.Transition) bool {
			return k.Version == tr.Version && k.Sources[0].Fragment == tr.Sources[0].Fragment
		}))
	}
	require.Equal(t, want, scanAll(t, trimmed, mem))
}
