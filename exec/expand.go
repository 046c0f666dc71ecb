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
// columns (integer, numeric or timestamp; expand_series.go) and emits the
// input row's columns followed by the series value (and, WITH
// ORDINALITY, its 1-based position within that row's series).
//
// PostgreSQL's semantics: a NULL argument gives no rows (generate_series
// is strict), a zero step raises "step size cannot equal zero". A LEFT
// expand (LEFT JOIN LATERAL ... ON cond) evaluates cond on each produced
// row, keeps those for which it is true, and emits one row with NULL
// function columns for an input row none of whose produced rows pass (an
// empty series included), as PostgreSQL's nested loop does; with ON TRUE
// there is no condition and only an empty series is NULL-extended.
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
//	           v      │ batch done    │   │ (LEFT with ON: hold   │
//	         done     │ (flush rows   │   │  the row's end mark)  │
//	                  │  held)        │   └───────────────────────┤
//	                  └───────────────┘                           │ batch full
//	                                                              v
//	                                     flush: with ON, evaluate it on the
//	                                     rows held, keep those that pass and
//	                                     each end mark of a row none of whose
//	                                     rows passed (NULL-extended); return
//	                                     the batch, resume in series
//
// A row's series may span several flushes: whether any of its rows passed
// (passed) carries over to the flush that meets its end mark.
//
// Metrics: input_rows, and empty_series (input rows whose call returned no
// rows, NULL-extended by a LEFT expand).
type ExpandExec struct {
	input            Node
	args             SeriesArgs
	ordinality, left bool
	on               physexpr.Expr  // LEFT expand's condition, or nil
	onBound          physexpr.Bound // on bound to schema
	schema           *arrow.Schema
	metrics          Metrics
}

// NewExpandExec expands input by generate_series over its argument
// columns args (integer columns of one type, int32 or int64; decimal128
// columns of one type; or timestamp columns and a constant interval),
// whose type is the series column's, named name; ordName names the
// ordinality column ("" for none). left keeps an input row whose series
// is empty.
func NewExpandExec(input Node, args SeriesArgs, name, ordName string, left bool) (*ExpandExec, error) {
	in := input.Schema()
	_, typ, err := newSeriesGen(in, args)
	if err != nil {
		return nil, err
	}
	fields := append(append([]arrow.Field{}, in.Fields()...), arrow.Field{Name: name, Type: typ, Nullable: left})
	if ordName != "" {
		fields = append(fields, arrow.Field{Name: ordName, Type: arrow.PrimitiveTypes.Int64, Nullable: left})
	}
	return &ExpandExec{input: input, args: args, ordinality: ordName != "", left: left,
		schema: arrow.NewSchema(fields, nil)}, nil
}

// WithOn is the LEFT expand e with the join condition on, an expression
// over e's output columns (the input's, then the function's).
func (e *ExpandExec) WithOn(on physexpr.Expr) (*ExpandExec, error) {
	if !e.left {
		return nil, fmt.Errorf("%w: an ON condition on an inner expand (filter its output)", physexpr.ErrInvalidArgument)
	}
	bd, err := physexpr.Bind(on, e.schema)
	if err != nil {
		return nil, fmt.Errorf("expand condition %s: %w", on, err)
	}
	if t := bd.Type(); t.ID() != arrow.BOOL {
		return nil, fmt.Errorf("%w: expand condition %s is %s, want boolean", physexpr.ErrSchema, on, t)
	}
	return &ExpandExec{input: e.input, args: e.args, ordinality: e.ordinality, left: e.left,
		on: on, onBound: bd, schema: e.schema}, nil
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
	a := e.args
	step := fmt.Sprintf("#%d", a.Step)
	if iv := a.Interval; iv != nil {
		step = fmt.Sprintf("interval(months=%d days=%d us=%d)", iv.Months, iv.Days, iv.Micros)
	}
	s := fmt.Sprintf("ExpandExec: generate_series(#%d, #%d, %s)", a.Start, a.Stop, step)
	if e.ordinality {
		s += " with ordinality"
	}
	if e.left {
		s += " left"
	}
	if e.on != nil {
		s += " on " + e.on.String()
	}
	return s
}

// WithNewChildren is e over a new input of the same schema.
func (e *ExpandExec) WithNewChildren(children []Node) (Node, error) {
	if err := WantChildren(e, children, 1); err != nil {
		return nil, err
	}
	return &ExpandExec{input: children[0], args: e.args, ordinality: e.ordinality, left: e.left,
		on: e.on, onBound: e.onBound, schema: e.schema}, nil
}

// Execute implements Node.
func (e *ExpandExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	gen, _, err := newSeriesGen(e.input.Schema(), e.args)
	if err != nil {
		return nil, err
	}
	in, err := e.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &expandStream{n: e, tc: tc, in: in, gen: gen}, nil
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
	gen   seriesGen
	state expandState
	batch arrow.RecordBatch // the current input batch (owned)
	row   int               // the current input row
	ord   int64             // values of the current row's series emitted
	// passed: a row of the current input row's series passed the ON
	// condition (in a flush before its end mark).
	passed bool
	// The output rows held: the input row each repeats, the series value
	// (vals) and ordinal, and whether the function columns are NULL (an
	// end mark, with ON, or an empty series' row of a LEFT expand).
	idx  []int32
	vals seriesBuf
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
				if out, err := s.flush(ctx); out != nil || err != nil {
					return out, err
				}
				continue
			}
			empty, err := s.gen.call(s.batch, s.row)
			if err != nil {
				return nil, err
			}
			s.ord = 0
			if empty {
				s.n.metrics.Add("empty_series", 1)
				if s.n.left {
					s.holdNull()
				}
				s.row++
				if len(s.idx) >= max {
					if out, err := s.flush(ctx); out != nil || err != nil {
						return out, err
					}
				}
				continue
			}
			s.state = expandSeries
		case expandSeries:
			start := time.Now()
			k, done, err := s.gen.next(&s.vals, max-len(s.idx))
			for range k {
				s.ord++
				s.idx = append(s.idx, int32(s.row))
				s.ords = append(s.ords, s.ord)
				s.null = append(s.null, false)
			}
			s.n.metrics.Since(start)
			if err != nil {
				return nil, err
			}
			if done {
				if s.n.on != nil {
					s.holdNull() // the end mark: NULL-extended if no row passed
				}
				s.row++
				s.state = expandNextRow
			}
			if len(s.idx) >= max {
				if out, err := s.flush(ctx); out != nil || err != nil {
					return out, err
				}
			}
		}
	}
}

// holdNull holds the current input row with NULL function columns.
func (s *expandStream) holdNull() {
	s.idx = append(s.idx, int32(s.row))
	s.vals.pad(s.n.schema.Field(int(s.batch.NumCols())).Type)
	s.ords = append(s.ords, 0)
	s.null = append(s.null, true)
}

// flush returns the rows held as a batch (nil when none, or none passed
// the ON condition): the input's columns gathered at idx, then the
// function columns.
func (s *expandStream) flush(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	if s.n.on != nil && len(s.idx) > 0 {
		if err := s.applyOn(ctx); err != nil {
			return nil, err
		}
	}
	if len(s.idx) == 0 {
		return nil, nil
	}
	out, err := s.build(ctx, s.idx, &s.vals, s.ords, s.null)
	s.idx, s.ords, s.null = s.idx[:0], s.ords[:0], s.null[:0]
	s.vals.reset()
	if err != nil {
		return nil, err
	}
	return s.n.metrics.Emit(out, start)
}

// build gathers the input's columns at idx and appends the function
// columns: the series values vals and ordinals ords, NULL where null.
func (s *expandStream) build(ctx context.Context, idx []int32, vals *seriesBuf, ords []int64, null []bool) (arrow.RecordBatch, error) {
	sc := s.n.schema
	mem := s.tc.Allocator()
	cols, err := physexpr.Gather(ctx, mem, s.batch.Columns(), idx, nil, make([]arrow.Array, 0, sc.NumFields()))
	if err != nil {
		ReleaseArrays(cols)
		return nil, fmt.Errorf("exec: expand: %w", err)
	}
	valType := sc.Field(int(s.batch.NumCols())).Type
	cols = append(cols, vals.column(mem, valType, null))
	if s.n.ordinality {
		cols = append(cols, intColumn(mem, arrow.PrimitiveTypes.Int64, ords, null))
	}
	out := array.NewRecordBatch(sc, cols, int64(len(idx)))
	ReleaseArrays(cols)
	return out, nil
}

// intColumn builds an int32, int64 or timestamp column of vs, NULL where null[i].
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
	if ts, ok := t.(*arrow.TimestampType); ok {
		b := array.NewTimestampBuilder(mem, ts)
		defer b.Release()
		b.Reserve(len(vs))
		for i, v := range vs {
			if null[i] {
				b.UnsafeAppendBoolToBitmap(false)
			} else {
				b.UnsafeAppend(arrow.Timestamp(v))
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
