package table

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/stablerow/stablerow/rowmap"
	"github.com/stablerow/stablerow/table/deletion"
)

// The rewrite commit: reserving destination ids, writing the rowmap,
// swapping sources for destinations on the latest manifest (folding
// concurrent deletes, checking conservation) and index coverage.

// reserveFragmentIDs commits a version that only advances NextFragmentID
// by n and returns the first id reserved.
func (t *Table) reserveFragmentIDs(ctx context.Context, n int) (uint32, *Table, error) {
	var first uint32
	nt, err := t.commit(ctx, &txn{kind: "reserve", base: t.m, detail: fmt.Sprintf("%d fragment ids", n),
		mutate: func(_, next *Manifest) error {
			if uint64(next.NextFragmentID)+uint64(n) >= math.MaxUint32 {
				return errorf(ErrInvalidArgument, "fragment ids exhausted")
			}
			first = next.NextFragmentID
			next.NextFragmentID += uint32(n)
			return nil
		}})
	return first, nt, err
}

// commitRewrite reserves destination ids, records the transitions (and the
// rowmaps of stable partitions) and commits the swap.
func (t *Table) commitRewrite(ctx context.Context, groups []*rewriteGroup, deferRemap bool, detail string) (_ *Table, err error) {
	ctx, end := holdIntent(ctx, t.st, "rewrite commit") // covers the row maps
	defer end(&err)
	n := 0
	for _, g := range groups {
		n += len(g.dests)
	}
	// The rewrite commits on top of the reservation: its mutate hook, not
	// the summaries of the versions in between, decides conflicts (it
	// compares every source with the fragment that was read).
	var first uint32
	base := t
	if n > 0 {
		var err error
		if first, base, err = t.reserveFragmentIDs(ctx, n); err != nil {
			return nil, err
		}
	}
	next := first
	for _, g := range groups {
		g.tr = Transition{Kind: g.kind}
		for _, f := range g.sources {
			s, err := newTransitionSource(f)
			if err != nil {
				return nil, err
			}
			g.tr.Sources = append(g.tr.Sources, s)
		}
		for _, d := range g.dests {
			g.tr.Destinations = append(g.tr.Destinations, TransitionDest{Fragment: next, Rows: d.rows})
			next++
		}
		if g.kind == TransitionStablePartition {
			if err := t.writeRowMap(ctx, g); err != nil {
				return nil, err
			}
		}
	}
	var removed []uint32
	for _, g := range groups {
		for _, src := range g.tr.Sources {
			removed = append(removed, src.Fragment)
		}
	}
	tx := &txn{kind: "rewrite", base: base.m, detail: detail, removed: removed,
		mutate: func(latest, nm *Manifest) error {
			return applyRewrite(latest, nm, groups, deferRemap)
		}}
	return t.commit(ctx, tx)
}

// writeRowMap records g's labels against the reserved destination ids.
func (t *Table) writeRowMap(ctx context.Context, g *rewriteGroup) error {
	dests := make([]uint32, len(g.tr.Destinations))
	totals := make([]uint32, len(dests))
	for i, d := range g.tr.Destinations {
		dests[i], totals[i] = d.Fragment, uint32(d.Rows)
	}
	srcs := make([]rowmap.SourceFragment, len(g.sources))
	for i, f := range g.sources {
		srcs[i] = rowmap.SourceFragment{PhysicalRows: f.PhysicalRows, Deleted: f.Deletions.Bitmap()}
	}
	w, err := rowmap.NewWriter(dests, srcs, rowmap.WriterOptions{ExpectedTotals: totals})
	if err != nil {
		return fmt.Errorf("%w: recluster: %w", ErrConservation, err)
	}
	if err := w.Append(g.labels); err != nil {
		return fmt.Errorf("%w: recluster: %w", ErrConservation, err)
	}
	b, err := w.Finish()
	if err != nil {
		return fmt.Errorf("%w: recluster: %w", ErrConservation, err)
	}
	path := "_rowmaps/" + NewID() + ".rowmap"
	if g.rm, err = rowmap.OpenNamed(rowmap.BytesSource(b), path); err != nil {
		return fmt.Errorf("table: recluster: reopen rowmap: %w", err)
	}
	if err := coverFile(ctx, path); err != nil {
		return err
	}
	if err := t.st.Put(ctx, path, b); err != nil {
		return fmt.Errorf("table: store rowmap: %w", err)
	}
	g.tr.RowMap = path
	return nil
}

// applyRewrite is the rewrite's mutate hook: it runs on every commit
// attempt against the newest manifest.
func applyRewrite(latest, next *Manifest, groups []*rewriteGroup, deferRemap bool) error {
	removed := map[uint32]bool{}
	var trs []Transition
	for _, g := range groups {
		tr := g.tr
		tr.Version = next.Version
		folded, err := foldConcurrentDeletes(next, g)
		if err != nil {
			return err
		}
		if got, want := tr.DestinationRows(), tr.SourceLiveRows(); got != want {
			return errorf(ErrConservation, "rewrite writes %d rows for %d live source rows", got, want)
		}
		for _, s := range tr.Sources {
			removed[s.Fragment] = true
		}
		for i, d := range g.dests {
			if d.keptIDs == nil || d.keptIDs.Len() != d.rows || d.rows != tr.Destinations[i].Rows {
				return errorf(ErrConservation, "destination %d: %d rows, row ids for %d", tr.Destinations[i].Fragment, d.rows, d.keptIDs.Len())
			}
			next.Fragments = append(next.Fragments, &Fragment{ID: tr.Destinations[i].Fragment, DataFile: d.dataFile, File: d.file,
				PhysicalRows: d.rows, BatchRows: d.batchRows, RowIDs: d.keptIDs, Deletions: folded[i]})
			if tr.Destinations[i].Fragment >= next.NextFragmentID {
				return errorf(ErrConservation, "destination id %d was not reserved", tr.Destinations[i].Fragment)
			}
		}
		trs = append(trs, tr)
	}
	next.Fragments = slices.DeleteFunc(next.Fragments, func(f *Fragment) bool { return removed[f.ID] })
	slices.SortFunc(next.Fragments, func(a, b *Fragment) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(next.Fragments); i++ {
		if next.Fragments[i].ID == next.Fragments[i-1].ID {
			return errorf(ErrConflict, "destination fragment %d already exists", next.Fragments[i].ID)
		}
	}
	if got, want := next.LiveRows(), latest.LiveRows(); got != want {
		return errorf(ErrConservation, "rewrite: %d live rows after commit, %d before", got, want)
	}
	hist, err := decodeHistory(latest.Extra)
	if err != nil {
		return err
	}
	if err := updateCoverage(next, hist, trs, deferRemap); err != nil {
		return err
	}
	if deferRemap {
		if next.Extra, err = appendHistory(latest, trs); err != nil {
			return err
		}
	}
	return nil
}

// foldConcurrentDeletes checks that g's sources are still the fragments the
// rewrite read and returns, per destination, the deletion vector that
// carries over the rows deleted on the sources since then.
func foldConcurrentDeletes(m *Manifest, g *rewriteGroup) ([]*deletion.Vector, error) {
	var extra []*roaring.Bitmap // per destination
	var livePrefix, physPrefix uint64
	for i, s := range g.tr.Sources {
		f := m.Fragment(s.Fragment)
		read := g.sources[i]
		if f == nil {
			return nil, errorf(ErrConflict, "fragment %d was removed by a concurrent commit", s.Fragment)
		}
		if f.DataFile != read.DataFile || f.PhysicalRows != read.PhysicalRows {
			return nil, errorf(ErrConflict, "fragment %d was replaced by a concurrent commit", s.Fragment)
		}
		if !f.Deletions.Equal(s.Deletions) {
			now, was := f.Deletions.Bitmap(), s.Deletions.Bitmap()
			if was != nil && (now == nil || roaring.AndNot(was, now).GetCardinality() > 0) {
				return nil, errorf(ErrConflict, "fragment %d lost deletions concurrently", s.Fragment)
			}
			fresh := now.Clone()
			if was != nil {
				fresh.AndNot(was)
			}
			if extra == nil {
				extra = make([]*roaring.Bitmap, len(g.tr.Destinations))
			}
			if err := foldSource(g, s, fresh, livePrefix, physPrefix, extra); err != nil {
				return nil, err
			}
		}
		livePrefix += s.LiveRows()
		physPrefix += s.PhysicalRows
	}
	out := make([]*deletion.Vector, len(g.tr.Destinations))
	for j, bm := range extra {
		out[j] = deletion.FromBitmap(bm)
	}
	return out, nil
}

// foldSource maps the offsets newly deleted in source s onto destination
// rows: by rank for an ordered transition, through the rowmap for a stable
// partition.
func foldSource(g *rewriteGroup, s TransitionSource, fresh *roaring.Bitmap, livePrefix, physPrefix uint64, extra []*roaring.Bitmap) error {
	add := func(j int, off uint32) {
		if extra[j] == nil {
			extra[j] = roaring.New()
		}
		extra[j].Add(off)
	}
	offs := fresh.ToArray()
	switch g.tr.Kind {
	case TransitionOrdered:
		starts := make([]uint64, len(g.tr.Destinations)+1)
		for j, d := range g.tr.Destinations {
			starts[j+1] = starts[j] + d.Rows
		}
		was := s.Deletions.Bitmap()
		for _, o := range offs {
			p := livePrefix + uint64(o)
			if was != nil {
				p -= was.Rank(o) // o is live in was, so Rank counts the deletions before it
			}
			j, _ := slices.BinarySearch(starts, p+1)
			j--
			if j < 0 || j >= len(g.tr.Destinations) {
				return errorf(ErrConservation, "fold: row %d of fragment %d maps past the destinations", o, s.Fragment)
			}
			add(j, uint32(p-starts[j]))
		}
	case TransitionStablePartition:
		rows := make([]uint64, len(offs))
		for i, o := range offs {
			rows[i] = physPrefix + uint64(o)
		}
		res := make([]rowmap.Translation, len(rows))
		if err := g.rm.TranslateMany(rows, res); err != nil {
			return fmt.Errorf("%w: fold through rowmap: %w", ErrConservation, err)
		}
		for i, r := range res {
			if r.Deleted {
				return errorf(ErrConservation, "fold: live row %d of fragment %d is deleted in the rowmap", offs[i], s.Fragment)
			}
			add(int(r.Dest), r.Offset)
		}
	}
	return nil
}

// updateCoverage keeps index coverage exact across the rewrite. Deferred,
// an index that covers all sources of a transition keeps its bitmap (it
// covers the destinations by derivation). Otherwise (not deferred, or an
// index covering only some of the sources, whose rows now share
// destinations with rows it never indexed) the sources leave the index's
// bitmap: the index no longer answers for those rows and the unindexed
// fallback finds them.
func updateCoverage(next *Manifest, hist, trs []Transition, deferRemap bool) error {
	for i, ix := range next.Indexes {
		cov := DerivedCoverage(ix, hist)
		var drop []uint32
		for _, tr := range trs {
			n := 0
			for _, s := range tr.Sources {
				if cov.Contains(s.Fragment) {
					n++
				}
			}
			if n > 0 && (!deferRemap || n < len(tr.Sources)) {
				for _, s := range tr.Sources {
					drop = append(drop, s.Fragment)
				}
			}
		}
		if len(drop) > 0 && ix.Fragments != nil {
			c := *ix
			c.Fragments = ix.Fragments.Clone()
			for _, id := range drop {
				c.Fragments.Remove(id)
			}
			next.Indexes[i] = &c
		}
	}
	return nil
}

// DerivedCoverage is the set of fragments an index covers after the
// transitions of history newer than the index: one covering all sources of
// a transition covers its destinations; sources of a transition it covers
// only partly are no longer covered (their rows moved to fragments the
// index cannot claim, so its entries for them must be ignored).
//
// The table uses it to keep coverage exact across its own commits
// (rewrites, compaction planning, history trimming). Outside package table
// only package access may call it: access owns which index address is
// valid now (TestLayering there enforces this).
func DerivedCoverage(ix *IndexMeta, history []Transition) *roaring.Bitmap {
	cov := roaring.New()
	if ix.Fragments != nil {
		cov = ix.Fragments.Clone()
	}
	for _, tr := range history {
		if tr.Version <= ix.DatasetVersion {
			continue
		}
		all, some := true, false
		for _, s := range tr.Sources {
			if cov.Contains(s.Fragment) {
				some = true
			} else {
				all = false
			}
		}
		if !some {
			continue
		}
		for _, s := range tr.Sources {
			cov.Remove(s.Fragment)
		}
		if all {
			for _, d := range tr.Destinations {
				cov.Add(d.Fragment)
			}
		}
	}
	return cov
}
