package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// UnionExec concatenates its inputs in order (UNION ALL).
type UnionExec struct {
	inputs  []Node
	metrics Metrics
}

func NewUnionExec(inputs ...Node) (*UnionExec, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%w: union needs at least one input", ErrInvalidArgument)
	}
	for _, in := range inputs[1:] {
		if !in.Schema().Equal(inputs[0].Schema()) {
			return nil, fmt.Errorf("%w: union input schema %s != %s", ErrSchema, in.Schema(), inputs[0].Schema())
		}
	}
	return &UnionExec{inputs: inputs}, nil
}

func (u *UnionExec) Name() string           { return "UnionExec" }
func (u *UnionExec) Schema() *arrow.Schema  { return u.inputs[0].Schema() }
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
		return s.n.metrics.emit(b, time.Now())
	}
}
