package plan

import (
	"context"
	"fmt"
	"io"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
)

// noFields is the scope of expressions that may not reference columns
// (VALUES rows).
type noFields struct{}

var emptySchema = arrow.NewSchema(nil, nil)

func (noFields) schema() *arrow.Schema { return emptySchema }
func (noFields) field(i int) (physexpr.Col, error) {
	return physexpr.Col{}, fmt.Errorf("%w: field reference %d in a constant expression", ErrInvalidPlan, i)
}

// virtualTableExec emits rows of constant expressions (a Substrait
// VirtualTable, or a literal non-integer unnest). Unlike exec.ValuesExec it
// holds no Arrow memory: the rows are evaluated at the first Next with the
// task's allocator, so a plan needs no Release and may bind parameters.
type virtualTableExec struct {
	schema   *arrow.Schema
	rows     [][]physexpr.Expr
	ordering []exec.SortKey
	metrics  exec.Metrics
}

func (v *virtualTableExec) Name() string                { return "VirtualTableExec" }
func (v *virtualTableExec) Schema() *arrow.Schema       { return v.schema }
func (v *virtualTableExec) Children() []exec.Node       { return nil }
func (v *virtualTableExec) Properties() exec.Properties { return exec.Properties{Ordering: v.ordering} }
func (v *virtualTableExec) Metrics() *exec.Metrics      { return &v.metrics }
func (v *virtualTableExec) String() string {
	return fmt.Sprintf("VirtualTableExec: rows=%d cols=%d", len(v.rows), v.schema.NumFields())
}

// Execute implements exec.Node.
func (v *virtualTableExec) Execute(ctx context.Context, tc *exec.TaskContext) (exec.Stream, error) {
	if tc == nil {
		tc = &exec.TaskContext{}
	}
	return &virtualTableStream{n: v, tc: tc}, nil
}

type virtualTableStream struct {
	n    *virtualTableExec
	tc   *exec.TaskContext
	vals *exec.ValuesExec // built at the first Next
	in   exec.Stream
	done bool
}

func (s *virtualTableStream) Schema() *arrow.Schema { return s.n.schema }

func (s *virtualTableStream) Close() error {
	var err error
	if s.in != nil {
		err = s.in.Close()
		s.in = nil
	}
	if s.vals != nil {
		s.vals.Release() // the batches handed out are slices holding their own references
		s.vals = nil
	}
	s.done = true
	return err
}

// Next implements exec.Stream.
func (s *virtualTableStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.done {
		return nil, io.EOF
	}
	if s.in == nil {
		if len(s.n.rows) == 0 {
			s.done = true
			return nil, io.EOF
		}
		b, err := s.evaluate(ctx)
		if err != nil {
			return nil, err
		}
		s.vals, err = exec.NewValuesExec(s.n.schema, []arrow.RecordBatch{b})
		b.Release()
		if err != nil {
			return nil, err
		}
		if s.in, err = s.vals.Execute(ctx, s.tc); err != nil {
			return nil, err
		}
	}
	b, err := s.in.Next(ctx)
	if err != nil {
		return nil, err
	}
	s.n.metrics.OutputRows.Add(b.NumRows())
	s.n.metrics.OutputBatches.Add(1)
	return b, nil
}

// evaluate computes every cell over a one-row batch without columns and
// concatenates each column.
func (s *virtualTableStream) evaluate(ctx context.Context) (arrow.RecordBatch, error) {
	mem := s.tc.Mem
	if mem == nil {
		mem = memory.DefaultAllocator // as every exec operator does
	}
	one := array.NewRecordBatch(emptySchema, nil, 1)
	defer one.Release()
	ncol := s.n.schema.NumFields()
	cells := make([][]arrow.Array, ncol)
	defer func() {
		for _, c := range cells {
			for _, a := range c {
				a.Release()
			}
		}
	}()
	cctx := compute.WithAllocator(ctx, mem)
	for _, row := range s.n.rows {
		for j, e := range row {
			a, err := e.Evaluate(ctx, mem, one)
			if err != nil {
				return nil, err
			}
			if t := s.n.schema.Field(j).Type; !arrow.TypeEqual(a.DataType(), t) {
				c, err := compute.CastArray(cctx, a, compute.SafeCastOptions(t))
				a.Release()
				if err != nil {
					return nil, fmt.Errorf("plan: VALUES column %d: %w", j, err)
				}
				a = c
			}
			cells[j] = append(cells[j], a)
		}
	}
	cols := make([]arrow.Array, ncol)
	for j := range cols {
		c, err := array.Concatenate(cells[j], mem)
		if err != nil {
			for _, d := range cols[:j] {
				d.Release()
			}
			return nil, err
		}
		cols[j] = c
	}
	out := array.NewRecordBatch(s.n.schema, cols, int64(len(s.n.rows)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
