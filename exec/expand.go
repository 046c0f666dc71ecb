package exec

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ExpandExec is a set-returning function in FROM whose arguments read an
// earlier FROM item (PostgreSQL makes every function in FROM implicitly
// LATERAL: FROM t, generate_series(1, t.n) AS g). PostgreSQL runs it as a
// nested loop whose inner FunctionScan is re-evaluated with each outer
// row's values (ExecFunctionScan under ExecNestLoop with the outer Vars as
// PARAM_EXEC); DuckDB as a table in-out function (PhysicalTableInOutFunction).
// Here, as the latter, it is one operator over its input: per input row it
// calls generate_series(start, stop, step) with that row's argument
// columns and emits the input row's columns followed by the series value
// (and, WITH ORDINALITY, its 1-based position within that row's series).
//
// PostgreSQL's semantics: a NULL argument gives no rows (generate_series
// is strict), a zero step raises "step size cannot equal zero". A LEFT
// expand (LEFT JOIN LATERAL ... ON TRUE) emits one row with NULL function
// columns for an input row whose series is empty.
//
// Memory is one input batch and one output batch: an output batch holds at
// most RowsPerBatch rows, so a 10M-row series from one input row streams
// in batches (the series is never materialized). An output batch never
// spans two input batches, so it only gathers from the current one.
//
// The stream's states:
//
//	         ┌──────────┐  batch   ┌─────────┐  row's series  ┌──────────┐
//	start ──>│   pull   │────────>│ nextRow │───────────────>│  series  │
//	         └──────────┘         └─────────┘                └──────────┘
//	           │ EOF  ^               │   ^ series done           │
//	           v      │ batch done    │   └───────────────────────┤
//	         done     └───────────────┘                           │ batch full
//	                  (flush rows held)                           v
//	                                                      flush: return batch,
//	                                                      resume in series
//
// Metrics: input_rows, and empty_series (input rows whose call returned no
// rows, NULL-extended by a LEFT expand).
type ExpandExec struct {
	input             Node
	start, stop, step int // argument columns of the input
	ordinality, left  bool
	schema            *arrow.Schema
	metrics           Metrics
}

// NewExpandExec expands input by generate_series over its columns start,
// stop and step (integer columns of one type, int32 or int64, which is
// the series column's type), named name; ordName names the ordinality
// column ("" for none). left keeps an input row whose series is empty.
func NewExpandExec(input Node, start, stop, step int, name, ordName string, left bool) (*ExpandExec, error) {
	in := input.Schema()
	var typ arrow.DataType
	for _, c := range []int{start, stop, step} {
		if c < 0 || c >= in.NumFields() {
			return nil, fmt.Errorf("%w: expand argument column %d of %d", physexpr.ErrInvalidArgument, c, in.NumFields())
		}
		t := in.Field(c).Type
		if t.ID() != arrow.INT64 && t.ID() != arrow.INT32 {
			return nil, fmt.Errorf("%w: generate_series over %s", physexpr.ErrUnsupported, t)
		}
		if typ != nil && !arrow.TypeEqual(typ, t) {
			return nil, fmt.Errorf("%w: generate_series arguments of types %s and %s", physexpr.ErrInvalidArgument, typ, t)
		}
		typ = t
	}
	fields := append(append([]arrow.Field{}, in.Fields()...), arrow.Field{Name: name, Type: typ, Nullable: left})
	if ordName != "" {
		fields = append(fields, arrow.Field{Name: ordName, Type: arrow.PrimitiveTypes.Int64, Nullable: left})
	}
	return &ExpandExec{input: input, start: start, stop: stop, step: step, ordinality: ordName != "", left: left,
		schema: arrow.NewSchema(fields, nil)}, nil
}

func (e *ExpandExec) Name() string          { return "ExpandExec" }
func (e *ExpandExec) Schema() *arrow.Schema { return e.schema }
func (e *ExpandExec) Children() []Node      { return []Node{e.input} }
func (e *ExpandExec) Metrics() *Metrics     { return &e.metrics }

// Properties: each input row's output rows are consecutive, in input
// order, so an ordering of the input's columns still holds.
func (e *ExpandExec) Properties() Properties {
	return Properties{Ordering: e.input.Properties().Ordering}
}

func (e *ExpandExec) String() string {
	s := fmt.Sprintf("ExpandExec: generate_series(#%d, #%d, #%d)", e.start, e.stop, e.step)
	if e.ordinality {
		s += " with ordinality"
	}
	if e.left {
		s += " left"
	}
	return s
}

// WithNewChildren is e over a new input of the same schema.
func (e *ExpandExec) WithNewChildren(children []Node) (Node, error) {
	if err := WantChildren(e, children, 1); err != nil {
		return nil, err
	}
	return &ExpandExec{input: children[0], start: e.start, stop: e.stop, step: e.step,
		ordinality: e.ordinality, left: e.left, schema: e.schema}, nil
}

// Execute implements Node.
func (e *ExpandExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := e.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &expandStream{n: e, tc: tc, in: in}, nil
}

type expandState int

const (
	expandPull    expandState = iota // read the next input batch
	expandNextRow                    // start the current row's series
	expandSeries                     // emit the current row's series
	expandDone
)

type expandStream struct {
	n     *ExpandExec
	tc    *TaskContext
	in    Stream
	state expandState
	batch arrow.RecordBatch // the current input batch (owned)
	row   int               // the current input row
	// The current row's series: value start+off*step for off < count.
	first, step int64
	off, count  uint64
	// The output rows held: the input row each repeats, the series value
	// and ordinal, and whether the function columns are NULL (LEFT).
	idx  []int32
	vals []int64
	ords []int64
	null []bool
}

func (s *expandStream) Schema() *arrow.Schema { return s.n.schema }

func (s *expandStream) Close() error {
	if s.batch != nil {
		s.batch.Release()
		s.batch = nil
	}
	s.state = expandDone
	return s.in.Close()
}

// Next implements Stream.
func (s *expandStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	max := s.tc.RowsPerBatch()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch s.state {
		case expandDone:
			return nil, io.EOF
		case expandPull:
			if s.batch != nil {
				s.batch.Release()
				s.batch = nil
			}
			b, err := s.in.Next(ctx)
			if err == io.EOF {
				s.state = expandDone
				continue
			}
			if err != nil {
				return nil, err
			}
			s.n.metrics.Add("input_rows", b.NumRows())
			s.batch, s.row, s.state = b, 0, expandNextRow
		case expandNextRow:
			if s.row >= int(s.batch.NumRows()) {
				s.state = expandPull
				if len(s.idx) > 0 {
					return s.flush(ctx)
				}
				continue
			}
			empty, err := s.call()
			if err != nil {
				return nil, err
			}
			if empty {
				s.n.metrics.Add("empty_series", 1)
				if s.n.left {
					s.hold(true, 0, 0)
				}
				s.row++
				if len(s.idx) >= max {
					return s.flush(ctx)
				}
				continue
			}
			s.state = expandSeries
		case expandSeries:
			start := time.Now()
			n := min(s.count-s.off, uint64(max-len(s.idx)))
			v := uint64(s.first) + s.off*uint64(s.step)
			for i := range n {
				// Wrapping arithmetic is exact: every value lies between
				// start and stop (series.go).
				s.hold(false, int64(v), int64(s.off+i+1))
				v += uint64(s.step)
			}
			s.off += n
			s.n.metrics.Since(start)
			if s.off == s.count {
				s.row++
				s.state = expandNextRow
			}
			if len(s.idx) >= max {
				return s.flush(ctx)
			}
		}
	}
}

// call reads the current row's arguments and sets up its series; empty
// reports a series of no rows (a NULL argument, or start past stop).
func (s *expandStream) call() (empty bool, err error) {
	var args [3]int64
	for i, c := range []int{s.n.start, s.n.stop, s.n.step} {
		col := s.batch.Column(c)
		if col.IsNull(s.row) {
			return true, nil // generate_series is strict
		}
		switch a := col.(type) {
		case *array.Int64:
			args[i] = a.Value(s.row)
		case *array.Int32:
			args[i] = int64(a.Value(s.row))
		default:
			return false, fmt.Errorf("%w: generate_series argument of type %s", physexpr.ErrUnsupported, col.DataType())
		}
	}
	if args[2] == 0 {
		return false, fmt.Errorf("%w: step size cannot equal zero", physexpr.ErrInvalidArgument)
	}
	s.first, s.step, s.off = args[0], args[2], 0
	s.count = seriesCount(args[0], args[1], args[2])
	return s.count == 0, nil
}

func (s *expandStream) hold(null bool, v, ord int64) {
	s.idx = append(s.idx, int32(s.row))
	s.vals = append(s.vals, v)
	s.ords = append(s.ords, ord)
	s.null = append(s.null, null)
}

// flush returns the rows held as a batch: the input's columns gathered at
// idx, then the function columns.
func (s *expandStream) flush(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	mem := s.tc.Allocator()
	cols, err := physexpr.Gather(ctx, mem, s.batch.Columns(), s.idx, nil, make([]arrow.Array, 0, s.n.schema.NumFields()))
	if err != nil {
		ReleaseArrays(cols)
		return nil, fmt.Errorf("exec: expand: %w", err)
	}
	valType := s.n.schema.Field(int(s.batch.NumCols())).Type
	cols = append(cols, intColumn(mem, valType, s.vals, s.null))
	if s.n.ordinality {
		cols = append(cols, intColumn(mem, arrow.PrimitiveTypes.Int64, s.ords, s.null))
	}
	n := int64(len(s.idx))
	out := array.NewRecordBatch(s.n.schema, cols, n)
	ReleaseArrays(cols)
	s.idx, s.vals, s.ords, s.null = s.idx[:0], s.vals[:0], s.ords[:0], s.null[:0]
	return s.n.metrics.Emit(out, start)
}

// intColumn builds an int32 or int64 column of vs, NULL where null[i].
func intColumn(mem memory.Allocator, t arrow.DataType, vs []int64, null []bool) arrow.Array {
	if t.ID() == arrow.INT32 {
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.Reserve(len(vs))
		for i, v := range vs {
			if null[i] {
				b.UnsafeAppendBoolToBitmap(false)
			} else {
				b.UnsafeAppend(int32(v)) // between int32 bounds
			}
		}
		return b.NewArray()
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Reserve(len(vs))
	for i, v := range vs {
		if null[i] {
			b.UnsafeAppendBoolToBitmap(false)
		} else {
			b.UnsafeAppend(v)
		}
	}
	return b.NewArray()
}
