package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// UnionExec concatenates its inputs in order (UNION ALL). The inputs have
// the same column types; names are the first input's, and a column is
// nullable when it is in any input (every batch is relabelled with the
// union's schema).
type UnionExec struct {
	inputs  []Node
	schema  *arrow.Schema
	metrics Metrics
}

func NewUnionExec(inputs ...Node) (*UnionExec, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%w: union needs at least one input", physexpr.ErrInvalidArgument)
	}
	fields := slices.Clone(inputs[0].Schema().Fields())
	for _, in := range inputs[1:] {
		sc := in.Schema()
		if sc.NumFields() != len(fields) {
			return nil, fmt.Errorf("%w: union input schema %s != %s", physexpr.ErrSchema, sc, inputs[0].Schema())
		}
		for i, f := range sc.Fields() {
			if !arrow.TypeEqual(f.Type, fields[i].Type) {
				return nil, fmt.Errorf("%w: union input schema %s != %s", physexpr.ErrSchema, sc, inputs[0].Schema())
			}
			fields[i].Nullable = fields[i].Nullable || f.Nullable
		}
	}
	return &UnionExec{inputs: inputs, schema: arrow.NewSchema(fields, nil)}, nil
}

func (u *UnionExec) Name() string           { return "UnionExec" }
func (u *UnionExec) Schema() *arrow.Schema  { return u.schema }
func (u *UnionExec) Children() []Node       { return u.inputs }
func (u *UnionExec) Properties() Properties { return Properties{} }
func (u *UnionExec) Metrics() *Metrics      { return &u.metrics }
func (u *UnionExec) String() string         { return fmt.Sprintf("UnionExec: inputs=%d", len(u.inputs)) }

func (u *UnionExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	return &unionStream{n: u, tc: tc}, nil
}

type unionStream struct {
	n   *UnionExec
	tc  *TaskContext
	i   int
	cur Stream
}

func (s *unionStream) Schema() *arrow.Schema { return s.n.Schema() }
func (s *unionStream) Close() error {
	if s.cur != nil {
		err := s.cur.Close()
		s.cur = nil
		return err
	}
	return nil
}

func (s *unionStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if s.cur == nil {
			if s.i == len(s.n.inputs) {
				return nil, io.EOF
			}
			in, err := s.n.inputs[s.i].Execute(ctx, s.tc)
			if err != nil {
				return nil, err
			}
			s.cur, s.i = in, s.i+1
		}
		b, err := s.cur.Next(ctx)
		if errors.Is(err, io.EOF) {
			cerr := s.cur.Close()
			s.cur = nil
			if cerr != nil {
				return nil, cerr
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if !b.Schema().Equal(s.n.schema) {
			out := array.NewRecordBatch(s.n.schema, b.Columns(), b.NumRows())
			b.Release()
			b = out
		}
		return s.n.metrics.Emit(b, time.Now())
	}
}
