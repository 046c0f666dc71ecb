package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// CoalescePartitionsExec merges the partitions of its input into one
// stream, in whatever order the partitions produce their batches: the
// parallel input of a node that needs one stream (a LIMIT, the final
// aggregate of a grouping-less aggregation, the root).
//
// The stream is a state machine:
//
//	         first Next: one driver goroutine per input
//	         partition, each sending its batches to a
//	         channel of len(partitions) batches
//	start ───────────────────────────────┐
//	                                     ▼
//	                               ┌──────────┐ a batch from the channel
//	                               │ running  │──────────────────────────▶ caller
//	                               └──────────┘
//	        channel closed: every      │    a driver's error (it cancels
//	        driver done                │    the others), or ctx cancelled
//	                                   ▼
//	                               ┌──────────┐
//	                               │   done   │ io.EOF, or the first error
//	                               └──────────┘
//
// Close from any state cancels the drivers, waits for them (each closes
// its own input stream) and releases the batches left in the channel, so
// no goroutine and no buffer outlives the stream. Memory: at most
// partitions batches in the channel plus one in flight per driver.
type CoalescePartitionsExec struct {
	input   Node
	metrics Metrics
}

// NewCoalescePartitionsExec merges input's partitions.
func NewCoalescePartitionsExec(input Node) *CoalescePartitionsExec {
	return &CoalescePartitionsExec{input: input}
}

func (c *CoalescePartitionsExec) Name() string           { return "CoalescePartitionsExec" }
func (c *CoalescePartitionsExec) Schema() *arrow.Schema  { return c.input.Schema() }
func (c *CoalescePartitionsExec) Children() []Node       { return []Node{c.input} }
func (c *CoalescePartitionsExec) Properties() Properties { return Properties{} }
func (c *CoalescePartitionsExec) Metrics() *Metrics      { return &c.metrics }
func (c *CoalescePartitionsExec) String() string {
	return fmt.Sprintf("CoalescePartitionsExec: partitions=%d", OutputPartitions(c.input))
}

func (c *CoalescePartitionsExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	ins, err := ExecutePartitions(ctx, c.input, tc)
	if err != nil {
		return nil, err
	}
	return &coalesceStream{schema: c.input.Schema(), m: &c.metrics, ins: ins, tc: tc}, nil
}

type coalesceState int

const (
	coalesceStart coalesceState = iota
	coalesceRunning
	coalesceDone
)

// coalesceStream is the merge of any streams; RepartitionExec's Execute
// uses it too.
type coalesceStream struct {
	schema *arrow.Schema
	m      *Metrics
	tc     *TaskContext
	ins    []Stream
	state  coalesceState
	w      *workers
	ch     chan arrow.RecordBatch
	closed chan struct{} // closed when every driver has returned and ch is closed
	err    error         // the error that ended the stream, returned again
}

func (s *coalesceStream) Schema() *arrow.Schema { return s.schema }

func (s *coalesceStream) start(ctx context.Context) {
	s.w = newWorkers(ctx)
	s.ch = make(chan arrow.RecordBatch, len(s.ins))
	s.closed = make(chan struct{})
	for _, in := range s.ins {
		s.w.spawn(func(ctx context.Context) error { return drive(ctx, in, s.ch) })
	}
	s.ins = nil // the drivers own and close them
	go func() {
		s.w.wg.Wait()
		close(s.ch)
		close(s.closed)
	}()
	s.state = coalesceRunning
}

// drive sends in's batches to ch until EOF, an error or cancellation, and
// closes in.
func drive(ctx context.Context, in Stream, ch chan<- arrow.RecordBatch) (err error) {
	defer func() {
		if cerr := in.Close(); err == nil {
			err = cerr
		}
	}()
	for {
		b, err := in.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case ch <- b:
		case <-ctx.Done():
			b.Release()
			return ctx.Err()
		}
	}
}

func (s *coalesceStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		switch s.state {
		case coalesceStart:
			s.start(ctx)
		case coalesceRunning:
			if err := s.w.failure(); err != nil {
				return nil, s.finish(err)
			}
			wait := time.Now()
			select {
			case b, ok := <-s.ch:
				return s.received(b, ok, wait)
			default: // the drivers run: give up the lease while waiting (idle)
				s.tc.idle(ctx)
			}
			select {
			case b, ok := <-s.ch:
				return s.received(b, ok, wait)
			case <-ctx.Done():
				return nil, s.finish(ctx.Err())
			}
		case coalesceDone:
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
	}
}

// received is Next's answer once a batch (or the channel's close: !ok)
// came from the drivers, wait after it began waiting.
func (s *coalesceStream) received(b arrow.RecordBatch, ok bool, wait time.Time) (arrow.RecordBatch, error) {
	s.m.Add("wait_ns", int64(time.Since(wait)))
	if !ok {
		return nil, s.finish(s.w.failure())
	}
	return s.m.Emit(b, time.Now())
}

// finish moves to done with err (nil: EOF), stopping the drivers.
func (s *coalesceStream) finish(err error) error {
	s.state, s.err = coalesceDone, err
	s.stop()
	if err == nil {
		return io.EOF
	}
	return err
}

func (s *coalesceStream) stop() {
	if s.w == nil {
		return
	}
	s.w.stop()
	<-s.closed
	for b := range s.ch {
		b.Release()
	}
	s.w = nil
}

func (s *coalesceStream) Close() error {
	if s.state == coalesceStart {
		s.state = coalesceDone
		err := closeStreams(s.ins)
		s.ins = nil
		return err
	}
	s.state = coalesceDone
	s.stop()
	return nil
}
