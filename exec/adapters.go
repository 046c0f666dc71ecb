package exec

import (
	"context"
	"errors"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// FromRecordReader adapts a RecordReader; batches the reader lends are
// retained so the caller owns what Next returns. Close releases the reader.
func FromRecordReader(r array.RecordReader) Stream { return &readerStream{r: r} }

type readerStream struct {
	r      array.RecordReader
	closed bool
}

func (s *readerStream) Schema() *arrow.Schema { return s.r.Schema() }

func (s *readerStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !s.r.Next() {
		if err := s.r.Err(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	b := s.r.RecordBatch()
	b.Retain()
	return b, nil
}

func (s *readerStream) Close() error {
	if !s.closed {
		s.closed = true
		s.r.Release()
	}
	return nil
}

// ToRecordReader adapts a Stream to a RecordReader (using context.Background).
// The last batch is owned by the reader and released on the next Next/Release.
func ToRecordReader(s Stream) array.RecordReader {
	r := &streamReader{s: s}
	r.refs.Store(1)
	return r
}

type streamReader struct {
	refs atomic.Int64
	s    Stream
	cur  arrow.RecordBatch
	err  error
	done bool
}

func (r *streamReader) Retain() { r.refs.Add(1) }
func (r *streamReader) Release() {
	if r.refs.Add(-1) == 0 {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.s.Close()
	}
}
func (r *streamReader) Schema() *arrow.Schema { return r.s.Schema() }
func (r *streamReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.done {
		return false
	}
	b, err := r.s.Next(context.Background())
	if err != nil {
		r.done = true
		if !errors.Is(err, io.EOF) {
			r.err = err
		}
		return false
	}
	r.cur = b
	return true
}
func (r *streamReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *streamReader) Record() arrow.RecordBatch      { return r.cur }
func (r *streamReader) Err() error                     { return r.err }

// Collect drains s, closes it and returns all batches (caller releases them).
// On error every batch collected so far is released.
func Collect(ctx context.Context, s Stream) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	for {
		b, err := s.Next(ctx)
		if err != nil {
			cerr := s.Close()
			if errors.Is(err, io.EOF) {
				return out, cerr
			}
			for _, o := range out {
				o.Release()
			}
			return nil, err
		}
		out = append(out, b)
	}
}
