package engine

import (
	"context"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/priority"
)

type priorityKey struct{}

// WithPriority runs the statements of ctx under a server's priority gate
// (package priority): a statement whose plan holds memory that grows with
// its input (exec.HoldsMemory, the statements admission calls heavy)
// passes g between batches and parks while light statements run, and the
// ticket of ctx's call (priority.TicketOf), which counted it as light
// until it was planned, is demoted before it waits for admission.
func WithPriority(ctx context.Context, g *priority.Gate) context.Context {
	return context.WithValue(ctx, priorityKey{}, g)
}

// heavyPass is the statement's pass through ctx's gate: nil for a light
// plan or without a gate.
func heavyPass(ctx context.Context, node exec.Node) *priority.Heavy {
	g, _ := ctx.Value(priorityKey{}).(*priority.Gate)
	if g == nil || !exec.HoldsMemory(node) {
		return nil
	}
	priority.TicketOf(ctx).Demote()
	return g.Heavy()
}
