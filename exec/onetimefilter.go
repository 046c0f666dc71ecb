package exec

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
)

// A filter whose condition is a constant FALSE or NULL keeps no row
// whatever its input holds, and PostgreSQL plans it as a gating Result
// (One-Time Filter: false, create_gating_plan): the input is planned but
// never executed, so nothing evaluated per row under it (a WHERE's
// x / 0, an aggregate's arguments) can raise. NewOneTimeFalseFilterExec
// is that filter: its stream ends at once and its input's Execute is
// never called. EXPLAIN shows the input as PostgreSQL's EXPLAIN ANALYZE
// does, "(never executed)", with no metrics (NeverExecuted).

// NewOneTimeFalseFilterExec is a FilterExec that keeps no row and never
// executes input.
func NewOneTimeFalseFilterExec(input Node) *FilterExec {
	return &FilterExec{input: input, oneTimeFalse: true}
}

// NeverExecuted: n never executes its children (a one-time FALSE filter).
func NeverExecuted(n Node) bool {
	f, ok := n.(*FilterExec)
	return ok && f.oneTimeFalse
}

// noRows is the stream of a one-time FALSE filter: no batch.
type noRows struct{ schema *arrow.Schema }

func (s noRows) Schema() *arrow.Schema                           { return s.schema }
func (s noRows) Next(context.Context) (arrow.RecordBatch, error) { return nil, io.EOF }
func (s noRows) Close() error                                    { return nil }
