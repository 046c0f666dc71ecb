package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// AggregateFunc names an aggregate AggregateExec can compute.
type AggregateFunc int

const (
	AggCountStar AggregateFunc = iota // count(*): every input row
	AggCount                          // count(x): rows where column x is not NULL
)

// Aggregate is one output column of AggregateExec.
type Aggregate struct {
	Func   AggregateFunc
	Column int    // input column for AggCount; ignored for AggCountStar
	Name   string // output column name
}

func (a Aggregate) describe(in *arrow.Schema) string {
	if a.Func == AggCountStar {
		return "count(*) as " + a.Name
	}
	return fmt.Sprintf("count(%s@%d) as %s", in.Field(a.Column).Name, a.Column, a.Name)
}

// AggregateExec computes grouping-less aggregates: it drains its input and
// emits exactly one row (also for an empty input, where counts are 0), one
// non-nullable int64 column per Aggregate.
type AggregateExec struct {
	input   Node
	aggs    []Aggregate
	schema  *arrow.Schema
	metrics Metrics
}

// NewAggregateExec checks every aggregate against the input schema.
func NewAggregateExec(input Node, aggs []Aggregate) (*AggregateExec, error) {
	if len(aggs) == 0 {
		return nil, fmt.Errorf("%w: aggregate needs at least one measure", ErrInvalidArgument)
	}
	fields := make([]arrow.Field, len(aggs))
	for i, a := range aggs {
		switch a.Func {
		case AggCountStar:
		case AggCount:
			if a.Column < 0 || a.Column >= input.Schema().NumFields() {
				return nil, fmt.Errorf("%w: aggregate column %d out of range", ErrInvalidArgument, a.Column)
			}
		default:
			return nil, fmt.Errorf("%w: aggregate function %d", ErrInvalidArgument, a.Func)
		}
		fields[i] = arrow.Field{Name: a.Name, Type: arrow.PrimitiveTypes.Int64}
	}
	return &AggregateExec{input: input, aggs: append([]Aggregate(nil), aggs...), schema: arrow.NewSchema(fields, nil)}, nil
}

func (a *AggregateExec) Name() string           { return "AggregateExec" }
func (a *AggregateExec) Schema() *arrow.Schema  { return a.schema }
func (a *AggregateExec) Children() []Node       { return []Node{a.input} }
func (a *AggregateExec) Properties() Properties { return Properties{} }
func (a *AggregateExec) Metrics() *Metrics      { return &a.metrics }
func (a *AggregateExec) String() string {
	parts := make([]string, len(a.aggs))
	for i, g := range a.aggs {
		parts[i] = g.describe(a.input.Schema())
	}
	return "AggregateExec: aggr=[" + strings.Join(parts, ", ") + "]"
}

// Execute implements Node.
func (a *AggregateExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := a.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &aggregateStream{n: a, tc: tc, in: in}, nil
}

// aggregateStream states: draining input (!done) -> one row emitted (done) -> EOF.
type aggregateStream struct {
	n    *AggregateExec
	tc   *TaskContext
	in   Stream
	done bool
}

func (s *aggregateStream) Schema() *arrow.Schema { return s.n.schema }
func (s *aggregateStream) Close() error {
	if s.in == nil {
		return nil
	}
	err := s.in.Close()
	s.in = nil
	return err
}

// Next implements Stream.
func (s *aggregateStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.done {
		return nil, io.EOF
	}
	if s.in == nil {
		return nil, ErrClosed
	}
	counts := make([]int64, len(s.n.aggs))
	for {
		b, err := s.in.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		start := time.Now()
		for i, a := range s.n.aggs {
			if a.Func == AggCountStar {
				counts[i] += b.NumRows()
			} else {
				col := b.Column(a.Column)
				counts[i] += int64(col.Len() - col.NullN())
			}
		}
		b.Release()
		s.n.metrics.since(start)
	}
	start := time.Now()
	s.done = true
	mem := s.tc.mem()
	cols := make([]arrow.Array, len(counts))
	for i, c := range counts {
		ib := array.NewInt64Builder(mem)
		ib.Append(c)
		cols[i] = ib.NewArray()
		ib.Release()
	}
	out := array.NewRecordBatch(s.n.schema, cols, 1)
	releaseAll(cols)
	return s.n.metrics.emit(out, start)
}
