package exec

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// GenerateSeriesExec emits start, start+step, ... up to and including stop
// (Postgres generate_series over bigint) as one non-nullable int64 column,
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
// named name. step must not be zero.
func NewGenerateSeriesExec(name string, start, stop, step int64) (*GenerateSeriesExec, error) {
	if step == 0 {
		return nil, fmt.Errorf("%w: generate_series step must not be zero", ErrInvalidArgument)
	}
	var count uint64
	switch {
	case step > 0 && start <= stop:
		count = (uint64(stop)-uint64(start))/uint64(step) + 1
	case step < 0 && start >= stop:
		count = (uint64(start)-uint64(stop))/(uint64(-(step+1))+1) + 1 // -(step+1)+1 avoids negating MinInt64
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: arrow.PrimitiveTypes.Int64}}, nil)
	return &GenerateSeriesExec{start: start, stop: stop, step: step, count: count, schema: schema}, nil
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
	n := min(s.n.count-s.off, uint64(s.tc.batchSize()))
	b := array.NewInt64Builder(s.tc.mem())
	defer b.Release()
	b.Reserve(int(n))
	v := uint64(s.n.start) + s.off*uint64(s.n.step)
	for range n {
		b.UnsafeAppend(int64(v))
		v += uint64(s.n.step)
	}
	s.off += n
	col := b.NewArray()
	out := array.NewRecordBatch(s.n.schema, []arrow.Array{col}, int64(n))
	col.Release()
	return s.n.metrics.emit(out, start)
}
