package exec

import (
	"context"
	"fmt"
	"slices"

	"github.com/stablerow/stablerow/exec/physexpr"
)

// ChildReplacer is a node that can be rebuilt over other children with the
// same schemas: the physical-planning pass that makes a plan parallel
// (plan/parallel.go) rebuilds the nodes it knows over partitioned inputs.
type ChildReplacer interface {
	WithNewChildren(children []Node) (Node, error)
}

// WantChildren is WithNewChildren's check that n is given k children, a
// typed error otherwise.
func WantChildren(n Node, children []Node, k int) error {
	if len(children) != k {
		return fmt.Errorf("%w: %s takes %d children, got %d", physexpr.ErrInvalidArgument, n.Name(), k, len(children))
	}
	for i, c := range children {
		if !c.Schema().Equal(n.Children()[i].Schema()) {
			return fmt.Errorf("%w: %s: child %d schema %s, want %s", physexpr.ErrSchema, n.Name(), i, c.Schema(), n.Children()[i].Schema())
		}
	}
	return nil
}

// Filter and project work row by row: a partitioned input gives as many
// output partitions, each filtered (projected) by its own stream.

func (f *FilterExec) OutputPartitions() int {
	if f.oneTimeFalse {
		return 1 // no row, and the input is not executed
	}
	return OutputPartitions(f.input)
}

func (f *FilterExec) ExecutePartitions(ctx context.Context, tc *TaskContext) ([]Stream, error) {
	if f.oneTimeFalse {
		return []Stream{noRows{schema: f.Schema()}}, nil
	}
	return PartitionsFor(ctx, f.input, tc, func(in Stream) Stream {
		return &filterStream{n: f, tc: tc, in: in, co: NewCoalescer(f.Schema(), tc.Allocator(), tc.RowsPerBatch())}
	})
}

func (f *FilterExec) WithNewChildren(children []Node) (Node, error) {
	if err := WantChildren(f, children, 1); err != nil {
		return nil, err
	}
	if f.oneTimeFalse {
		return NewOneTimeFalseFilterExec(children[0]), nil
	}
	n, err := NewFilterExec(children[0], f.pred)
	if err != nil {
		return nil, err
	}
	// A LIMIT's row budget stays with the filter it was given to: the
	// parallel planner rebuilds the filter over its input's partitions.
	n.rowBudget = f.rowBudget
	return n, nil
}

func (p *ProjectExec) OutputPartitions() int { return OutputPartitions(p.input) }

func (p *ProjectExec) ExecutePartitions(ctx context.Context, tc *TaskContext) ([]Stream, error) {
	return PartitionsFor(ctx, p.input, tc, func(in Stream) Stream {
		return &projectStream{n: p, tc: tc, in: in}
	})
}

func (p *ProjectExec) WithNewChildren(children []Node) (Node, error) {
	if err := WantChildren(p, children, 1); err != nil {
		return nil, err
	}
	names := make([]string, p.schema.NumFields())
	for i, f := range p.schema.Fields() {
		names[i] = f.Name
	}
	return NewProjectExec(children[0], slices.Clone(p.exprs), names)
}

func (l *LimitExec) WithNewChildren(children []Node) (Node, error) {
	if err := WantChildren(l, children, 1); err != nil {
		return nil, err
	}
	return NewLimitExec(children[0], l.offset, l.limit), nil
}

// WithNewChildren is the union over children (the same schemas): the
// parallel pass runs each input in parallel below it.
func (u *UnionExec) WithNewChildren(children []Node) (Node, error) {
	if err := WantChildren(u, children, len(u.inputs)); err != nil {
		return nil, err
	}
	return NewUnionExec(children...)
}

// PerPartition is s sorting each partition of input on its own: the
// first half of a parallel sort, whose sorted partitions a
// SortPreservingMergeExec merges. Its Execute still sorts the whole input.
func (s *SortExec) PerPartition(input Node) (*SortExec, error) {
	if err := WantChildren(s, []Node{input}, 1); err != nil {
		return nil, err
	}
	return &SortExec{input: input, keys: slices.Clone(s.keys), perPart: true}, nil
}

func (s *SortExec) OutputPartitions() int {
	if !s.perPart {
		return 1
	}
	return OutputPartitions(s.input)
}

func (s *SortExec) ExecutePartitions(ctx context.Context, tc *TaskContext) ([]Stream, error) {
	if !s.perPart {
		st, err := s.Execute(ctx, tc)
		if err != nil {
			return nil, err
		}
		return []Stream{st}, nil
	}
	return PartitionsFor(ctx, s.input, tc, func(in Stream) Stream { return s.newStream(tc, in) })
}

func (s *SortExec) WithNewChildren(children []Node) (Node, error) {
	if err := WantChildren(s, children, 1); err != nil {
		return nil, err
	}
	return &SortExec{input: children[0], keys: slices.Clone(s.keys), perPart: s.perPart}, nil
}
