package window

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// windowStream is a state machine over the ordered input. It buffers the
// rows of the current partition (slices of the input batches, reserved
// from the pool at twice their size: the rows and their concatenated copy,
// plus the per-row frame and result state: window_reserve.go); at the first row of the next
// partition, or at the input's end, it evaluates the partition and hands
// its rows to a coalescer before reading on. rest is the unread tail of
// the last input batch, which holds the next partition's first rows.
//
// The coalescer (exec.Coalescer) passes a partition of half a batch or
// more on as it is (cut into batches) and gathers smaller ones into
// batches of up to the batch size: partitioned by five keys with a few
// rows each (TPC-DS Q47's 18,541 partitions of 4.6 rows on average), one
// batch per partition made every operator above run once per partition.
//
//	           batch (rows of the same partition): buffer them
//	             ┌────┐
//	             ▼    │
//	start ─▶ reading ─┴─first row of the next partition, or EOF──▶ emitting
//	             ▲                          (evaluate, push to the coalescer)
//	             └──── the coalescer has no full batch, input not at EOF ──┤
//	                                                                       ▼
//	                                   input at EOF: done (the last batch out)
//
// An error or cancellation moves to done with every batch released and
// the reservation freed; Close does the same from any state.
type windowStream struct {
	n     *Exec
	tc    *exec.TaskContext
	in    exec.Stream
	state windowState
	res   *memlimit.Reservation
	eof   bool // the input has ended

	part []arrow.RecordBatch // reading: the current partition's rows
	rest arrow.RecordBatch   // reading: the input's rows after them

	co  *exec.Coalescer // emitting, done: evaluated rows to hand out
	err error
}

type windowState int

const (
	windowReading windowState = iota
	windowEmitting
	windowDone
)

func (s *windowStream) Schema() *arrow.Schema { return s.n.schema }

func (s *windowStream) release() {
	for _, b := range s.part {
		b.Release()
	}
	s.part = nil
	if s.rest != nil {
		s.rest.Release()
		s.rest = nil
	}
	if s.co != nil {
		s.co.Release()
	}
	s.res.Free()
}

func (s *windowStream) Close() error {
	s.release()
	s.state = windowDone
	if s.in != nil {
		err := s.in.Close()
		s.in = nil
		return err
	}
	return nil
}

func (s *windowStream) fail(err error) error {
	s.state, s.err = windowDone, err
	s.release()
	return err
}

func (s *windowStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.state != windowDone {
		if err := ctx.Err(); err != nil {
			return nil, s.fail(err)
		}
	}
	for {
		switch s.state {
		case windowReading:
			if err := s.read(ctx); err != nil {
				return nil, s.fail(err)
			}
		case windowEmitting:
			start := time.Now()
			if b, ok := s.co.Pop(); ok {
				return s.n.metrics.Emit(b, start)
			}
			// The partition's rows are out but for a small batch held
			// for the next partitions' (the coalescer's, bounded by
			// the batch size).
			s.res.Free()
			s.state = windowReading
			if s.eof && s.rest == nil {
				s.state = windowDone
			}
		case windowDone:
			if s.err != nil {
				return nil, s.err
			}
			if s.co != nil {
				start := time.Now()
				if err := s.co.Finish(); err != nil {
					return nil, s.fail(err)
				}
				if b, ok := s.co.Pop(); ok {
					return s.n.metrics.Emit(b, start)
				}
			}
			return nil, io.EOF
		}
	}
}

// read buffers rows until the current partition is complete, then
// evaluates it and moves to emitting (or to done when there are no rows).
func (s *windowStream) read(ctx context.Context) error {
	if s.in == nil {
		return exec.ErrClosed
	}
	for {
		if s.rest == nil {
			if s.eof {
				break
			}
			b, err := s.in.Next(ctx)
			if errors.Is(err, io.EOF) {
				s.eof = true
				break
			}
			if err != nil {
				return err
			}
			if b.NumRows() == 0 {
				b.Release()
				continue
			}
			s.rest = b
		}
		r := s.boundary(s.rest)
		if r > 0 {
			head := s.rest.NewSlice(0, int64(r))
			if err := s.reserve(head); err != nil {
				head.Release()
				return err
			}
			s.part = append(s.part, head)
		}
		if r == int(s.rest.NumRows()) {
			s.rest.Release()
			s.rest = nil
			continue
		}
		tail := s.rest.NewSlice(int64(r), s.rest.NumRows())
		s.rest.Release()
		s.rest = tail
		return s.evaluate(ctx)
	}
	if len(s.part) == 0 {
		s.state = windowDone
		return nil
	}
	return s.evaluate(ctx)
}

// reserve grows the reservation for b's rows: the buffered slice, its
// concatenated copy, and the per-row state of the expressions' frame
// bounds, peer groups, results and scratch (window_reserve.go).
func (s *windowStream) reserve(b arrow.RecordBatch) error {
	need := s.n.reserveBytes(b)
	if err := s.res.TryGrow(need); err != nil {
		var rows int64
		for _, p := range s.part {
			rows += p.NumRows()
		}
		return fmt.Errorf("window: a partition of more than %d rows: %w", rows+b.NumRows(), err)
	}
	return nil
}

// boundary is the first row of b in a partition after the current one
// (b's length if none): the first row whose partition columns differ from
// the row before it, the last buffered row for b's first.
func (s *windowStream) boundary(b arrow.RecordBatch) int {
	n := int(b.NumRows())
	if len(s.n.partition) == 0 {
		return n
	}
	from := 1
	if len(s.part) > 0 {
		last := s.part[len(s.part)-1]
		li := int(last.NumRows()) - 1
		for _, c := range s.n.partition {
			if !sameValue(last.Column(c), li, b.Column(c), 0) {
				return 0
			}
		}
	}
	for r := from; r < n; r++ {
		for _, c := range s.n.partition {
			col := b.Column(c)
			if !sameValue(col, r-1, col, r) {
				return r
			}
		}
	}
	return n
}

// evaluate concatenates the buffered partition, computes every window
// expression over it and moves to emitting.
func (s *windowStream) evaluate(ctx context.Context) error {
	start := time.Now()
	defer s.n.metrics.Since(start)
	bs := s.part
	s.part = nil
	all, err := exec.ConcatBatches(s.n.input.Schema(), s.tc.Allocator(), bs)
	for _, b := range bs {
		b.Release()
	}
	if err != nil {
		return err
	}
	defer all.Release()
	s.n.metrics.Add("partitions", 1)
	s.n.metrics.Max("max_partition_rows", all.NumRows())
	cols, err := evalWindow(ctx, s.tc, s.n, all, s.res)
	if err != nil {
		return err
	}
	out := make([]arrow.Array, 0, len(s.n.schema.Fields()))
	out = append(out, all.Columns()...)
	out = append(out, cols...)
	b := array.NewRecordBatch(s.n.schema, out, all.NumRows())
	exec.ReleaseArrays(cols)
	defer b.Release()
	if s.co == nil {
		s.co = exec.NewCoalescer(s.n.schema, s.tc.Allocator(), s.tc.RowsPerBatch())
	}
	s.state = windowEmitting
	return s.co.Push(b)
}
