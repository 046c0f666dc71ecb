package exec

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ProjectExec evaluates Exprs per batch into named output columns. The
// expressions are bound to the input schema once, at construction.
type ProjectExec struct {
	input   Node
	exprs   []physexpr.Expr
	bound   []physexpr.Bound
	schema  *arrow.Schema
	metrics Metrics
}

func NewProjectExec(input Node, exprs []physexpr.Expr, names []string) (*ProjectExec, error) {
	if len(exprs) != len(names) {
		return nil, fmt.Errorf("%w: %d exprs, %d names", physexpr.ErrInvalidArgument, len(exprs), len(names))
	}
	fields := make([]arrow.Field, len(exprs))
	bound := make([]physexpr.Bound, len(exprs))
	for i, e := range exprs {
		bd, err := physexpr.Bind(e, input.Schema())
		if err != nil {
			return nil, fmt.Errorf("project %s: %w", names[i], err)
		}
		bound[i] = bd
		fields[i] = arrow.Field{Name: names[i], Type: bd.Type(), Nullable: true}
		if c, ok := e.(physexpr.Col); ok {
			fields[i].Nullable = input.Schema().Field(c.Index).Nullable
		}
	}
	return &ProjectExec{input: input, exprs: append([]physexpr.Expr{}, exprs...), bound: bound, schema: arrow.NewSchema(fields, nil)}, nil
}

func (p *ProjectExec) Name() string          { return "ProjectExec" }
func (p *ProjectExec) Schema() *arrow.Schema { return p.schema }
func (p *ProjectExec) Children() []Node      { return []Node{p.input} }
func (p *ProjectExec) Metrics() *Metrics     { return &p.metrics }

// Properties keeps input ordering keys whose column is passed through as a plain Col.
func (p *ProjectExec) Properties() Properties {
	return Properties{Ordering: p.OrderingOf(p.input.Properties().Ordering)}
}

// OrderingOf is the ordering of p's output when its input is ordered by
// in: the leading keys whose column p passes through as a plain Col,
// renumbered to p's columns, up to the first key p drops (the rows are
// then ordered by no later key on its own).
func (p *ProjectExec) OrderingOf(in []SortKey) []SortKey {
	var ord []SortKey
	for _, k := range in {
		found := false
		for i, e := range p.exprs {
			if c, ok := e.(physexpr.Col); ok && c.Index == k.Column {
				k.Column, k.Name, found = i, p.schema.Field(i).Name, true
				break
			}
		}
		if !found {
			break
		}
		ord = append(ord, k)
	}
	return ord
}

// ConstantColumn: p's output column i is a constant (a literal), the same
// on every row, so it orders nothing (a sort key on it is redundant,
// PostgreSQL's pathkey_is_redundant: plan/sort.go).
func (p *ProjectExec) ConstantColumn(i int) bool {
	if i < 0 || i >= len(p.exprs) {
		return false
	}
	_, ok := p.exprs[i].(physexpr.Lit)
	return ok
}

func (p *ProjectExec) String() string {
	parts := make([]string, len(p.exprs))
	for i, e := range p.exprs {
		parts[i] = e.String() + " as " + p.schema.Field(i).Name
	}
	return "ProjectExec: expr=[" + strings.Join(parts, ", ") + "]"
}

func (p *ProjectExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := p.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &projectStream{n: p, tc: tc, in: in}, nil
}

type projectStream struct {
	n  *ProjectExec
	tc *TaskContext
	in Stream
}

func (s *projectStream) Schema() *arrow.Schema { return s.n.schema }
func (s *projectStream) Close() error          { return s.in.Close() }

func (s *projectStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := s.in.Next(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	start := time.Now()
	cols := make([]arrow.Array, 0, len(s.n.bound))
	for _, bd := range s.n.bound {
		c, err := physexpr.EvalArray(ctx, s.tc.Allocator(), bd, b)
		if err != nil {
			physexpr.ReleaseAll(cols)
			return nil, err
		}
		cols = append(cols, c)
	}
	out := array.NewRecordBatch(s.n.schema, cols, b.NumRows())
	physexpr.ReleaseAll(cols)
	return s.n.metrics.Emit(out, start)
}
