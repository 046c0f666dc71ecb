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

// lastSent is the batch DoGet took last from a stream's channel. DoGet
// releases each batch once written and takes the next only then, so only
// the last one taken may be left unreleased (its write failed); finish,
// run after the call's handler returned, releases it. A batch recorded
// after finish (the producer records it just after the hand-off, and the
// handler may return in between) is released at once: nobody can touch it
// any more.
type lastSent struct {
	mu   sync.Mutex
	b    *sentBatch
	done bool
}

// track makes the stream's afterCall release the last batch.
func trackLast(ctx context.Context) *lastSent {
	l := &lastSent{}
	if a := afterCallOf(ctx); a != nil {
		a.add(l.finish)
	}
	return l
}

func (l *lastSent) set(b *sentBatch) {
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		b.Release()
		return
	}
	l.b = b
	l.mu.Unlock()
}

func (l *lastSent) finish() {
	l.mu.Lock()
	l.done = true
	b := l.b
	l.mu.Unlock()
	if b != nil {
		b.Release()
	}
}
