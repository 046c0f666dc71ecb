package exec

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/priority"
)

// PartitionedNode is a node whose output is split into partitions that can
// be produced in parallel (see "Partitioned execution" in doc.go).
// Execute stays the whole output as one stream, so a caller that does not
// know partitions keeps working; ExecutePartitions starts one execution
// and returns one stream per partition, all sharing its state (a
// repartition's channels, a join's build side).
//
// The streams of one ExecutePartitions call are consumed concurrently:
// each by its own goroutine (CoalescePartitionsExec, the merge's feeders,
// RepartitionExec's workers). A consumer that drains one partition before
// it pulls another may wait forever on a RepartitionExec below, whose
// bounded channels stop the producers until every partition is pulled.
// Every stream must be closed.
type PartitionedNode interface {
	Node
	// OutputPartitions is the number of streams ExecutePartitions returns.
	OutputPartitions() int
	// ExecutePartitions does no work before the first Next of a stream.
	ExecutePartitions(ctx context.Context, tc *TaskContext) ([]Stream, error)
}

// OutputPartitions is n's number of output partitions: 1 for a node that
// is not partitioned.
func OutputPartitions(n Node) int {
	if p, ok := n.(PartitionedNode); ok {
		return max(p.OutputPartitions(), 1)
	}
	return 1
}

// ExecutePartitions starts n and returns one stream per output partition:
// Execute's one stream for a node that is not partitioned.
func ExecutePartitions(ctx context.Context, n Node, tc *TaskContext) ([]Stream, error) {
	if p, ok := n.(PartitionedNode); ok && p.OutputPartitions() > 1 {
		ss, err := p.ExecutePartitions(ctx, tc)
		if err != nil {
			return nil, err
		}
		if len(ss) != p.OutputPartitions() {
			closeStreams(ss)
			return nil, fmt.Errorf("%w: %s returned %d partitions, declared %d", ErrInternal, n.Name(), len(ss), p.OutputPartitions())
		}
		return ss, nil
	}
	s, err := n.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return []Stream{s}, nil
}

// ErrInternal is a broken invariant of the engine: a panic in a partition
// worker, a node returning the wrong number of partitions.
var ErrInternal = errkind.New(errkind.Internal, "exec: internal error")

// closeStreams closes every stream, returning the first error.
func closeStreams(ss []Stream) error {
	var first error
	for _, s := range ss {
		if s == nil {
			continue
		}
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// PartitionsFor wraps each input partition with wrap (the per-partition
// stream of a pass-through node), closing the inputs on failure.
func PartitionsFor(ctx context.Context, input Node, tc *TaskContext, wrap func(in Stream) Stream) ([]Stream, error) {
	ins, err := ExecutePartitions(ctx, input, tc)
	if err != nil {
		return nil, err
	}
	out := make([]Stream, len(ins))
	for i, in := range ins {
		out[i] = wrap(in)
	}
	return out, nil
}

// workers runs the goroutines of one partitioned execution (the producers
// of a repartition, the drivers of a coalesce or a merge). The first error
// any of them returns is kept and cancels the others; a panic becomes
// ErrInternal, so a bad batch in one partition fails the statement instead
// of the process.
type workers struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
}

func newWorkers(ctx context.Context) *workers {
	c, cancel := context.WithCancel(ctx)
	return &workers{ctx: c, cancel: cancel}
}

// spawn runs f on a goroutine with the group's context.
func (w *workers) spawn(f func(ctx context.Context) error) { w.spawnThen(f, nil) }

// spawnThen runs f, then, once f's error (or panic) is recorded, after:
// a consumer that sees after's effect (a closed channel) sees the error.
func (w *workers) spawnThen(f func(ctx context.Context) error, after func()) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		if after != nil {
			defer after()
		}
		defer func() {
			if r := recover(); r != nil {
				w.fail(fmt.Errorf("%w: panic in a partition worker: %v\n%s", ErrInternal, r, debug.Stack()))
			}
		}()
		// Its own lease under a priority gate's bound of running heavy
		// goroutines (priority.WithRunner), given up when it returns.
		ctx, done := priority.WithRunner(w.ctx)
		defer done()
		if err := f(ctx); err != nil {
			w.fail(err)
		}
	}()
}

// fail records err (the first one wins) and cancels the group. A worker
// that stops because the group was cancelled reports context.Canceled,
// which never hides the error that caused it.
func (w *workers) fail(err error) {
	w.mu.Lock()
	if w.err == nil || (errors.Is(w.err, context.Canceled) && !errors.Is(err, context.Canceled)) {
		w.err = err
	}
	w.mu.Unlock()
	w.cancel()
}

// failure is the recorded error, nil if none.
func (w *workers) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// stop cancels the group and waits for every worker to return.
func (w *workers) stop() {
	w.cancel()
	w.wg.Wait()
}
