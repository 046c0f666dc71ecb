package main

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// arrowSink writes a result as one Arrow IPC stream (schema, the record
// batches as they come, end-of-stream marker): the batches go out as the
// engine made them, typed, NULLs as validity bits, with no text on the
// way. Each result set of a script is a stream of its own, one after the
// other.
type arrowSink struct {
	w   *ipc.Writer
	err error // the first write error
}

func newArrowSink(w io.Writer, schema *arrow.Schema) *arrowSink {
	return &arrowSink{w: ipc.NewWriter(w, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))}
}

// batch writes the first n rows of b.
func (s *arrowSink) batch(b arrow.RecordBatch, n int) {
	if s.err != nil {
		return
	}
	if n == int(b.NumRows()) {
		s.err = s.w.Write(b)
		return
	}
	part := b.NewSlice(0, int64(n))
	defer part.Release()
	s.err = s.w.Write(part)
}

func (s *arrowSink) row(b arrow.RecordBatch, r int) {
	if s.err != nil {
		return
	}
	part := b.NewSlice(int64(r), int64(r+1))
	defer part.Release()
	s.err = s.w.Write(part)
}

// finish writes the end-of-stream marker even for an empty result, so a
// reader sees the schema and no batches.
func (s *arrowSink) finish() error {
	if err := s.w.Close(); s.err == nil {
		s.err = err
	}
	return s.err
}
