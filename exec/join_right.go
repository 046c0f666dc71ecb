package exec

import (
	"context"
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The RIGHT-side join types let the planner build whichever input is
// smaller. A semi join of a small outer query against a big subquery
// (TPC-H Q4: 57K orders EXISTS in 3.8M late lineitems) is a JoinRightSemi
// with the inputs swapped: the outer rows are built, the subquery's rows
// probe, and each build row a probe row matched is marked in rightHit, the
// bitmap RIGHT and FULL joins keep for their unmatched rows. After the
// probe the build rows are emitted from that bitmap:
//
//	probe (left rows look up their candidates; pairs are never emitted)
//	  │ mark rightHit[b] for each candidate b that matches
//	  ▼
//	unmatched: build rows in build order, batchSize at a time
//	  │   RightSemi: hit rows   RightAnti: rows never hit
//	  │   Right, Full: rows never hit, with NULL left columns
//	  ▼
//	finish
//
// A residual predicate is supported: a build row counts as matched only by
// a pair whose key AND residual hold (TPC-H Q21's l3.l_suppkey <>
// l1.l_suppkey), so with a residual every candidate pair is gathered and
// tested. Without one, a build row's whole key chain is matched by the
// first probe row that finds it, and later probe rows skip a chain whose
// head is marked (markChain). NOT IN's NULL-aware anti join has no RIGHT
// form: its answer for a row depends on whether the other side holds a
// NULL anywhere, which the left-build join decides per row.
//
// Partitioned (partition_join.go), each partition marks its own matches;
// a partition whose probe ends reports them to the shared build, and the
// last to report emits the right rows from every partition's matches.

// rightOnly: the output is the right columns (right semi and anti joins).
func (j JoinType) rightOnly() bool { return j == JoinRightSemi || j == JoinRightAnti }

// rightAfter: right rows are emitted after the left input ends (the
// unmatched state), chosen by the rightHit bitmap.
func (j JoinType) rightAfter() bool { return j.keepsRight() || j == JoinRightSemi }

// markOnly: the probe only marks build rows, every key match counts (no
// residual), so a key's chain is marked whole the first time it is found.
func (s *joinStream) markOnly() bool { return s.j.typ.rightOnly() && s.j.bound == nil }

// markChain marks the build rows of the chain starting at c. Without a
// residual a chain is only ever marked whole, so a marked head means the
// chain is done.
func (s *joinStream) markChain(c int32) {
	for ; c >= 0 && !s.rightHit[c]; c = s.following(c) {
		s.rightHit[c] = true
	}
}

// wantRight reports whether build row i is emitted after the probe.
func (s *joinStream) wantRight(i int) bool {
	if s.j.typ == JoinRightSemi {
		return s.rightHit[i]
	}
	return !s.rightHit[i]
}

// emitUnmatched emits the next build rows the join type keeps after the
// probe, looking at up to batchSize of them per call.
func (s *joinStream) emitUnmatched(ctx context.Context) error {
	if s.shared != nil && !s.shared.report(s) {
		s.state = jsFinish // another partition emits the right rows
		return nil
	}
	var idx []int32
	limit := s.tc.RowsPerBatch()
	for ; s.unmatched < s.nbuild && len(idx) < limit; s.unmatched++ {
		if s.wantRight(s.unmatched) {
			idx = append(idx, int32(s.unmatched))
		}
	}
	if s.unmatched >= s.nbuild {
		s.state = jsFinish
	}
	if len(idx) == 0 {
		return nil
	}
	if !s.j.typ.rightOnly() {
		return s.emit(ctx, nil, idx, nil)
	}
	b, err := s.takeBuild(ctx, idx)
	if err != nil {
		return err
	}
	defer b.Release()
	return s.co.Push(b)
}

// report merges partition s's matches once its probe has ended, and
// reports whether s is the partition that emits the right rows: the last
// to report, which then holds every partition's matches. If a partition
// was closed before its probe ended, none emits (the output is being
// abandoned; its rows could not be decided).
func (b *sharedBuild) report(s *joinStream) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reported[s] {
		return true // the emitter, on its next batch
	}
	b.reported[s] = true
	if b.hit == nil {
		b.hit = s.rightHit
	} else {
		for i, h := range s.rightHit {
			if h {
				b.hit[i] = true
			}
		}
	}
	b.probing--
	if b.probing > 0 || b.abandoned {
		return false
	}
	s.rightHit = b.hit
	return true
}

// takeBuild is the build rows idx, the output of a right-only join.
func (s *joinStream) takeBuild(ctx context.Context, idx []int32) (arrow.RecordBatch, error) {
	mem := s.tc.Allocator()
	if len(idx) == s.nbuild { // every build row, in order: the build itself
		s.build.Retain()
		return s.build, nil
	}
	out := make([]arrow.Array, 0, s.build.NumCols())
	defer func() {
		for _, c := range out {
			c.Release()
		}
	}()
	out, err := physexpr.Gather(ctx, mem, s.build.Columns(), idx, nil, out)
	if err != nil {
		return nil, fmt.Errorf("exec: join: %w", err)
	}
	return array.NewRecordBatch(s.j.schema, out, int64(len(idx))), nil
}
