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
)

// ListSource is a list bound as a stream of Arrow arrays rather than as a
// Go slice: a parameter upload read as it arrives (the server's DoPut of
// a prepared update), or read back from the file it was spilled to.
// UnnestExec reads it one array at a time, so the statement holds about
// one array of it, however long the list.
type ListSource interface {
	// ElemType is the type of the list's values (Int64 or String).
	ElemType() arrow.DataType
	// Open starts a read of the list from its start. A source that can be
	// read only once (an upload streaming into the statement) fails a
	// second Open with ErrInvalidArgument.
	Open(ctx context.Context) (ListReader, error)
}

// ListReader reads a ListSource.
type ListReader interface {
	// Next returns the next values; the caller releases them. io.EOF
	// after the last; any other error (a cancelled upload) ends the
	// statement with it, never as a shorter list.
	Next(ctx context.Context) (arrow.Array, error)
	Close() error
}

// sourceStream is UNNEST of a ListSource: each Next emits up to BatchSize
// values of the array read last, sliced (not copied), with their
// ordinals counted across arrays.
type sourceStream struct {
	n      *UnnestExec
	tc     *TaskContext
	rd     ListReader
	cur    arrow.Array // the array being emitted (nil: read the next)
	off    int         // the next value of cur
	ord    int64       // ordinal of the last value emitted
	done   bool
	closed bool
}

func (s *sourceStream) Schema() *arrow.Schema { return s.n.schema }

func (s *sourceStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	return s.rd.Close()
}

func (s *sourceStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.done {
			return nil, io.EOF
		}
		if s.cur == nil {
			a, err := s.rd.Next(ctx)
			if errors.Is(err, io.EOF) {
				s.done = true
				continue
			}
			if err != nil {
				return nil, err
			}
			if !arrow.TypeEqual(a.DataType(), s.n.schema.Field(0).Type) {
				t := a.DataType()
				a.Release()
				return nil, fmt.Errorf("%w: parameter $%d streamed values of type %s, want %s", physexpr.ErrSchema, s.n.param, t, s.n.schema.Field(0).Type)
			}
			s.cur, s.off = a, 0
		}
		if s.off >= s.cur.Len() {
			s.cur.Release()
			s.cur = nil
			continue
		}
		return s.emit()
	}
}

func (s *sourceStream) emit() (arrow.RecordBatch, error) {
	start := time.Now()
	lo, hi := s.off, min(s.cur.Len(), s.off+s.tc.RowsPerBatch())
	s.off = hi
	vals := array.NewSlice(s.cur, int64(lo), int64(hi))
	ob := array.NewInt64Builder(s.tc.Allocator())
	ob.Reserve(hi - lo)
	for i := lo; i < hi; i++ {
		s.ord++
		ob.UnsafeAppend(s.ord)
	}
	ords := ob.NewArray()
	ob.Release()
	out := array.NewRecordBatch(s.n.schema, []arrow.Array{vals, ords}, int64(hi-lo))
	vals.Release()
	ords.Release()
	return s.n.metrics.Emit(out, start)
}
