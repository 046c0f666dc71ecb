package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
)

// SetOp is an INTERSECT or EXCEPT, distinct or ALL. (UNION ALL is UnionExec;
// UNION is UnionExec under a HashAggregateExec grouping by every column.)
type SetOp int

const (
	SetIntersect    SetOp = iota // rows in both inputs, once
	SetIntersectAll              // a row m times in left, n in right: min(m, n) times
	SetExcept                    // rows of left not in right, once
	SetExceptAll                 // a row m times in left, n in right: max(m-n, 0) times
)

func (o SetOp) String() string {
	switch o {
	case SetIntersect:
		return "INTERSECT"
	case SetIntersectAll:
		return "INTERSECT ALL"
	case SetExcept:
		return "EXCEPT"
	case SetExceptAll:
		return "EXCEPT ALL"
	}
	return fmt.Sprintf("SetOp(%d)", int(o))
}

// copies is how many times a row seen l times on the left and r times on
// the right is in the result (PostgreSQL's rules, section 7.4).
func (o SetOp) copies(l, r int64) int64 {
	switch o {
	case SetIntersect:
		if l > 0 && r > 0 {
			return 1
		}
	case SetIntersectAll:
		return min(l, r)
	case SetExcept:
		if l > 0 && r == 0 {
			return 1
		}
	case SetExceptAll:
		return max(l-r, 0)
	}
	return 0
}

// SetOpExec computes INTERSECT [ALL] or EXCEPT [ALL] of two inputs of one
// schema, comparing whole rows with NULLs equal (as set operations do). It
// counts the left rows per distinct row in a group table, then counts the
// right rows that match one, then emits each distinct row as many times as
// op says, in order of first appearance on the left.
//
//	        ┌──────────┐ left EOF ┌──────────────┐ right EOF ┌──────────┐      ┌──────┐
//	start ─▶│ building │─────────▶│ probing right│──────────▶│ emitting │─────▶│ done │
//	        └──────────┘          └──────────────┘           └──────────┘      └──────┘
//
// State is the size of the left input's distinct rows; output batches are
// at most BatchSize rows.
type SetOpExec struct {
	left, right Node
	op          SetOp
	schema      *arrow.Schema
	metrics     Metrics
}

// NewSetOpExec checks that both inputs have the same column types.
func NewSetOpExec(left, right Node, op SetOp) (*SetOpExec, error) {
	if op < SetIntersect || op > SetExceptAll {
		return nil, fmt.Errorf("%w: set operation %d", physexpr.ErrInvalidArgument, op)
	}
	ls, rs := left.Schema(), right.Schema()
	if ls.NumFields() != rs.NumFields() {
		return nil, fmt.Errorf("%w: %s inputs have %d and %d columns", physexpr.ErrSchema, op, ls.NumFields(), rs.NumFields())
	}
	fields := make([]arrow.Field, ls.NumFields())
	for i, f := range ls.Fields() {
		if !arrow.TypeEqual(f.Type, rs.Field(i).Type) {
			return nil, fmt.Errorf("%w: %s column %d types %s and %s differ", physexpr.ErrSchema, op, i, f.Type, rs.Field(i).Type)
		}
		if !groupKeyOK(f.Type) {
			return nil, fmt.Errorf("%w: %s over type %s", physexpr.ErrInvalidArgument, op, f.Type)
		}
		fields[i] = f
	}
	return &SetOpExec{left: left, right: right, op: op, schema: arrow.NewSchema(fields, nil)}, nil
}

func (s *SetOpExec) Name() string           { return "SetOpExec" }
func (s *SetOpExec) Schema() *arrow.Schema  { return s.schema }
func (s *SetOpExec) Children() []Node       { return []Node{s.left, s.right} }
func (s *SetOpExec) Properties() Properties { return Properties{} }
func (s *SetOpExec) Metrics() *Metrics      { return &s.metrics }
func (s *SetOpExec) String() string         { return "SetOpExec: op=" + s.op.String() }

// Execute implements Node.
func (s *SetOpExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	return &setOpStream{n: s, tc: tc}, nil
}

type setOpState int

const (
	setOpBuilding setOpState = iota
	setOpEmitting
	setOpDone
)

type setOpStream struct {
	n      *SetOpExec
	tc     *TaskContext
	state  setOpState
	cur    Stream // the input being read
	table  *groupTable
	left   []int64 // per distinct left row: its count on the left
	right  []int64 // and on the right
	keys   []arrow.Array
	g      int   // emitting: next group
	rep    int64 // copies of group g already sent
	ids    []uint32
	found  []int32 // the right input's rows' groups, -1 for none
	err    error   // the error that ended the stream, returned again
	closed bool
}

func (s *setOpStream) Schema() *arrow.Schema { return s.n.schema }

func (s *setOpStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed, s.state = true, setOpDone
	if s.table != nil {
		s.table.release()
		s.table = nil
	}
	physexpr.ReleaseAll(s.keys)
	s.keys = nil
	if s.cur != nil {
		err := s.cur.Close()
		s.cur = nil
		return err
	}
	return nil
}

// Next implements Stream.
func (s *setOpStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	for {
		switch s.state {
		case setOpBuilding:
			if err := s.build(ctx); err != nil {
				s.state, s.err = setOpDone, err // the error ends the stream
				return nil, err
			}
			s.state = setOpEmitting
		case setOpEmitting:
			start := time.Now()
			out, err := s.nextBatch(ctx)
			if err != nil {
				return nil, err
			}
			if out == nil {
				s.state = setOpDone
				continue
			}
			return s.n.metrics.Emit(out, start)
		case setOpDone:
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
	}
}

// drain reads every batch of input n into f.
func (s *setOpStream) drain(ctx context.Context, n Node, f func(arrow.RecordBatch) error) error {
	in, err := n.Execute(ctx, s.tc)
	if err != nil {
		return err
	}
	s.cur = in
	for {
		b, err := in.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		start := time.Now()
		err = f(b)
		b.Release()
		s.n.metrics.Since(start)
		if err != nil {
			return err
		}
	}
	s.cur = nil
	return in.Close()
}

func (s *setOpStream) build(ctx context.Context) error {
	types := make([]arrow.DataType, s.n.schema.NumFields())
	for i, f := range s.n.schema.Fields() {
		types[i] = f.Type
	}
	s.table = newGroupTable(s.tc.Allocator(), types)
	err := s.drain(ctx, s.n.left, func(b arrow.RecordBatch) error {
		var err error
		if s.ids, err = s.table.assign(b.Columns(), int(b.NumRows()), s.ids); err != nil {
			return err
		}
		s.left = growTo(s.left, s.table.len())
		for _, g := range s.ids {
			s.left[g]++
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.right = make([]int64, s.table.len())
	err = s.drain(ctx, s.n.right, func(b arrow.RecordBatch) error {
		s.found = s.table.lookup(b.Columns(), int(b.NumRows()), s.found)
		for _, g := range s.found {
			if g >= 0 {
				s.right[g]++
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.n.metrics.Add("groups", int64(s.table.len()))
	s.keys = s.table.finish()
	s.table.release()
	s.table = nil
	return nil
}

// nextBatch takes up to BatchSize result rows from the distinct rows' key
// columns; nil when all are sent.
func (s *setOpStream) nextBatch(ctx context.Context) (arrow.RecordBatch, error) {
	limit := s.tc.RowsPerBatch()
	var idx []int64
	for s.g < len(s.left) && len(idx) < limit {
		c := s.n.op.copies(s.left[s.g], s.right[s.g])
		for s.rep < c && len(idx) < limit {
			idx = append(idx, int64(s.g))
			s.rep++
		}
		if s.rep >= c {
			s.g, s.rep = s.g+1, 0
		}
	}
	if len(idx) == 0 {
		return nil, nil
	}
	mem := s.tc.Allocator()
	ib := array.NewInt64Builder(mem)
	ib.AppendValues(idx, nil)
	indices := ib.NewArray()
	ib.Release()
	defer indices.Release()
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, 0, len(s.keys))
	defer func() { physexpr.ReleaseAll(cols) }()
	for _, k := range s.keys {
		c, err := compute.TakeArray(cctx, k, indices)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return array.NewRecordBatch(s.n.schema, cols, int64(len(idx))), nil
}
