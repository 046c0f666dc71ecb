package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
)

// FilterExec keeps rows where Predicate is TRUE (NULL and FALSE drop), with
// output coalesced to BatchSize. Input ordering is preserved.
type FilterExec struct {
	input   Node
	pred    Expr
	metrics Metrics
}

func NewFilterExec(input Node, pred Expr) (*FilterExec, error) {
	t, err := pred.DataType(input.Schema())
	if err != nil {
		return nil, err
	}
	if t.ID() != arrow.BOOL {
		return nil, fmt.Errorf("%w: filter predicate %s is %s, want boolean", ErrSchema, pred, t)
	}
	return &FilterExec{input: input, pred: pred}, nil
}

func (f *FilterExec) Name() string           { return "FilterExec" }
func (f *FilterExec) Schema() *arrow.Schema  { return f.input.Schema() }
func (f *FilterExec) Children() []Node       { return []Node{f.input} }
func (f *FilterExec) Properties() Properties { return f.input.Properties() }
func (f *FilterExec) Metrics() *Metrics      { return &f.metrics }
func (f *FilterExec) String() string         { return "FilterExec: " + f.pred.String() }

func (f *FilterExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := f.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &filterStream{n: f, tc: tc, in: in, co: NewCoalescer(f.Schema(), tc.mem(), tc.batchSize())}, nil
}

type filterStream struct {
	n   *FilterExec
	tc  *TaskContext
	in  Stream
	co  *Coalescer
	eof bool
}

func (s *filterStream) Schema() *arrow.Schema { return s.n.Schema() }
func (s *filterStream) Close() error {
	s.co.Release()
	return s.in.Close()
}

func (s *filterStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return pullCoalesced(ctx, s.in, s.co, &s.eof, &s.n.metrics, func(b arrow.RecordBatch) error {
		mem := s.tc.mem()
		mask, err := s.n.pred.Evaluate(ctx, mem, b)
		if err != nil {
			return err
		}
		defer mask.Release()
		out, err := compute.FilterRecordBatch(compute.WithAllocator(ctx, mem), b, mask, compute.DefaultFilterOptions())
		if err != nil {
			return fmt.Errorf("exec: filter: %w", err)
		}
		defer out.Release()
		return s.co.Push(out)
	})
}
