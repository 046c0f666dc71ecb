package server

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
)

// afterCall runs functions once a streaming call's handler has returned.
//
// Why: flightsql's DoGet releases a batch from our channel only once it
// was written; when the write fails (the client went away) the batch is
// dropped unreleased. Only after the handler returns is it certain nobody
// touches the batch any more, so that is where the stream releases it
// (see sentBatch).
type afterCall struct {
	mu  sync.Mutex
	fns []func()
}

type afterCallKey struct{}

func (a *afterCall) add(f func()) {
	a.mu.Lock()
	a.fns = append(a.fns, f)
	a.mu.Unlock()
}

func (a *afterCall) run() {
	a.mu.Lock()
	fns := a.fns
	a.fns = nil
	a.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

func afterCallOf(ctx context.Context) *afterCall {
	a, _ := ctx.Value(afterCallKey{}).(*afterCall)
	return a
}

// afterCallMiddleware gives every streaming call an afterCall, run when
// its handler returns. It is the innermost interceptor, so the handler
// sees its context.
func afterCallMiddleware() flight.ServerMiddleware {
	return flight.ServerMiddleware{Stream: func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		a := &afterCall{}
		defer a.run()
		return handler(srv, &ctxStream{ServerStream: ss, ctx: context.WithValue(ss.Context(), afterCallKey{}, a)})
	}}
}

type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *ctxStream) Context() context.Context { return s.ctx }

// sentBatch is a batch handed to DoGet: released once, by DoGet after the
// write or by the stream after the call, whichever comes first.
type sentBatch struct {
	arrow.RecordBatch
	once sync.Once
}

func (b *sentBatch) Release() { b.once.Do(b.RecordBatch.Release) }
