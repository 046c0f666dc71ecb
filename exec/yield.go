package exec

import "context"

// pass is a batch boundary of a leaf operator (scan, generate_series):
// a heavy statement's goroutine parks there while the server runs light
// statements (TaskContext.Priority). Every pipeline starts at a leaf, so
// every operator that pulls its input batch by batch (a join's build, an
// aggregation's fold, a sort's read) passes it once a batch.
func (tc *TaskContext) pass(ctx context.Context) error {
	if tc == nil {
		return nil
	}
	return tc.Priority.Pass(ctx)
}

// idle is a consumer's wait for batches that other goroutines make (a
// merge of partitions, a repartition's output): its goroutine gives up
// its lease on a core (priority.Heavy.Idle) so that they can run.
func (tc *TaskContext) idle(ctx context.Context) {
	if tc != nil {
		tc.Priority.Idle(ctx)
	}
}

// passStride is how many iterations a long loop runs between two passes
// of the gate: a millisecond of comparisons or so.
const passStride = 1 << 14

// passer is the gate's pass for a long loop with no batch boundary in it
// (a sort's comparisons, a radix pass over millions of words): call it
// with the iterations done since the last call, and once passStride
// have added up it passes tc's gate. Nil when tc has no gate, so a loop
// outside a server costs nothing more. One loop, one goroutine: the
// count is not synchronized. A cancelled ctx is not reported here: the
// loop's caller sees it after the loop.
func (tc *TaskContext) passer(ctx context.Context) func(n int) {
	if tc == nil || tc.Priority == nil {
		return nil
	}
	done := 0
	return func(n int) {
		if done += n; done >= passStride {
			done = 0
			_ = tc.Priority.Pass(ctx)
		}
	}
}

// passing is cmp calling pass before each comparison (cmp itself for a
// nil pass).
func passing[T any](cmp func(a, b T) int, pass func(int)) func(a, b T) int {
	if pass == nil {
		return cmp
	}
	return func(a, b T) int {
		pass(1)
		return cmp(a, b)
	}
}
