package exec

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// GenerateSeriesExec emits start, start+step, ... up to and including stop
// (Postgres generate_series over bigint, or over integer: an int32
// column, PostgreSQL's generate_series(int4, int4), whose arithmetic on
// the values then overflows as integer does) as one non-nullable column,
// chunked by BatchSize. A series whose first value is already past stop is
// empty. Values are computed as start + i*step in wrapping uint64
// arithmetic, which is exact because every emitted value lies between start
// and stop: no overflow even for series that end at the int64 limits.
type GenerateSeriesExec struct {
	start, stop, step int64
	count             uint64 // number of values in the series
	schema            *arrow.Schema
	metrics           Metrics
}

// NewGenerateSeriesExec returns the series start..stop by step, in a column
// named name of type typ (int64 or int32; for int32 the bounds and step
// must be int32 values). step must not be zero.
func NewGenerateSeriesExec(name string, typ arrow.DataType, start, stop, step int64) (*GenerateSeriesExec, error) {
	if step == 0 {
		return nil, fmt.Errorf("%w: generate_series step must not be zero", physexpr.ErrInvalidArgument)
	}
	switch typ.ID() {
	case arrow.INT64:
	case arrow.INT32:
		for _, v := range []int64{start, stop, step} {
			if v < math.MinInt32 || v > math.MaxInt32 {
				return nil, fmt.Errorf("%w: generate_series over integer: %d is out of range for type integer", physexpr.ErrOutOfRange, v)
			}
		}
	default:
		return nil, fmt.Errorf("%w: generate_series of %s", physexpr.ErrInvalidArgument, typ)
	}
	count := seriesCount(start, stop, step)
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: typ}}, nil)
	return &GenerateSeriesExec{start: start, stop: stop, step: step, count: count, schema: schema}, nil
}

// seriesCount is the number of values of start..stop by step (step not
// zero; ExpandExec shares it): none when start is already past stop.
func seriesCount(start, stop, step int64) uint64 {
	switch {
	case step > 0 && start <= stop:
		return (uint64(stop)-uint64(start))/uint64(step) + 1
	case step < 0 && start >= stop:
		return (uint64(start)-uint64(stop))/(uint64(-(step+1))+1) + 1 // -(step+1)+1 avoids negating MinInt64
	}
	return 0
}

func (g *GenerateSeriesExec) Name() string          { return "GenerateSeriesExec" }
func (g *GenerateSeriesExec) Schema() *arrow.Schema { return g.schema }
func (g *GenerateSeriesExec) Children() []Node      { return nil }
func (g *GenerateSeriesExec) Metrics() *Metrics     { return &g.metrics }

// Properties: the series is ordered by its only column, descending for a
// negative step (with Postgres' default NULLS FIRST for DESC; there are no NULLs).
func (g *GenerateSeriesExec) Properties() Properties {
	desc := g.step < 0
	return Properties{Ordering: []SortKey{{Column: 0, Name: g.schema.Field(0).Name, Descending: desc, NullsFirst: desc}}}
}

func (g *GenerateSeriesExec) String() string {
	return fmt.Sprintf("GenerateSeriesExec: start=%d stop=%d step=%d rows=%d", g.start, g.stop, g.step, g.count)
}

// Execute implements Node.
func (g *GenerateSeriesExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	return &seriesStream{n: g, tc: tc}, nil
}

type seriesStream struct {
	n      *GenerateSeriesExec
	tc     *TaskContext
	off    uint64 // values emitted so far
	closed bool
}

func (s *seriesStream) Schema() *arrow.Schema { return s.n.schema }
func (s *seriesStream) Close() error          { s.closed = true; return nil }

// Next implements Stream.
func (s *seriesStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.off >= s.n.count {
		return nil, io.EOF
	}
	if err := s.tc.pass(ctx); err != nil {
		return nil, err
	}
	start := time.Now()
	n := min(s.n.count-s.off, uint64(s.tc.RowsPerBatch()))
	v := uint64(s.n.start) + s.off*uint64(s.n.step)
	var col arrow.Array
	if s.n.schema.Field(0).Type.ID() == arrow.INT32 {
		b := array.NewInt32Builder(s.tc.Allocator())
		b.Reserve(int(n))
		for range n {
			b.UnsafeAppend(int32(int64(v))) // between start and stop: an int32
			v += uint64(s.n.step)
		}
		col = b.NewArray()
		b.Release()
	} else {
		b := array.NewInt64Builder(s.tc.Allocator())
		b.Reserve(int(n))
		for range n {
			b.UnsafeAppend(int64(v))
			v += uint64(s.n.step)
		}
		col = b.NewArray()
		b.Release()
	}
	s.off += n
	out := array.NewRecordBatch(s.n.schema, []arrow.Array{col}, int64(n))
	col.Release()
	return s.n.metrics.Emit(out, start)
}
