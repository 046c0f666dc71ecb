package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec/memlimit"
)

var sharedTestSchema = arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)

// countingSource emits rows 0..rows-1 (every 7th NULL) in batches of
// batch rows, counting its executions; failAt >= 0 fails the batch
// starting at that row with ErrDivisionByZero.
type countingSource struct {
	mem        memory.Allocator
	rows       int
	batch      int
	failAt     int
	executions atomic.Int64
	metrics    Metrics
}

func (c *countingSource) Name() string           { return "CountingSource" }
func (c *countingSource) Schema() *arrow.Schema  { return sharedTestSchema }
func (c *countingSource) Children() []Node       { return nil }
func (c *countingSource) Properties() Properties { return Properties{} }
func (c *countingSource) String() string         { return "CountingSource" }
func (c *countingSource) Metrics() *Metrics      { return &c.metrics }
func (c *countingSource) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	c.executions.Add(1)
	return &countingStream{c: c}, nil
}

type countingStream struct {
	c   *countingSource
	off int
}

func (s *countingStream) Schema() *arrow.Schema { return sharedTestSchema }
func (s *countingStream) Close() error          { return nil }
func (s *countingStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.off >= s.c.rows {
		return nil, io.EOF
	}
	if s.c.failAt >= 0 && s.off >= s.c.failAt {
		return nil, fmt.Errorf("%w: at row %d", physexpr.ErrDivisionByZero, s.off)
	}
	n := min(s.c.batch, s.c.rows-s.off)
	b := array.NewInt64Builder(s.c.mem)
	defer b.Release()
	for i := s.off; i < s.off+n; i++ {
		if i%7 == 0 {
			b.AppendNull()
		} else {
			b.Append(int64(i))
		}
	}
	s.off += n
	col := b.NewArray()
	defer col.Release()
	return array.NewRecordBatch(sharedTestSchema, []arrow.Array{col}, int64(n)), nil
}

// sharedSetup is a source read by k consumers, bound as a planner binds
// them (a UnionExec over the consumers, under a scope).
func sharedSetup(t *testing.T, rows, k int) (*memory.CheckedAllocator, *countingSource, *SharedPlan, []*SharedExec, Node) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	src := &countingSource{mem: mem, rows: rows, batch: 3, failAt: -1}
	p := NewSharedPlan(0, src)
	cs := make([]*SharedExec, k)
	ins := make([]Node, k)
	for i := range cs {
		cs[i] = p.NewConsumer()
		ins[i] = cs[i]
	}
	u, err := NewUnionExec(ins...)
	if err != nil {
		t.Fatal(err)
	}
	if got := BindShared(u); len(got) != 1 || got[0] != p || p.Consumers() != k || p.ID() != 1 {
		t.Fatalf("BindShared: %v, consumers %d, id %d", got, p.Consumers(), p.ID())
	}
	return mem, src, p, cs, NewSharedScopeExec(u, []*SharedPlan{p})
}

func drainInts(t *testing.T, ctx context.Context, s Stream) ([]any, error) {
	t.Helper()
	bs, err := Collect(ctx, s)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, b := range bs {
		c := b.Column(0).(*array.Int64)
		for i := 0; i < c.Len(); i++ {
			if c.IsNull(i) {
				out = append(out, nil)
			} else {
				out = append(out, c.Value(i))
			}
		}
		b.Release()
	}
	return out, nil
}

// The subplan runs once for three consumers, each of which reads every
// row (NULLs too), and the buffer is gone at the end. Mutation caught:
// materialize without the done check (each consumer runs the source).
func TestSharedRunsOnce(t *testing.T) {
	ctx := context.Background()
	mem, src, p, cs, root := sharedSetup(t, 20, 3)
	pool := memlimit.NewPool(0)
	s, err := root.Execute(ctx, &TaskContext{Mem: mem, BatchSize: 4, Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	got, err := drainInts(t, ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 60 || got[0] != nil || got[1] != int64(1) || got[20] != nil || got[59] != int64(19) {
		t.Fatalf("rows: %v", got)
	}
	if n := src.executions.Load(); n != 1 {
		t.Fatalf("source ran %d times, want 1", n)
	}
	m := cs[0].Metrics().Snapshot()
	if m["runs"] != 1 || m["buffered_rows"] != 20 || cs[2].Metrics().OutputRows.Load() != 20 {
		t.Fatalf("metrics: first %v, third %v", m, cs[2].Metrics().Snapshot())
	}
	if pool.Reserved() != 0 {
		t.Fatalf("pool holds %d bytes after the statement", pool.Reserved())
	}
	if ex := Explain(root, false); ex != "01)SharedScopeExec: shared=[1]\n02)  UnionExec: inputs=3\n03)    SharedExec: id=1 consumers=3\n04)      CountingSource\n05)    SharedExec: id=1 (reads the run of the first consumer)\n06)    SharedExec: id=1 (reads the run of the first consumer)\n" {
		t.Fatalf("explain:\n%s", ex)
	}
	_ = p
}

// Consumers in different goroutines, at once: one run, the same rows for
// each; the last Close frees the buffer before the scope ends. Mutation
// caught: release not freeing at the last consumer (buffer held), or a
// run not guarded by its lock (-race).
func TestSharedConcurrentConsumers(t *testing.T) {
	ctx := context.Background()
	mem, src, p, cs, _ := sharedSetup(t, 50, 4)
	pool := memlimit.NewPool(0)
	runs := newSharedRuns()
	defer runs.close()
	tc := withSharedRuns(&TaskContext{Mem: mem, BatchSize: 8, Pool: pool}, runs)
	var wg sync.WaitGroup
	outs := make([][]any, len(cs))
	errs := make([]error, len(cs))
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.Execute(ctx, tc)
			if err != nil {
				errs[i] = err
				return
			}
			outs[i], errs[i] = drainInts(t, ctx, s)
		}()
	}
	wg.Wait()
	for i := range cs {
		if errs[i] != nil || len(outs[i]) != 50 || fmt.Sprint(outs[i]) != fmt.Sprint(outs[0]) {
			t.Fatalf("consumer %d: %v %v", i, errs[i], outs[i])
		}
	}
	if n := src.executions.Load(); n != 1 {
		t.Fatalf("source ran %d times, want 1", n)
	}
	if x := runs.run(p); x.batches != nil || x.res != nil || pool.Reserved() != 0 {
		t.Fatalf("run still holds %d batches, pool %d bytes, after every consumer closed", len(x.batches), pool.Reserved())
	}
}

// A run that fails fails every consumer with its error, once: the source
// is not run again. Mutation caught: not keeping the error (the second
// consumer reruns the source and the count is 2).
func TestSharedError(t *testing.T) {
	ctx := context.Background()
	mem, src, _, _, root := sharedSetup(t, 20, 2)
	src.failAt = 6
	s, err := root.Execute(ctx, &TaskContext{Mem: mem, BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drainInts(t, ctx, s); !errors.Is(err, physexpr.ErrDivisionByZero) {
		t.Fatalf("err %v, want division by zero", err)
	}
	if n := src.executions.Load(); n != 1 {
		t.Fatalf("source ran %d times, want 1", n)
	}
}

// A cancelled consumer's run is not kept: another consumer, whose context
// is live, runs the source again and reads every row. Mutation caught:
// keeping context.Canceled as the run's error.
func TestSharedCancelledRunNotKept(t *testing.T) {
	mem, src, _, cs, _ := sharedSetup(t, 20, 2)
	runs := newSharedRuns()
	defer runs.close()
	tc := withSharedRuns(&TaskContext{Mem: mem}, runs)
	dead, cancel := context.WithCancel(context.Background())
	cancel()
	s0, _ := cs[0].Execute(dead, tc)
	if _, err := s0.Next(dead); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want canceled", err)
	}
	s0.Close()
	s1, _ := cs[1].Execute(context.Background(), tc)
	got, err := drainInts(t, context.Background(), s1)
	if err != nil || len(got) != 20 {
		t.Fatalf("%v %v", err, got)
	}
	if n := src.executions.Load(); n != 2 {
		t.Fatalf("source ran %d times, want 2", n)
	}
}

// Over the memory limit the run fails with ErrResourceExhausted and
// gives its reservation back. Mutation caught: not reserving (no error),
// or not freeing on failure (the pool keeps bytes).
func TestSharedMemoryLimit(t *testing.T) {
	ctx := context.Background()
	mem, _, _, _, root := sharedSetup(t, 1000, 2)
	pool := memlimit.NewPool(200)
	s, err := root.Execute(ctx, &TaskContext{Mem: mem, BatchSize: 64, Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drainInts(t, ctx, s); !errors.Is(err, memlimit.ErrResourceExhausted) {
		t.Fatalf("err %v, want resource exhausted", err)
	}
	if pool.Reserved() != 0 {
		t.Fatalf("pool holds %d bytes", pool.Reserved())
	}
}

// A consumer that never executes (a join's build side whose probe side
// was empty) leaves the run to the scope, which frees it. Mutation
// caught: the scope's Close not closing its runs (the allocator reports
// the buffered batches).
func TestSharedScopeFreesUnfinishedRun(t *testing.T) {
	ctx := context.Background()
	mem, src, _, cs, _ := sharedSetup(t, 20, 2)
	// Only the first consumer is under the limit: the second never runs.
	lim := NewLimitExec(cs[0], 0, 5)
	scope := NewSharedScopeExec(lim, []*SharedPlan{cs[0].Plan()})
	s, err := scope.Execute(ctx, &TaskContext{Mem: mem, BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	got, err := drainInts(t, ctx, s)
	if err != nil || len(got) != 5 {
		t.Fatalf("%v %v", err, got)
	}
	if n := src.executions.Load(); n != 1 {
		t.Fatalf("source ran %d times, want 1", n)
	}
}

// Without a scope (a subtree executed by itself) each consumer stream
// runs the subplan for itself and frees it at its Close.
func TestSharedWithoutScope(t *testing.T) {
	ctx := context.Background()
	mem, src, _, cs, _ := sharedSetup(t, 10, 2)
	for _, c := range cs {
		s, err := c.Execute(ctx, &TaskContext{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := drainInts(t, ctx, s); err != nil || len(got) != 10 {
			t.Fatalf("%v %v", err, got)
		}
	}
	if n := src.executions.Load(); n != 2 {
		t.Fatalf("source ran %d times, want 2", n)
	}
}
