package server

import (
	"context"

	"google.golang.org/grpc"

	"github.com/stablerow/stablerow/exec/priority"
)

// Light statements run ahead of heavy ones (package priority): every call
// holds a light ticket from the moment its handler starts, so heavy
// statements park at their next batch boundary and the call finds idle
// cores for its parsing, planning and answer. The engine demotes the
// ticket of a statement it plans as heavy (engine.WithPriority), before
// the statement waits for admission; DoGet demotes the ticket of a heavy
// result's stream. A light query's result keeps a ticket of its own
// from GetFlightInfo until its DoGet ends (result.light), so the round
// trip between the two calls is covered too. Tickets stop counting after
// priority.DefaultMaxLight, so a light statement that streams for long,
// or a result nobody fetches, holds nobody back for more than that.
//
// The interceptors run after authentication: a caller without
// credentials gets no priority.

func priorityUnary(g *priority.Gate) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		t := g.Light()
		defer t.Done()
		return handler(priority.WithTicket(ctx, t), req)
	}
}

func priorityStream(g *priority.Gate) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		t := g.Light()
		defer t.Done()
		return handler(srv, &ctxStream{ServerStream: ss, ctx: priority.WithTicket(ss.Context(), t)})
	}
}
