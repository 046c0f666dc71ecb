package engine

import (
	"context"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// Admit admits one planned statement to a memory budget shared by many
// (the Flight SQL server's): it may wait for room, and returns the
// statement's pool, drawing from the budget (memlimit.Pool.Child), or an
// error, and then the statement does not run. heavy reports whether the
// plan holds operators whose memory grows with their input
// (exec.HoldsMemory); limit is the statement's own limit (Options.
// MemoryLimit or SET memory_limit, 0 for none). The engine closes the pool
// when the statement ends.
type Admit func(ctx context.Context, heavy bool, limit int64) (*memlimit.Pool, error)

type admitKey struct{}

// WithAdmission runs the statements of ctx under admit: each one is
// admitted once planned, and its operators reserve from the pool admit
// returns instead of a pool of its own. Plans are made as under a memory
// limit (plan.Options.MemoryLimited: one sort or aggregation instance over
// merged partitions, which spills its way through a shared budget).
func WithAdmission(ctx context.Context, admit Admit) context.Context {
	return context.WithValue(ctx, admitKey{}, admit)
}

func admitOf(ctx context.Context) Admit {
	a, _ := ctx.Value(admitKey{}).(Admit)
	return a
}

// memoryLimited: statements of ctx run under a bound (their own or a
// shared budget's), so the planner keeps spilling operators serial.
func (db *DB) memoryLimited(ctx context.Context) bool {
	return db.MemoryLimit() > 0 || admitOf(ctx) != nil
}

// statementPool is the pool of one planned statement: the admission's of
// ctx, else one of the statement's own limit (nil: no limit). Close it
// when the statement ends.
func (db *DB) statementPool(ctx context.Context, node exec.Node) (*memlimit.Pool, error) {
	admit := admitOf(ctx)
	if admit == nil {
		return db.newPool(), nil
	}
	return admit(ctx, exec.HoldsMemory(node), db.MemoryLimit())
}
