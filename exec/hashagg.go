package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// HashAggregateExec groups its input by the values of the group columns
// (NULL is a group of its own) and computes the measures per group. Without
// group columns it is the grouping-less aggregate: exactly one row, also for
// an empty input (count 0, every other measure NULL), as in PostgreSQL.
// Output: the group columns, then one column per measure; group order is
// the order of first appearance in the input.
//
// The stream is a state machine:
//
//	           batch: assign groups, fold measures
//	             ┌────┐
//	             ▼    │
//	        ┌───────────┐  input EOF   ┌──────────┐  slices of ≤ BatchSize  ┌──────┐
//	start ─▶│ consuming │─────────────▶│ emitting │────────────────────────▶│ done │
//	        └───────────┘  build result└──────────┘   (last slice sent)     └──────┘
//
// Its state (group table, accumulators) is the size of the result, not of
// the input.
type HashAggregateExec struct {
	agg     aggregation
	metrics Metrics
}

// NewHashAggregateExec groups input by the columns groups and computes aggs.
func NewHashAggregateExec(input Node, groups []int, aggs []Aggregate) (*HashAggregateExec, error) {
	a, err := newAggregation(input, groups, aggs)
	if err != nil {
		return nil, err
	}
	return &HashAggregateExec{agg: a}, nil
}

func (h *HashAggregateExec) Name() string           { return "HashAggregateExec" }
func (h *HashAggregateExec) Schema() *arrow.Schema  { return h.agg.schema }
func (h *HashAggregateExec) Children() []Node       { return []Node{h.agg.input} }
func (h *HashAggregateExec) Properties() Properties { return Properties{} }
func (h *HashAggregateExec) Metrics() *Metrics      { return &h.metrics }
func (h *HashAggregateExec) String() string         { return "HashAggregateExec: " + h.agg.describe() }

// Execute implements Node.
func (h *HashAggregateExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := h.agg.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &hashAggStream{n: h, tc: tc, in: in}, nil
}

type hashAggState int

const (
	hashAggConsuming hashAggState = iota
	hashAggEmitting
	hashAggDone
)

type hashAggStream struct {
	n      *HashAggregateExec
	tc     *TaskContext
	in     Stream
	state  hashAggState
	table  *groupTable
	accs   []accumulator
	ids    []uint32
	result arrow.RecordBatch // emitting: the whole result, sent in slices
	off    int64
	err    error // the error that ended the stream, returned again
	res    *memlimit.Reservation
}

func (s *hashAggStream) Schema() *arrow.Schema { return s.n.agg.schema }

func (s *hashAggStream) Close() error {
	s.state = hashAggDone
	s.releaseState()
	if s.result != nil {
		s.result.Release()
		s.result = nil
	}
	if s.in == nil {
		return nil
	}
	err := s.in.Close()
	s.in = nil
	return err
}

func (s *hashAggStream) releaseState() {
	if s.table != nil {
		s.table.release()
		s.table = nil
	}
	s.accs = nil
	if s.res != nil {
		s.res.Free()
	}
}

// Next implements Stream.
func (s *hashAggStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		switch s.state {
		case hashAggConsuming:
			if err := s.consume(ctx); err != nil {
				s.state, s.err = hashAggDone, err // the error ends the stream
				s.releaseState()
				return nil, err
			}
			s.state = hashAggEmitting
		case hashAggEmitting:
			start := time.Now()
			n := s.result.NumRows()
			if s.off >= n {
				s.result.Release()
				s.result, s.state = nil, hashAggDone
				continue
			}
			end := min(n, s.off+int64(s.tc.batchSize()))
			out := s.result.NewSlice(s.off, end)
			s.off = end
			return s.n.metrics.emit(out, start)
		case hashAggDone:
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
	}
}

// consume drains the input into the group table and the accumulators, then
// builds the result.
func (s *hashAggStream) consume(ctx context.Context) error {
	if s.in == nil {
		return ErrClosed
	}
	a := &s.n.agg
	var types []arrow.DataType
	for _, f := range a.schema.Fields()[:len(a.groups)] {
		types = append(types, f.Type)
	}
	s.table = newGroupTable(s.tc.mem(), types)
	s.accs = a.accumulators()
	s.res = s.tc.pool().NewReservation("HashAggregateExec")
	perGroup := groupStateBytes(types, len(s.accs))
	var rows int64
	for {
		b, err := s.in.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		start := time.Now()
		err = s.fold(b)
		rows += b.NumRows()
		b.Release()
		s.n.metrics.since(start)
		if err == nil {
			err = s.reserve(perGroup)
		}
		if err != nil {
			return err
		}
	}
	start := time.Now()
	defer s.n.metrics.since(start)
	n := s.groups()
	s.n.metrics.Add("input_rows", rows)
	s.n.metrics.Add("groups", int64(n))
	keys := s.table.finish()
	res, err := a.emit(s.tc, keys, s.accs, n)
	s.releaseState()
	if err != nil {
		return err
	}
	s.result = res
	return nil
}

// groups is the number of groups: the grouping-less aggregate has one.
func (s *hashAggStream) groups() int {
	if len(s.n.agg.groups) == 0 {
		return 1
	}
	return s.table.len()
}

func (s *hashAggStream) fold(b arrow.RecordBatch) error {
	a := &s.n.agg
	rows := int(b.NumRows())
	if len(a.groups) == 0 {
		s.ids = growIDs(s.ids, rows)
		clear(s.ids)
	} else {
		var err error
		if s.ids, err = s.table.assign(a.keyColumns(b), rows, s.ids); err != nil {
			return err
		}
	}
	return a.update(s.accs, b, s.ids, s.groups())
}

// reserve grows the reservation to the groups' estimated state. Hash
// aggregation does not spill: a group table over the memory limit fails
// with memlimit.ErrResourceExhausted.
func (s *hashAggStream) reserve(perGroup int64) error {
	want := int64(s.groups()) * perGroup
	if err := s.res.TryGrow(want - s.res.Size()); err != nil {
		return fmt.Errorf("hash aggregation over the memory limit at %d groups (it does not spill): %w", s.groups(), err)
	}
	return nil
}

// groupStateBytes estimates one group's state: its hash table entry and
// id, its key values (a string key at 32 bytes) and its accumulators'
// slots (16 bytes: sums are 128-bit). DISTINCT and string_agg keep values
// per group beyond this; the estimate is a floor, not a bound.
func groupStateBytes(keys []arrow.DataType, accs int) int64 {
	n := int64(48 + 16*accs)
	for _, t := range keys {
		if fw, ok := t.(arrow.FixedWidthDataType); ok && fw.BitWidth() >= 8 {
			n += int64(fw.BitWidth() / 8)
		} else {
			n += 32
		}
	}
	return n
}
