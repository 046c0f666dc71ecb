package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// A shared subplan is computed once per execution and read by several
// consumers: a WITH query referenced twice, or two identical subtrees of
// one plan (plan/shared.go finds them). The plan holds one SharedPlan (the
// subplan) and one SharedExec per place that reads it; a SharedScopeExec
// at the root owns the buffers of one execution:
//
//	SharedScopeExec ── Execute: a fresh set of runs for this execution
//	  …                            (TaskContext.shared), freed at its Close
//	    SharedExec #1 (first)  ─┐
//	      input subtree         │  one run: the first consumer to need rows
//	    …                       ├─▶ drains the input into a buffer (reserved
//	    SharedExec #1 (ref)    ─┘   in the query's memory pool); every
//	                                consumer replays the buffer's batches
//
// A run's states, under its lock:
//
//	idle ──first Next of any consumer──▶ done(batches | err)
//	  ▲                                     │ every consumer closed
//	  └──────── freed (buffers released) ◀──┘
//
// A freed run that is read again (a consumer executed once more than the
// plan has consumers, as under a re-executing parent) runs its input again:
// the rows are the same, only the work is repeated. A run cut short by its
// context (the consumer that drove it was cancelled, e.g. a LIMIT above
// it was satisfied) is not kept: the next consumer runs the input again,
// so a cancellation is never replayed as another consumer's error. Any
// other error is kept and every consumer that reads the run returns it.
//
// Memory: the buffer is reserved batch by batch (batchBytes) from
// TaskContext.Pool. It does not spill: over the limit the run fails with
// an error wrapping memlimit.ErrResourceExhausted, as a join's build side
// does. Batches are handed out with Retain, so consumers share the
// buffer's memory and own only a reference.
//
// EXPLAIN shows the input once, under the first consumer; the others are
// leaves naming the subplan's id. The input's metrics are those of its one
// run; the first consumer's line also carries the run's counters (runs,
// buffered_rows, buffered_bytes); each consumer's output_rows are its own.

// SharedPlan is a subplan read by several SharedExec consumers. Build it
// with NewSharedPlan and take its consumers from NewConsumer.
type SharedPlan struct {
	id    int
	input Node
	// first is the consumer EXPLAIN shows the input under; its metrics
	// carry the run's counters.
	first     *SharedExec
	consumers int
}

// NewSharedPlan makes subplan id over input, with no consumers yet.
func NewSharedPlan(id int, input Node) *SharedPlan {
	return &SharedPlan{id: id, input: input}
}

// ID is the subplan's number in EXPLAIN.
func (p *SharedPlan) ID() int { return p.id }

// Input is the subplan.
func (p *SharedPlan) Input() Node { return p.input }

// Consumers is the number of consumers taken from NewConsumer.
func (p *SharedPlan) Consumers() int { return p.consumers }

// SetInput replaces the subplan by an equivalent one with the same schema
// (the parallel pass makes it run on partitions). Planning only: before
// any consumer executes.
func (p *SharedPlan) SetInput(n Node) error {
	if !n.Schema().Equal(p.input.Schema()) {
		return fmt.Errorf("%w: shared subplan #%d: schema %s, want %s", physexpr.ErrSchema, p.id, n.Schema(), p.input.Schema())
	}
	p.input = n
	return nil
}

// NewConsumer returns one more place that reads the subplan. Planning
// only; BindShared counts the consumers the final plan holds.
func (p *SharedPlan) NewConsumer() *SharedExec { return &SharedExec{plan: p} }

// BindShared walks the plan under root (a shared plan's input once) and
// sets each shared plan's consumers to those the plan holds, its first to
// the first EXPLAIN reaches and its id to its place in that order; it
// returns the plans in that order. A planner
// may make consumers it then drops (a rule that tries a form and keeps
// another), so only the final tree counts. Planning only.
func BindShared(root Node) []*SharedPlan {
	var plans []*SharedPlan
	seen := map[*SharedPlan]bool{}
	var walk func(n Node)
	walk = func(n Node) {
		if s, ok := n.(*SharedExec); ok {
			p := s.plan
			if !seen[p] {
				seen[p] = true
				plans = append(plans, p)
				p.first, p.consumers, p.id = s, 0, len(plans)
				walk(p.input)
			}
			p.consumers++
			return
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(root)
	return plans
}

// SharedExec is one consumer of a SharedPlan: it replays the batches of
// the subplan's one run in this execution.
type SharedExec struct {
	plan    *SharedPlan
	metrics Metrics
}

var _ Node = (*SharedExec)(nil)

// Plan is the subplan this consumer reads.
func (s *SharedExec) Plan() *SharedPlan { return s.plan }

func (s *SharedExec) first() bool           { return s.plan.first == s }
func (s *SharedExec) Name() string          { return "SharedExec" }
func (s *SharedExec) Schema() *arrow.Schema { return s.plan.input.Schema() }
func (s *SharedExec) Metrics() *Metrics     { return &s.metrics }

// Children is the subplan under the first consumer, nothing under the
// others: EXPLAIN shows the subplan once.
func (s *SharedExec) Children() []Node {
	if s.first() {
		return []Node{s.plan.input}
	}
	return nil
}

// Properties keeps the subplan's ordering: the buffer replays its one
// stream in order.
func (s *SharedExec) Properties() Properties {
	if OutputPartitions(s.plan.input) > 1 {
		return Properties{}
	}
	return s.plan.input.Properties()
}

func (s *SharedExec) String() string {
	if s.first() {
		return fmt.Sprintf("SharedExec: id=%d consumers=%d", s.plan.id, s.plan.consumers)
	}
	return fmt.Sprintf("SharedExec: id=%d (reads the run of the first consumer)", s.plan.id)
}

// Execute implements Node. The run starts at the first Next of any
// consumer of the subplan.
func (s *SharedExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	runs := tc.sharedRuns()
	own := runs == nil
	if own {
		// Outside a SharedScopeExec (a caller executing a subtree by
		// itself): this stream runs the subplan for itself.
		runs = newSharedRuns()
	}
	return &sharedStream{n: s, tc: tc, runs: runs, own: own}, nil
}

// SharedScopeExec is the root of a plan with shared subplans: each of its
// executions has its own runs of them, freed when it closes (also the runs
// of consumers that never executed, like the build side of a join whose
// probe side was empty).
type SharedScopeExec struct {
	input   Node
	plans   []*SharedPlan
	metrics Metrics
}

var _ Node = (*SharedScopeExec)(nil)

// NewSharedScopeExec scopes the runs of plans to each execution of input.
func NewSharedScopeExec(input Node, plans []*SharedPlan) *SharedScopeExec {
	return &SharedScopeExec{input: input, plans: plans}
}

func (s *SharedScopeExec) Name() string           { return "SharedScopeExec" }
func (s *SharedScopeExec) Schema() *arrow.Schema  { return s.input.Schema() }
func (s *SharedScopeExec) Children() []Node       { return []Node{s.input} }
func (s *SharedScopeExec) Properties() Properties { return s.input.Properties() }
func (s *SharedScopeExec) Metrics() *Metrics      { return &s.metrics }
func (s *SharedScopeExec) String() string {
	ids := make([]int, len(s.plans))
	for i, p := range s.plans {
		ids[i] = p.id
	}
	return fmt.Sprintf("SharedScopeExec: shared=%v", ids)
}

// Execute implements Node.
func (s *SharedScopeExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	runs := newSharedRuns()
	in, err := s.input.Execute(ctx, withSharedRuns(tc, runs))
	if err != nil {
		runs.close()
		return nil, err
	}
	return &sharedScopeStream{n: s, in: in, runs: runs}, nil
}

type sharedScopeStream struct {
	n    *SharedScopeExec
	in   Stream
	runs *sharedRuns
}

func (s *sharedScopeStream) Schema() *arrow.Schema { return s.n.Schema() }

func (s *sharedScopeStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	b, err := s.in.Next(ctx)
	if err != nil {
		return nil, err
	}
	return s.n.metrics.Emit(b, time.Now())
}

// Close closes the input, then frees every run it left.
func (s *sharedScopeStream) Close() error {
	err := s.in.Close()
	s.runs.close()
	return err
}

// withSharedRuns returns a copy of tc whose shared subplans run in runs.
func withSharedRuns(tc *TaskContext, runs *sharedRuns) *TaskContext {
	c := TaskContext{}
	if tc != nil {
		c = *tc
	}
	c.shared = runs
	return &c
}

func (tc *TaskContext) sharedRuns() *sharedRuns {
	if tc == nil {
		return nil
	}
	return tc.shared
}

// sharedRuns are the runs of one execution's shared subplans.
type sharedRuns struct {
	mu   sync.Mutex
	runs map[*SharedPlan]*sharedRun
}

func newSharedRuns() *sharedRuns { return &sharedRuns{runs: map[*SharedPlan]*sharedRun{}} }

// run returns p's run in this execution, making it on the first call.
func (r *sharedRuns) run(p *SharedPlan) *sharedRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	x, ok := r.runs[p]
	if !ok {
		x = &sharedRun{plan: p}
		r.runs[p] = x
	}
	return x
}

// close frees every run.
func (r *sharedRuns) close() {
	r.mu.Lock()
	runs := r.runs
	r.runs = map[*SharedPlan]*sharedRun{}
	r.mu.Unlock()
	for _, x := range runs {
		x.mu.Lock()
		x.free()
		x.mu.Unlock()
	}
}

// sharedRun is one execution's run of a subplan. Its fields are guarded
// by mu; batches do not change while done (consumers read them without
// the lock between materialize and their Close).
type sharedRun struct {
	plan    *SharedPlan
	mu      sync.Mutex
	done    bool
	err     error
	batches []arrow.RecordBatch
	res     *memlimit.Reservation
	// closed counts the consumers closed since the run was made; the last
	// of the plan's consumers frees it.
	closed int
}

// materialize runs the subplan if no consumer did, and returns its
// batches (valid until the caller's release) or its error.
func (x *sharedRun) materialize(ctx context.Context, tc *TaskContext, by *SharedExec) ([]arrow.RecordBatch, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.done {
		err := x.fill(ctx, tc, by)
		if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			// Cut short by this consumer's context: not the run's answer.
			x.free()
			return nil, err
		}
		if err != nil {
			x.free() // keep the error, not the rows read before it
		}
		x.done, x.err = true, err
	}
	if x.err != nil {
		return nil, x.err
	}
	return x.batches, nil
}

// fill drains the subplan into x.batches, reserving each batch.
func (x *sharedRun) fill(ctx context.Context, tc *TaskContext, by *SharedExec) error {
	m := &by.metrics
	if x.plan.first != nil {
		m = &x.plan.first.metrics
	}
	m.Add("runs", 1)
	in, err := x.plan.input.Execute(ctx, tc)
	if err != nil {
		return err
	}
	x.res = tc.MemoryPool().NewReservation("SharedExec")
	var rows int64
	for {
		b, err := in.Next(ctx)
		if errors.Is(err, io.EOF) {
			return in.Close()
		}
		if err != nil {
			in.Close()
			return err
		}
		n := BatchBytes(b)
		if err := x.res.TryGrow(n); err != nil {
			b.Release()
			in.Close()
			return fmt.Errorf("shared subplan #%d over the memory limit after %d rows (its buffer does not spill; raise memory_limit): %w", x.plan.id, rows+b.NumRows(), err)
		}
		rows += b.NumRows()
		m.Add("buffered_rows", b.NumRows())
		m.Add("buffered_bytes", n)
		x.batches = append(x.batches, b)
	}
}

// free releases the buffer and returns the run to idle. Under mu.
func (x *sharedRun) free() {
	for _, b := range x.batches {
		b.Release()
	}
	x.batches = nil
	if x.res != nil {
		x.res.Free()
		x.res = nil
	}
	x.done, x.err, x.closed = false, nil, 0
}

// release is one consumer's Close: the last of the plan's consumers frees
// the run (without BindShared the count is unknown: the scope frees it).
func (x *sharedRun) release() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed++
	if x.plan.consumers > 0 && x.closed >= x.plan.consumers {
		x.free()
	}
}

// sharedStream replays a run to one consumer.
type sharedStream struct {
	n    *SharedExec
	tc   *TaskContext
	runs *sharedRuns
	own  bool // runs is this stream's own (no scope above)

	run     *sharedRun // set at the first Next
	batches []arrow.RecordBatch
	i       int
	closed  bool
}

func (s *sharedStream) Schema() *arrow.Schema { return s.n.Schema() }

// Next implements Stream.
func (s *sharedStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if s.run == nil {
		run := s.runs.run(s.n.plan)
		bs, err := run.materialize(ctx, s.tc, s.n)
		if err != nil {
			return nil, err
		}
		s.run, s.batches = run, bs
	}
	if s.i >= len(s.batches) {
		return nil, io.EOF
	}
	start := time.Now()
	b := s.batches[s.i]
	s.i++
	b.Retain()
	return s.n.metrics.Emit(b, start)
}

// Close implements Stream: the last consumer to close frees the run.
func (s *sharedStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.batches = nil
	if s.run == nil {
		// Closed unread: this consumer will not need the run either.
		s.run = s.runs.run(s.n.plan)
	}
	s.run.release()
	if s.own {
		s.runs.close()
	}
	return nil
}
