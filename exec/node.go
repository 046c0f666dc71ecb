package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/exec/priority"
)

// Node is an immutable physical plan node. All run state lives in the Stream it returns.
type Node interface {
	Name() string
	Schema() *arrow.Schema
	Children() []Node
	Properties() Properties
	String() string
	// Execute does no work before the first Next.
	Execute(ctx context.Context, tc *TaskContext) (Stream, error)
	Metrics() *Metrics
}

// TaskContext carries per-execution resources.
type TaskContext struct {
	Mem       memory.Allocator
	BatchSize int
	Params    map[int]any // bound dynamic params, e.g. []uint64, []int64
	// Pool is the statement's memory budget: operators whose state grows
	// with their input reserve from it and spill or fail with
	// memlimit.ErrResourceExhausted when it is spent. Nil: no limit.
	Pool *memlimit.Pool
	// SpillDir is where spilling operators make their temporary
	// directories ("" for os.TempDir()).
	SpillDir string
	// Priority is a heavy statement's pass through the server's priority
	// gate (package priority): the leaf operators and the long loops Pass
	// it between batches, where it parks while light statements run. Nil:
	// never parks.
	Priority *priority.Heavy

	// probe binds the keys of one probe batch for the children of a
	// TakeByKeyExec (IndexProbeExec, UnindexedFallbackScan), as Params
	// binds :ids for an UnnestExec. Nil outside a take.
	probe *probeFeed
	// shared holds this execution's runs of the shared subplans
	// (shared.go), set by the SharedScopeExec at the root. Nil: each
	// SharedExec stream runs its subplan for itself.
	shared *sharedRuns
}

// DefaultBatchSize is used when TaskContext.BatchSize <= 0.
const DefaultBatchSize = 8192

// Allocator is the statement's allocator (memory.DefaultAllocator when
// none is set); nil-safe, as every accessor of TaskContext.
func (tc *TaskContext) Allocator() memory.Allocator {
	if tc == nil || tc.Mem == nil {
		return memory.DefaultAllocator
	}
	return tc.Mem
}

// RowsPerBatch is the batch size operators aim for (DefaultBatchSize
// when none is set).
func (tc *TaskContext) RowsPerBatch() int {
	if tc == nil || tc.BatchSize <= 0 {
		return DefaultBatchSize
	}
	return tc.BatchSize
}

// Stream: Next returns a batch the caller owns and must Release, or io.EOF.
// A stream never touches a batch after returning it.
type Stream interface {
	Schema() *arrow.Schema
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Close() error
}
