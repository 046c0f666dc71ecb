package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// CrossExec is the cross product of its left input with a small right
// one (INNER), or the RIGHT join of the two ON TRUE: a grouping set's
// expansion crosses the finest groups with the set ids (plan/rollup.go).
// Each left batch comes out once per right row, its columns shared (not
// copied), the right row's values as constant columns beside them;
// NestedLoopJoinExec gathered every pair's left row, column by column,
// once per set. A RIGHT join over an empty left input is its right rows
// with NULL left columns, as NestedLoopJoinExec's.
//
//	        first Next
//	start ─────────────► build: collect the right input (at most
//	  │                  MaxCrossRows rows, else a typed error)
//	  ▼
//	read ◄───────────────┐ pull a left batch
//	  │ a batch          │
//	  ▼                  │
//	emit: the batch with right row r, r = 0 .. rows-1 ──┘
//	  │ left EOF
//	  ▼
//	unmatched (RIGHT, no left row): the right rows, NULL left columns
//	  ▼
//	done: io.EOF
//
// Memory: the right input (bounded by MaxCrossRows), one left batch and
// one output batch's constant columns. The output is not ordered (a
// batch's rows repeat once per right row), so Properties claims no order.
type CrossExec struct {
	left, right Node
	typ         JoinType
	schema      *arrow.Schema
	metrics     Metrics
}

// MaxCrossRows bounds CrossExec's right input: PostgreSQL's limit on
// grouping sets (4096), the most set ids an expansion crosses with.
const MaxCrossRows = 4096

// ErrCrossTooLarge is a CrossExec whose right input has more rows than
// MaxCrossRows.
var ErrCrossTooLarge = errkind.New(errkind.Unsupported, "exec: cross product's right input too large")

// NewCrossExec crosses left with right; typ is JoinInner or JoinRight (ON
// TRUE).
func NewCrossExec(left, right Node, typ JoinType) (*CrossExec, error) {
	if typ != JoinInner && typ != JoinRight {
		return nil, fmt.Errorf("%w: cross product of type %s", physexpr.ErrInvalidArgument, typ)
	}
	out, _ := joinSchemas(left.Schema(), right.Schema(), typ)
	return &CrossExec{left: left, right: right, typ: typ, schema: out}, nil
}

func (n *CrossExec) Name() string           { return "CrossExec" }
func (n *CrossExec) Schema() *arrow.Schema  { return n.schema }
func (n *CrossExec) Children() []Node       { return []Node{n.left, n.right} }
func (n *CrossExec) Metrics() *Metrics      { return &n.metrics }
func (n *CrossExec) Properties() Properties { return Properties{} }
func (n *CrossExec) String() string         { return fmt.Sprintf("CrossExec: type=%s", n.typ) }

// WithNewChildren is n over new inputs.
func (n *CrossExec) WithNewChildren(children []Node) (Node, error) {
	if err := WantChildren(n, children, 2); err != nil {
		return nil, err
	}
	return NewCrossExec(children[0], children[1], n.typ)
}

func (n *CrossExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	return &crossStream{n: n, tc: tc}, nil
}

type crossState int

const (
	csStart crossState = iota
	csRead
	csEmit
	csUnmatched
	csDone
)

type crossStream struct {
	n      *CrossExec
	tc     *TaskContext
	state  crossState
	left   Stream
	right  []arrow.Array     // the right input's columns, whole
	rows   int               // its rows
	cur    arrow.RecordBatch // the left batch being emitted
	r      int               // the next right row to emit cur with
	seen   bool              // a left row came
	closed bool
}

func (s *crossStream) Schema() *arrow.Schema { return s.n.schema }

func (s *crossStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start := time.Now()
		switch s.state {
		case csStart:
			if err := s.build(ctx); err != nil {
				return nil, err
			}
			s.state = csRead
		case csRead:
			b, err := s.left.Next(ctx)
			if errors.Is(err, io.EOF) {
				s.state = csDone
				if s.n.typ == JoinRight && !s.seen {
					s.state = csUnmatched
				}
				continue
			}
			if err != nil {
				return nil, err
			}
			s.n.metrics.Add("probe_rows", b.NumRows())
			if b.NumRows() == 0 || s.rows == 0 {
				b.Release()
				continue
			}
			s.seen, s.cur, s.r, s.state = true, b, 0, csEmit
		case csEmit:
			out, err := s.withRow(s.r)
			if err != nil {
				return nil, err
			}
			if s.r++; s.r == s.rows {
				s.cur.Release()
				s.cur, s.state = nil, csRead
			}
			return s.n.metrics.Emit(out, start)
		case csUnmatched:
			s.state = csDone
			if s.rows > 0 {
				return s.n.metrics.Emit(s.unmatched(), start)
			}
		case csDone:
			return nil, io.EOF
		}
	}
}

// build executes both inputs and collects the right one, its columns
// concatenated.
func (s *crossStream) build(ctx context.Context) error {
	start := time.Now()
	defer s.n.metrics.Since(start)
	rs, err := s.n.right.Execute(ctx, s.tc)
	if err != nil {
		return err
	}
	var bs []arrow.RecordBatch
	defer func() {
		for _, b := range bs {
			b.Release()
		}
	}()
	for {
		b, err := rs.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rs.Close()
			return err
		}
		bs = append(bs, b)
		if s.rows += int(b.NumRows()); s.rows > MaxCrossRows {
			rs.Close()
			return fmt.Errorf("%w: more than %d rows", ErrCrossTooLarge, MaxCrossRows)
		}
	}
	if err := rs.Close(); err != nil {
		return err
	}
	for c := range s.n.right.Schema().NumFields() {
		parts := make([]arrow.Array, len(bs))
		for i, b := range bs {
			parts[i] = b.Column(c)
		}
		if len(parts) == 0 {
			s.right = append(s.right, array.MakeArrayOfNull(s.tc.Allocator(), s.n.right.Schema().Field(c).Type, 0))
			continue
		}
		a, err := array.Concatenate(parts, s.tc.Allocator())
		if err != nil {
			return fmt.Errorf("%w: cross product's right input: %w", physexpr.ErrInvalidArgument, err)
		}
		s.right = append(s.right, a)
	}
	s.n.metrics.Add("build_rows", int64(s.rows))
	s.left, err = s.n.left.Execute(ctx, s.tc)
	return err
}

// withRow is the batch cur beside right row r's values, repeated.
func (s *crossStream) withRow(r int) (arrow.RecordBatch, error) {
	n := int(s.cur.NumRows())
	cols := make([]arrow.Array, 0, len(s.n.schema.Fields()))
	cols = append(cols, s.cur.Columns()...)
	var made []arrow.Array
	defer func() { ReleaseArrays(made) }()
	for _, c := range s.right {
		sc, err := scalar.GetScalar(c, r)
		if err != nil {
			return nil, fmt.Errorf("%w: cross product's right value: %w", physexpr.ErrInvalidArgument, err)
		}
		a, err := scalar.MakeArrayFromScalar(sc, n, s.tc.Allocator())
		if rel, ok := sc.(scalar.Releasable); ok {
			rel.Release()
		}
		if err != nil {
			return nil, fmt.Errorf("%w: cross product's right value: %w", physexpr.ErrInvalidArgument, err)
		}
		made = append(made, a)
		cols = append(cols, a)
	}
	return array.NewRecordBatch(s.n.schema, cols, int64(n)), nil
}

// unmatched is a RIGHT join's rows over an empty left input: every right
// row with NULL left columns.
func (s *crossStream) unmatched() arrow.RecordBatch {
	var cols []arrow.Array
	for _, f := range s.n.left.Schema().Fields() {
		cols = append(cols, array.MakeArrayOfNull(s.tc.Allocator(), f.Type, s.rows))
	}
	defer ReleaseArrays(cols)
	return array.NewRecordBatch(s.n.schema, append(cols[:len(cols):len(cols)], s.right...), int64(s.rows))
}

func (s *crossStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	ReleaseArrays(s.right)
	s.right = nil
	if s.left != nil {
		return s.left.Close()
	}
	return nil
}
