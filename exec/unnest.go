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

// UnnestExec unnests a list WITH ORDINALITY: output (value, ord int64 1-based),
// chunked by BatchSize. The list is a literal or TaskContext.Params[Param].
// Supported list types: []uint64, []int64, []string and their pointer forms
// []*uint64, []*int64, []*string (nil = NULL); a parameter may also be a
// ListSource, read array by array as the stream goes (listsource.go).
type UnnestExec struct {
	literal any
	param   int
	isParam bool
	schema  *arrow.Schema
	metrics Metrics
}

func unnestSchema(t arrow.DataType) *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "value", Type: t, Nullable: true},
		{Name: "ord", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
}

func listType(v any) (arrow.DataType, error) {
	switch v.(type) {
	case []uint64, []*uint64:
		return arrow.PrimitiveTypes.Uint64, nil
	case []int64, []*int64:
		return arrow.PrimitiveTypes.Int64, nil
	case []string, []*string:
		return arrow.BinaryTypes.String, nil
	}
	return nil, fmt.Errorf("%w: unnest list of type %T", physexpr.ErrInvalidArgument, v)
}

// NewUnnestExec unnests a literal list.
func NewUnnestExec(list any) (*UnnestExec, error) {
	t, err := listType(list)
	if err != nil {
		return nil, err
	}
	return &UnnestExec{literal: list, schema: unnestSchema(t)}, nil
}

// NewUnnestParamExec unnests bound parameter param of element type t
// (Int64, Uint64 or String).
func NewUnnestParamExec(param int, t arrow.DataType) (*UnnestExec, error) {
	if t.ID() != arrow.INT64 && t.ID() != arrow.UINT64 && t.ID() != arrow.STRING {
		return nil, fmt.Errorf("%w: unnest element type %s", physexpr.ErrInvalidArgument, t)
	}
	return &UnnestExec{param: param, isParam: true, schema: unnestSchema(t)}, nil
}

func (u *UnnestExec) Name() string          { return "UnnestExec" }
func (u *UnnestExec) Schema() *arrow.Schema { return u.schema }
func (u *UnnestExec) Children() []Node      { return nil }
func (u *UnnestExec) Metrics() *Metrics     { return &u.metrics }
func (u *UnnestExec) Properties() Properties {
	return Properties{Ordering: []SortKey{{Column: 1, Name: "ord"}}}
}
func (u *UnnestExec) String() string {
	if u.isParam {
		return fmt.Sprintf("UnnestExec: list=$%d ordinality=true", u.param)
	}
	return fmt.Sprintf("UnnestExec: list=literal[%d] ordinality=true", listLen(u.literal))
}

func listLen(v any) int {
	switch l := v.(type) {
	case []uint64:
		return len(l)
	case []int64:
		return len(l)
	case []*uint64:
		return len(l)
	case []*int64:
		return len(l)
	case []string:
		return len(l)
	case []*string:
		return len(l)
	}
	return 0
}

func (u *UnnestExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	list := u.literal
	if u.isParam {
		var ok bool
		if tc != nil {
			list, ok = tc.Params[u.param]
		}
		if !ok {
			return nil, fmt.Errorf("%w: unnest parameter $%d not bound", physexpr.ErrInvalidArgument, u.param)
		}
		if src, ok := list.(ListSource); ok {
			return u.executeSource(ctx, tc, src)
		}
		t, err := listType(list)
		if err != nil {
			return nil, err
		}
		if !arrow.TypeEqual(t, u.schema.Field(0).Type) {
			return nil, fmt.Errorf("%w: parameter $%d is %T, want list of %s", physexpr.ErrSchema, u.param, list, u.schema.Field(0).Type)
		}
	}
	return &unnestStream{n: u, tc: tc, list: list, total: listLen(list)}, nil
}

// executeSource opens a streamed list parameter.
func (u *UnnestExec) executeSource(ctx context.Context, tc *TaskContext, src ListSource) (Stream, error) {
	if t := src.ElemType(); !arrow.TypeEqual(t, u.schema.Field(0).Type) {
		return nil, fmt.Errorf("%w: parameter $%d is a stream of %s, want list of %s", physexpr.ErrSchema, u.param, t, u.schema.Field(0).Type)
	}
	rd, err := src.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &sourceStream{n: u, tc: tc, rd: rd}, nil
}

type unnestStream struct {
	n          *UnnestExec
	tc         *TaskContext
	list       any
	off, total int
	closed     bool
}

func (s *unnestStream) Schema() *arrow.Schema { return s.n.schema }
func (s *unnestStream) Close() error          { s.closed = true; return nil }

func (s *unnestStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.off >= s.total {
		return nil, io.EOF
	}
	start := time.Now()
	mem := s.tc.Allocator()
	lo, hi := s.off, min(s.total, s.off+s.tc.RowsPerBatch())
	s.off = hi
	var vals arrow.Array
	switch l := s.list.(type) {
	case []uint64:
		vals = buildValues(array.NewUint64Builder(mem), l[lo:hi])
	case []int64:
		vals = buildValues(array.NewInt64Builder(mem), l[lo:hi])
	case []*uint64:
		vals = buildNullableValues(array.NewUint64Builder(mem), l[lo:hi])
	case []*int64:
		vals = buildNullableValues(array.NewInt64Builder(mem), l[lo:hi])
	case []string:
		vals = buildStrings(mem, l[lo:hi])
	case []*string:
		vals = buildNullableStrings(mem, l[lo:hi])
	}
	ob := array.NewInt64Builder(mem)
	ob.Reserve(hi - lo)
	for i := lo; i < hi; i++ {
		ob.UnsafeAppend(int64(i + 1))
	}
	ords := ob.NewArray()
	ob.Release()
	out := array.NewRecordBatch(s.n.schema, []arrow.Array{vals, ords}, int64(hi-lo))
	vals.Release()
	ords.Release()
	return s.n.metrics.Emit(out, start)
}

// valueBuilder is the part of arrow-go's typed builders the unnest needs.
type valueBuilder[T any] interface {
	Reserve(n int)
	AppendValues(v []T, valid []bool)
	UnsafeAppend(v T)
	UnsafeAppendBoolToBitmap(isValid bool)
	NewArray() arrow.Array
	Release()
}

// buildValues turns a slice into an array with the builder, then releases it.
func buildValues[T any](b valueBuilder[T], v []T) arrow.Array {
	defer b.Release()
	b.AppendValues(v, nil)
	return b.NewArray()
}

// buildNullableValues is buildValues for a list whose nil elements are NULLs.
func buildNullableValues[T any](b valueBuilder[T], v []*T) arrow.Array {
	defer b.Release()
	b.Reserve(len(v))
	for _, p := range v {
		if p == nil {
			b.UnsafeAppendBoolToBitmap(false)
		} else {
			b.UnsafeAppend(*p)
		}
	}
	return b.NewArray()
}

// buildStrings is buildValues for text (arrow's string builder appends
// strings through its own methods).
func buildStrings(mem memory.Allocator, v []string) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues(v, nil)
	return b.NewArray()
}

// buildNullableStrings is buildStrings for a list whose nil elements are NULLs.
func buildNullableStrings(mem memory.Allocator, v []*string) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(len(v))
	for _, p := range v {
		if p == nil {
			b.AppendNull()
		} else {
			b.Append(*p)
		}
	}
	return b.NewArray()
}
