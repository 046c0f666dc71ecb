package exec

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
)

// SortPreservingMergeExec merges the partitions of its input, each sorted
// by keys, into one sorted stream: the k-way merge SortExec uses for its
// spilled runs (spillmerge.go), with one run per partition. Ties go to the
// lower partition; partitions cut in input order (a partitioned scan, and
// the nodes that pass its partitions through) and sorted stably merge to
// the output of one stable sort of the whole input.
//
// Each partition is driven by its own goroutine into a channel of two
// batches, so the partitions' sorts run in parallel while the merge, on
// the caller's goroutine, takes the smallest head row:
//
//	         first Next: a feeder goroutine per partition;
//	         wait for the first batch of each (the sorts end)
//	start ──────────────────────────────────────────────┐
//	                                                    ▼
//	                                              ┌──────────┐  ≤ BatchSize rows,
//	                                              │ merging  │  smallest first ──▶ caller
//	                                              └──────────┘
//	          every partition done, a feeder's       │
//	          error (cancels the others), ctx done   ▼
//	                                              ┌──────────┐
//	                                              │   done   │ io.EOF or the error
//	                                              └──────────┘
//
// Close from any state stops the feeders, waits for them and releases
// every batch held. Memory: three batches per partition (two queued, one
// at the merge's cursor) plus the batch being built.
type SortPreservingMergeExec struct {
	input   Node
	keys    []SortKey
	metrics Metrics
}

// NewSortPreservingMergeExec merges input's partitions, each ordered by keys.
func NewSortPreservingMergeExec(input Node, keys []SortKey) (*SortPreservingMergeExec, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: merge needs at least one key", physexpr.ErrInvalidArgument)
	}
	if !OrderingSatisfies(input.Properties().Ordering, keys) {
		return nil, fmt.Errorf("%w: merge input is not ordered by its keys", physexpr.ErrInvalidArgument)
	}
	sc := input.Schema()
	for _, k := range keys {
		if k.Column < 0 || k.Column >= sc.NumFields() {
			return nil, fmt.Errorf("%w: merge column %d out of range", physexpr.ErrInvalidArgument, k.Column)
		}
	}
	return &SortPreservingMergeExec{input: input, keys: slices.Clone(keys)}, nil
}

func (m *SortPreservingMergeExec) Name() string          { return "SortPreservingMergeExec" }
func (m *SortPreservingMergeExec) Schema() *arrow.Schema { return m.input.Schema() }
func (m *SortPreservingMergeExec) Children() []Node      { return []Node{m.input} }
func (m *SortPreservingMergeExec) Properties() Properties {
	return Properties{Ordering: slices.Clone(m.keys)}
}
func (m *SortPreservingMergeExec) Metrics() *Metrics { return &m.metrics }
func (m *SortPreservingMergeExec) String() string {
	parts := make([]string, len(m.keys))
	for i, k := range m.keys {
		parts[i] = k.String()
	}
	return fmt.Sprintf("SortPreservingMergeExec: keys=[%s], partitions=%d", strings.Join(parts, ", "), OutputPartitions(m.input))
}

func (m *SortPreservingMergeExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	ins, err := ExecutePartitions(ctx, m.input, tc)
	if err != nil {
		return nil, err
	}
	return &mergeStream{n: m, tc: tc, ins: ins}, nil
}

type mergeState int

const (
	mergeStart mergeState = iota
	mergeMerging
	mergeDone
)

type mergeStream struct {
	n     *SortPreservingMergeExec
	tc    *TaskContext
	ins   []Stream // until started
	state mergeState
	w     *workers
	chans []chan arrow.RecordBatch
	merge *kwayMerge
	err   error
}

func (s *mergeStream) Schema() *arrow.Schema { return s.n.Schema() }

func (s *mergeStream) start(ctx context.Context) error {
	s.w = newWorkers(ctx)
	s.chans = make([]chan arrow.RecordBatch, len(s.ins))
	srcs := make([]runSource, len(s.ins))
	for i, in := range s.ins {
		ch := make(chan arrow.RecordBatch, 2)
		s.chans[i] = ch
		srcs[i] = &feedSource{ch: ch, w: s.w}
		s.w.spawnThen(func(ctx context.Context) error { return drive(ctx, in, ch) }, func() { close(ch) })
	}
	s.ins = nil
	s.state = mergeMerging
	var err error
	s.merge, err = newKWayMerge(ctx, s.n.Schema(), s.n.keys, s.tc.Allocator(), srcs)
	return err
}

func (s *mergeStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		switch s.state {
		case mergeStart:
			if err := s.start(ctx); err != nil {
				return nil, s.finish(err)
			}
		case mergeMerging:
			// elapsed_compute includes waiting for the partitions'
			// feeders: the merge cannot tell the two apart cheaply.
			start := time.Now()
			b, err := s.merge.next(ctx, s.tc.RowsPerBatch())
			if err != nil {
				return nil, s.finish(err)
			}
			return s.n.metrics.Emit(b, start)
		case mergeDone:
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
	}
}

// finish moves to done: err is io.EOF at the end of the merge.
func (s *mergeStream) finish(err error) error {
	if err == io.EOF {
		err = nil
	}
	s.state, s.err = mergeDone, err
	s.stop()
	if err == nil {
		return io.EOF
	}
	return err
}

func (s *mergeStream) stop() {
	if s.w == nil {
		return
	}
	s.w.stop()
	if s.merge != nil {
		s.merge.close()
		s.merge = nil
	}
	for _, ch := range s.chans {
		for b := range ch {
			b.Release()
		}
	}
	s.w, s.chans = nil, nil
}

func (s *mergeStream) Close() error {
	if s.state == mergeStart {
		s.state = mergeDone
		err := closeStreams(s.ins)
		s.ins = nil
		return err
	}
	s.state = mergeDone
	s.stop()
	return nil
}

// feedSource is one partition's run of the merge, read from its feeder's
// channel. A closed channel is the partition's end, or, when the feeder
// failed, that error.
type feedSource struct {
	ch <-chan arrow.RecordBatch
	w  *workers
}

func (f *feedSource) next(ctx context.Context) (arrow.RecordBatch, error) {
	select {
	case b, ok := <-f.ch:
		if !ok {
			if err := f.w.failure(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *feedSource) close() error { return nil }
