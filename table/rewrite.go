package table

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/rowmap"
)

// Rewrites (Compact, Recluster) replace source fragments by destination
// fragments holding the same live rows with the same row ids. They commit
// in two steps:
//
//  1. the destination data files are written, then a "reserve" commit takes
//     the destination fragment ids (the rowmap records them, so they must be
//     known before the rewrite commits and must not change on rebase);
//  2. the "rewrite" commit swaps sources for destinations through the txn's
//     mutate hook, which checks that every source is still the fragment that
//     was read (ErrConflict otherwise), folds deletions committed
//     concurrently on the sources onto the destinations, checks
//     conservation and records the transitions.
//
// With DeferIndexRemap the transitions join the fragment reuse history
// (History) and index coverage is left alone: an index covering all sources
// of a transition covers its destinations (DerivedCoverage), its stale
// addresses translated by table/fragreuse. Without it, the sources leave
// the coverage of every index, whose rows there are then found by the
// unindexed fallback until the index is rebuilt.

// CompactOptions tune Compact.
type CompactOptions struct {
	// TargetRows is the row count of destination fragments; fragments with
	// fewer live rows are "small" (default: Options.MaxRowsPerFragment).
	TargetRows int
	// MinDeletedFraction: a fragment with at least this fraction of its
	// physical rows deleted is rewritten even alone (default 0.1; above 1
	// disables).
	MinDeletedFraction float64
	// DeferIndexRemap records the transitions in the fragment reuse history
	// instead of dropping the sources from index coverage; indexes then
	// keep answering through the history until OPTIMIZE INDEX (package
	// access) folds it in.
	DeferIndexRemap bool
	// Mem allocates scan and write buffers (nil: memory.DefaultAllocator).
	Mem memory.Allocator
	// Workers is the number of tasks executed at once (default 1).
	Workers int
}

// ReclusterOptions tune Recluster.
type ReclusterOptions struct {
	// Destinations is the number of destination fragments (default: live
	// rows / Options.MaxRowsPerFragment, rounded up). Fewer are written when
	// there are fewer distinct keys.
	Destinations int
	// Fragments are the sources (nil: every fragment with rows).
	Fragments []uint32
	// DeferIndexRemap: as in CompactOptions.
	DeferIndexRemap bool
	// Mem allocates scan and write buffers (nil: memory.DefaultAllocator).
	Mem memory.Allocator
	// Workers is the number of tasks executed at once (default 1).
	Workers int
	// Tasks is the number of tasks PlanRecluster cuts the destinations
	// into (default Workers); each task reads every source once.
	Tasks int
}

// rewriteGroup is one transition in the making.
type rewriteGroup struct {
	kind    TransitionKind
	sources []*Fragment // as read, in scan order
	dests   []newFragment
	labels  []uint16 // stable partition: destination of each live source row
	tr      Transition
	rm      *rowmap.Reader // stable partition: for folding concurrent deletes
}

// liveIDs appends the row ids of f's live rows, in offset order.
func liveIDs(dst []uint64, f *Fragment) []uint64 {
	start := len(dst)
	dst = f.RowIDs.AppendTo(dst)
	if f.Deletions.IsEmpty() {
		return dst
	}
	out := dst[:start]
	for i, id := range dst[start:] {
		if !f.Deletions.Contains(uint32(i)) {
			out = append(out, id)
		}
	}
	return out
}

func (t *Table) userColumns() []string {
	cols := make([]string, t.m.Schema.NumFields())
	for i, f := range t.m.Schema.Fields() {
		cols[i] = f.Name
	}
	return cols
}

func fragmentIDs(fs []*Fragment) []uint32 {
	ids := make([]uint32, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	return ids
}

// definitelyNotCommitted tells errors after which no manifest can name the
// rewrite's files (so they may be deleted at once) from store errors whose
// outcome is unknown (the files are left to Cleanup).
func definitelyNotCommitted(err error) bool {
	return errors.Is(err, ErrConflict) || errors.Is(err, ErrTask) || errors.Is(err, ErrConservation) || errors.Is(err, ErrInvalidArgument) || errors.Is(err, ErrCorrupt)
}

// removeFiles deletes the files a failed rewrite wrote (best effort: a
// leftover is an orphan no manifest names).
func (t *Table) removeFiles(ctx context.Context, g *rewriteGroup) {
	for _, d := range g.dests {
		_ = t.st.Delete(ctx, d.dataFile)
	}
	if g.tr.RowMap != "" {
		_ = t.st.Delete(ctx, g.tr.RowMap)
	}
}
