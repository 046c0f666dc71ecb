package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/exec"
)

// uploadSource is a parameter upload streaming into the statement the
// DoPut runs (uploads.go): an exec.ListSource whose reader takes the
// batches off the network one at a time, as the statement's UnnestExec
// asks for them. It holds the batch it handed out last, counted in h
// until the next one replaces it, so the upload's memory is one batch.
// It is read once; a failed or cancelled upload ends the read with its
// error, which fails the statement (nothing commits).
type uploadSource struct {
	h   *heldParams
	rdr flight.MessageReader
	typ arrow.DataType

	mu     sync.Mutex
	first  arrow.RecordBatch // read to see the schema; nil once handed out
	held   int64             // bytes of the batch last read, counted in h
	opened bool
	closed bool
	rows   int64 // read so far
}

var _ exec.ListSource = (*uploadSource)(nil)

func (u *uploadSource) ElemType() arrow.DataType { return u.typ }

// Open implements exec.ListSource: once.
func (u *uploadSource) Open(context.Context) (exec.ListReader, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.opened || u.closed {
		return nil, ErrUploadReread
	}
	u.opened = true
	return uploadReader{u}, nil
}

// close releases the first batch if nobody read it; the caller releases h.
func (u *uploadSource) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.closed = true
	if u.first != nil {
		u.first.Release()
		u.first = nil
	}
}

type uploadReader struct{ u *uploadSource }

// Next implements exec.ListReader.
func (r uploadReader) Next(ctx context.Context) (arrow.Array, error) {
	u := r.u
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return nil, exec.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b := u.first
	u.first = nil
	if b == nil {
		// The batch handed out before stays counted until the next one
		// comes (the statement may still hold it), then is the
		// statement's own to account for.
		more := u.rdr.Next()
		u.h.shrink(u.held)
		u.held = 0
		if !more {
			if err := u.rdr.Err(); err != nil && !errors.Is(err, io.EOF) {
				return nil, status.Errorf(status.Code(err), "parameters: upload after %d rows: %v", u.rows, err)
			}
			return nil, io.EOF
		}
		b = u.rdr.RecordBatch()
		n := recordBytes(b)
		if err := u.h.grow(n); err != nil {
			return nil, err
		}
		u.held = n
		if err := array.ValidateRecordFull(b); err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "parameters: %v", err)
		}
		b.Retain()
	}
	defer b.Release()
	if !arrow.TypeEqual(b.Schema().Field(0).Type, u.typ) {
		return nil, status.Errorf(codes.InvalidArgument, "parameters: batches of types %s and %s", u.typ, b.Schema().Field(0).Type)
	}
	u.rows += b.NumRows()
	c := b.Column(0)
	c.Retain()
	return c, nil
}

// Close implements exec.ListReader. The rest of the upload is not read:
// a statement that stops early (a LIMIT) is done with it.
func (r uploadReader) Close() error { return nil }

// String names the source in errors and plans.
func (u *uploadSource) String() string { return fmt.Sprintf("upload of %s", u.typ) }
