package exec

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
)

// ValuesExec emits literal batches (sliced to BatchSize).
type ValuesExec struct {
	schema  *arrow.Schema
	batches []arrow.RecordBatch
	metrics Metrics
}

// NewValuesExec retains batches; call Release when the plan is dropped.
func NewValuesExec(schema *arrow.Schema, batches []arrow.RecordBatch) (*ValuesExec, error) {
	for _, b := range batches {
		if !b.Schema().Equal(schema) {
			return nil, fmt.Errorf("%w: values batch schema %s != %s", physexpr.ErrSchema, b.Schema(), schema)
		}
	}
	for _, b := range batches {
		b.Retain()
	}
	return &ValuesExec{schema: schema, batches: append([]arrow.RecordBatch(nil), batches...)}, nil
}

// Release drops the literal batches.
func (v *ValuesExec) Release() {
	for _, b := range v.batches {
		b.Release()
	}
	v.batches = nil
}

func (v *ValuesExec) Name() string           { return "ValuesExec" }
func (v *ValuesExec) Schema() *arrow.Schema  { return v.schema }
func (v *ValuesExec) Children() []Node       { return nil }
func (v *ValuesExec) Properties() Properties { return Properties{} }
func (v *ValuesExec) Metrics() *Metrics      { return &v.metrics }
func (v *ValuesExec) String() string {
	var rows int64
	for _, b := range v.batches {
		rows += b.NumRows()
	}
	return fmt.Sprintf("ValuesExec: batches=%d rows=%d", len(v.batches), rows)
}

func (v *ValuesExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	return &valuesStream{n: v, size: tc.RowsPerBatch()}, nil
}

type valuesStream struct {
	n      *ValuesExec
	size   int
	i, off int
	closed bool
}

func (s *valuesStream) Schema() *arrow.Schema { return s.n.schema }
func (s *valuesStream) Close() error          { s.closed = true; return nil }

func (s *valuesStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	for s.i < len(s.n.batches) {
		b := s.n.batches[s.i]
		n := int(b.NumRows())
		if s.off >= n {
			s.i, s.off = s.i+1, 0
			continue
		}
		end := min(n, s.off+s.size)
		out := b.NewSlice(int64(s.off), int64(end))
		s.off = end
		return s.n.metrics.Emit(out, start)
	}
	return nil, io.EOF
}
