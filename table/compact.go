package table

import (
	"context"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table/rowid"
)

// Compaction: order-preserving rewrites of runs of small or
// deletion-heavy fragments (see rewrite.go for the commit protocol).

// Compact merges runs of adjacent small or deletion-heavy fragments into
// fragments of TargetRows, keeping row order and row ids (a destination's
// row ids are its sources' live ids in order). Fragments are grouped only
// with neighbours that every index covers alike, so each transition is
// covered entirely or not at all. It returns t itself when there is nothing
// to compact.
//
// It is the plan / task / commit path of compact_tasks.go run in this
// process: each run of fragments is one task, executed on up to
// o.Workers goroutines, and all of them commit together.
func (t *Table) Compact(ctx context.Context, o CompactOptions) (_ *Table, err error) {
	// One intent for every task and the commit, so the files stay covered
	// until they are published.
	ctx, end := holdIntent(ctx, t.st, "compact")
	defer end(&err)
	o = o.withDefaults(t)
	plan, err := t.PlanCompaction(o)
	if err != nil {
		return nil, err
	}
	if len(plan.Tasks) == 0 {
		return t, nil
	}
	return runLocal(ctx, t, plan.Tasks, o.Workers,
		func(ctx context.Context, k *CompactTask) (*CompactResult, error) {
			return t.ExecuteCompaction(ctx, k, o.Mem)
		},
		func(results []*CompactResult) (*Table, error) { return t.CommitCompaction(ctx, plan, results) })
}

// coverageKey says which indexes cover fragment id (directly or through the
// history), so that compaction never mixes covered and uncovered rows.
func coverageKey(cov []*roaring.Bitmap, id uint32) string {
	k := make([]byte, len(cov))
	for i, c := range cov {
		if c.Contains(id) {
			k[i] = 1
		}
	}
	return string(k)
}

func (t *Table) planCompaction(o CompactOptions) ([][]*Fragment, error) {
	hist, err := t.History()
	if err != nil {
		return nil, err
	}
	cov := make([]*roaring.Bitmap, len(t.m.Indexes))
	for i, ix := range t.m.Indexes {
		cov[i] = DerivedCoverage(ix, hist)
	}
	candidate := func(f *Fragment) bool {
		if f.PhysicalRows == 0 {
			return false
		}
		dead := float64(f.Deletions.Cardinality()) / float64(f.PhysicalRows)
		return f.LiveRows() < uint64(o.TargetRows) || (dead > 0 && dead >= o.MinDeletedFraction)
	}
	worth := func(run []*Fragment) bool {
		if len(run) > 1 {
			return true
		}
		f := run[0]
		return f.Deletions.Cardinality() > 0 && float64(f.Deletions.Cardinality())/float64(f.PhysicalRows) >= o.MinDeletedFraction
	}
	var plan [][]*Fragment
	var run []*Fragment
	var key string
	flush := func() {
		if len(run) > 0 && worth(run) {
			plan = append(plan, run)
		}
		run = nil
	}
	for _, f := range t.m.Fragments {
		if !candidate(f) {
			flush()
			continue
		}
		if k := coverageKey(cov, f.ID); len(run) == 0 || k != key {
			flush()
			key = k
		}
		run = append(run, f)
	}
	flush()
	return plan, nil
}

// writeOrdered copies the live rows of g's sources, in order, into data
// files of at most target rows.
func (t *Table) writeOrdered(ctx context.Context, g *rewriteGroup, target int, mem memory.Allocator) error {
	var ids []uint64
	for _, f := range g.sources {
		ids = liveIDs(ids, f)
	}
	fw := t.newFragmentWriter(ctx, mem)
	fw.maxRows = target
	if len(ids) > 0 {
		sc, err := t.Scan(ctx, ScanOptions{Columns: t.userColumns(), Fragments: fragmentIDs(g.sources), Mem: mem})
		if err != nil {
			return err
		}
		for sc.Next() {
			if err := fw.write(sc.RecordBatch()); err != nil {
				sc.Release()
				fw.abort()
				return err
			}
		}
		err = sc.Err()
		sc.Release()
		if err != nil {
			fw.abort()
			return err
		}
	}
	dests, err := fw.finish()
	if err != nil {
		fw.abort()
		return err
	}
	g.dests = dests
	return assignIDs(g.dests, ids)
}

// assignIDs gives each destination its run of ids, checking that the rows
// written are exactly the live source rows.
func assignIDs(dests []newFragment, ids []uint64) error {
	off := 0
	for i := range dests {
		n := int(dests[i].rows)
		if off+n > len(ids) {
			return errorf(ErrConservation, "rewrite wrote more rows than the %d live source rows", len(ids))
		}
		dests[i].keptIDs = rowid.NewSequence(ids[off : off+n])
		off += n
	}
	if off != len(ids) {
		return errorf(ErrConservation, "rewrite wrote %d rows for %d live source rows", off, len(ids))
	}
	return nil
}
