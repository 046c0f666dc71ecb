package exec

import (
	"context"
	"fmt"
	"sync"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// Parallel hash join: the left (probe) input's partitions are joined in
// parallel, each by its own joinStream, against one build of the right
// input shared by all of them:
//
//	left partition 0 ─▶ joinStream ─┐
//	left partition 1 ─▶ joinStream ─┼─▶ N output partitions
//	left partition … ─▶ joinStream ─┘
//	                        │ the first partition that needs the build
//	                        ▼ builds it (the others wait on the lock)
//	                  sharedBuild: right input, concatenated and indexed once
//
// Every join type runs this way. RIGHT, FULL, RIGHT SEMI and RIGHT ANTI
// emit right rows by whether any partition matched them: each partition
// marks its own matches, and the last partition to end its probe merges
// them all and emits those rows (sharedBuild.report, join_right.go). The
// build stays lazy for the left-driven types: if no partition has a left
// row, the right input never runs (as in the serial join); the RIGHT-side
// types build it regardless, since the partition that emits their right
// rows may be one without left rows.
//
// A build over the memory limit spills: the shared build is partitioned as
// a serial join's is, and the partitions' joins are shared by the
// partitions (join_spill_shared.go).

// PerPartition is h probing each partition of left in parallel against
// one shared build of right (one stream).
func (h *HashJoinExec) PerPartition(left, right Node) (*HashJoinExec, error) {
	if OutputPartitions(right) > 1 {
		return nil, fmt.Errorf("%w: the build side of a partitioned join must be one partition", physexpr.ErrInvalidArgument)
	}
	n, err := h.WithNewChildren([]Node{left, right})
	if err != nil {
		return nil, err
	}
	j := n.(*HashJoinExec)
	j.perPart = true
	return j, nil
}

// ProbesPartitions reports whether the join type allows PerPartition
// (every type does).
func (h *HashJoinExec) ProbesPartitions() bool { return true }

func (h *HashJoinExec) WithNewChildren(children []Node) (Node, error) {
	if err := WantChildren(h, children, 2); err != nil {
		return nil, err
	}
	j, err := NewHashJoinExecResidual(children[0], children[1], h.lkeys, h.rkeys, h.typ, h.residual)
	if err != nil {
		return nil, err
	}
	j.keepOrder = h.keepOrder
	return j, nil
}

func (h *HashJoinExec) OutputPartitions() int {
	if !h.perPart {
		return 1
	}
	return OutputPartitions(h.left)
}

func (h *HashJoinExec) ExecutePartitions(ctx context.Context, tc *TaskContext) ([]Stream, error) {
	if !h.perPart {
		s, err := h.Execute(ctx, tc)
		if err != nil {
			return nil, err
		}
		return []Stream{s}, nil
	}
	ins, err := ExecutePartitions(ctx, h.left, tc)
	if err != nil {
		return nil, err
	}
	sb := &sharedBuild{refs: len(ins), probing: len(ins), reported: map[*joinStream]bool{},
		pending: len(ins), ended: map[*joinStream]bool{}, spill: true}
	out := make([]Stream, len(ins))
	for i, in := range ins {
		js := h.execute(tc)
		js.left, js.shared = in, sb
		out[i] = js
	}
	return out, nil
}

// sharedBuild is the build side of one parallel join execution, built by
// the first partition that needs it and released by the last to close.
type sharedBuild struct {
	mu        sync.Mutex
	done      bool
	err       error
	build     arrow.RecordBatch
	res       *memlimit.Reservation
	nbuild    int
	idx       *keyIndex
	buildNull bool
	refs      int // partition streams not yet closed

	// The RIGHT-side types (join_right.go): the partitions still probing,
	// the merged matches of those done, which have reported, and whether
	// one was closed before its probe ended.
	probing   int
	hit       []bool
	reported  map[*joinStream]bool
	abandoned bool

	// Spilling (join_spill_shared.go): in is the build input (nil: the
	// join's right input); spill, whether the build may spill (not a
	// spilled build's resident part); pending, the partitions whose probe
	// has not ended (ended: those that have); grace, set once it spilled.
	in      Stream
	spill   bool
	pending int
	ended   map[*joinStream]bool
	grace   *sharedGrace
}

// attach gives s the build side, building it on the first call.
func (b *sharedBuild) attach(ctx context.Context, s *joinStream) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done {
		b.done = true
		one := &joinStream{j: s.j, tc: s.tc, forShared: true, spillShared: b.spill, buildIn: b.in}
		b.in = nil
		b.err = one.doBuild(ctx)
		if b.err == nil && one.grace != nil {
			b.spilled(one.grace)
		} else {
			b.build, b.res, b.nbuild, b.idx, b.buildNull = one.build, one.res, one.nbuild, one.idx, one.buildNull
		}
		if b.build != nil {
			// Arrow counts a column's NULLs lazily and caches the count:
			// counted here, once, the partitions' gathers only read it
			// (a spilled build's resident rows come from takes, whose
			// count is not known yet).
			for _, c := range b.build.Columns() {
				c.NullN()
			}
		}
		if b.err != nil {
			b.free()
		}
	}
	if b.err != nil {
		return b.err
	}
	if b.grace != nil {
		s.pw = &graceWorker{s: s, sg: b.grace}
		return nil
	}
	b.build.Retain()
	s.build, s.nbuild, s.idx, s.buildNull = b.build, b.nbuild, b.idx, b.buildNull
	if s.j.typ.rightAfter() {
		s.rightHit = make([]bool, b.nbuild) // this partition's matches
	}
	return nil
}

// release drops one partition's claim; the last frees the build side.
func (b *sharedBuild) release(s *joinStream) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.j.typ.rightAfter() && !b.reported[s] {
		// Closed before its probe ended: the right rows can no longer be
		// decided (the consumer is abandoning the join's output).
		b.reported[s] = true
		b.probing--
		b.abandoned = true
	}
	b.refs--
	if b.refs == 0 {
		b.free()
	}
}

func (b *sharedBuild) free() {
	if b.in != nil {
		b.in.Close()
		b.in = nil
	}
	if b.grace != nil {
		b.grace.close()
		b.grace = nil
	}
	if b.build != nil {
		b.build.Release()
		b.build = nil
	}
	if b.res != nil {
		b.res.Free()
		b.res = nil
	}
	b.idx = nil
}
