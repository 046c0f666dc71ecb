package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// OrderedAggregateExec is the streaming aggregation for an input whose
// equal group keys are adjacent (sorted on the group columns, as the
// planner knows from the input's ordering). A group is complete when the
// key changes, so after each input batch every group but the last (still
// open) one is emitted: memory holds one batch and one open group, whatever
// the number of groups. Same output as HashAggregateExec, in input order.
//
//	            batch: split into runs of equal keys, fold measures,
//	            emit the closed groups (if any)
//	             ┌────┐
//	             ▼    │
//	        ┌───────────┐  input EOF   ┌──────────────────┐      ┌──────┐
//	start ─▶│ streaming │─────────────▶│ emit open group  │─────▶│ done │
//	        └───────────┘              └──────────────────┘      └──────┘
type OrderedAggregateExec struct {
	agg     aggregation
	metrics Metrics
}

// NewOrderedAggregateExec is HashAggregateExec's streaming twin; groups
// must not be empty and the input must keep equal keys adjacent.
func NewOrderedAggregateExec(input Node, groups []int, aggs []Aggregate) (*OrderedAggregateExec, error) {
	if len(groups) == 0 {
		return nil, fmt.Errorf("%w: ordered aggregation needs group columns", physexpr.ErrInvalidArgument)
	}
	a, err := newAggregation(input, groups, aggs)
	if err != nil {
		return nil, err
	}
	return &OrderedAggregateExec{agg: a}, nil
}

func (o *OrderedAggregateExec) Name() string          { return "OrderedAggregateExec" }
func (o *OrderedAggregateExec) Schema() *arrow.Schema { return o.agg.schema }
func (o *OrderedAggregateExec) Children() []Node      { return []Node{o.agg.input} }
func (o *OrderedAggregateExec) Metrics() *Metrics     { return &o.metrics }
func (o *OrderedAggregateExec) String() string        { return "OrderedAggregateExec: " + o.agg.describe() }

// Properties: groups come out in input order, so an input ordering over the
// group columns holds for the output, on the output's group columns.
func (o *OrderedAggregateExec) Properties() Properties {
	var ord []SortKey
	for _, k := range o.agg.input.Properties().Ordering {
		pos := -1
		for i, g := range o.agg.groups {
			if g == k.Column {
				pos = i
			}
		}
		if pos < 0 {
			break
		}
		k.Column = pos
		ord = append(ord, k)
	}
	return Properties{Ordering: ord}
}

// Execute implements Node.
func (o *OrderedAggregateExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := o.agg.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	keys := make([]array.Builder, len(o.agg.groups))
	for i, f := range o.agg.schema.Fields()[:len(keys)] {
		keys[i] = array.NewBuilder(tc.Allocator(), f.Type)
	}
	return &orderedAggStream{n: o, tc: tc, in: in, keys: keys, accs: o.agg.accumulators()}, nil
}

type orderedAggStream struct {
	n    *OrderedAggregateExec
	tc   *TaskContext
	in   Stream
	keys []array.Builder // key values of the groups not yet emitted
	accs []accumulator
	n0   int    // groups not yet emitted (the last one is open)
	cur  []byte // the open group's encoded key
	buf  []byte
	ids  []uint32
	eof  bool
}

func (s *orderedAggStream) Schema() *arrow.Schema { return s.n.agg.schema }

func (s *orderedAggStream) Close() error {
	for _, b := range s.keys {
		b.Release()
	}
	s.keys, s.accs, s.eof = nil, nil, true
	if s.in == nil {
		return nil
	}
	err := s.in.Close()
	s.in = nil
	return err
}

// Next implements Stream.
func (s *orderedAggStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if s.eof {
			return nil, io.EOF
		}
		if s.in == nil {
			return nil, ErrClosed
		}
		b, err := s.in.Next(ctx)
		if errors.Is(err, io.EOF) {
			// The open group is complete too.
			s.eof = true
			if s.n0 == 0 {
				return nil, io.EOF
			}
			start := time.Now()
			out, err := s.emit(s.n0)
			if err != nil {
				return nil, err
			}
			return s.n.metrics.Emit(out, start)
		}
		if err != nil {
			return nil, err
		}
		start := time.Now()
		err = s.fold(b)
		b.Release()
		if err != nil {
			return nil, err
		}
		if s.n0 > 1 {
			out, err := s.emit(s.n0 - 1)
			if err != nil {
				return nil, err
			}
			return s.n.metrics.Emit(out, start)
		}
		s.n.metrics.Since(start)
	}
}

// fold splits b into runs of equal keys, continuing the open group while
// the key stays the same.
func (s *orderedAggStream) fold(b arrow.RecordBatch) error {
	a := &s.n.agg
	cols := a.keyColumns(b)
	rows := int(b.NumRows())
	s.ids = growIDs(s.ids, rows)
	for r := range rows {
		s.buf = encodeGroupKey(s.buf[:0], cols, r)
		if s.n0 == 0 || !bytes.Equal(s.buf, s.cur) {
			for i, kb := range s.keys {
				if err := appendValue(kb, cols[i], r); err != nil {
					return err
				}
			}
			s.n0++
			s.cur = append(s.cur[:0], s.buf...)
			s.n.metrics.Add("groups", 1)
		}
		s.ids[r] = uint32(s.n0 - 1)
	}
	s.n.metrics.Add("input_rows", int64(rows))
	return a.update(s.accs, b, s.ids, s.n0)
}

// emit sends the first n groups and keeps the rest (at most the open one).
func (s *orderedAggStream) emit(n int) (arrow.RecordBatch, error) {
	all := make([]arrow.Array, len(s.keys))
	for i, kb := range s.keys {
		all[i] = kb.NewArray()
	}
	defer physexpr.ReleaseAll(all)
	keys := make([]arrow.Array, len(all))
	for i, c := range all {
		keys[i] = array.NewSlice(c, 0, int64(n))
		for r := n; r < c.Len(); r++ {
			if err := appendValue(s.keys[i], c, r); err != nil {
				physexpr.ReleaseAll(keys[:i+1])
				return nil, err
			}
		}
	}
	s.n0 -= n
	return s.n.agg.emit(s.tc, keys, s.accs, n)
}
