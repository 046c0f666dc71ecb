package exec_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// partsNode is a partitioned source for the partition operators' tests:
// partition i yields parts[i] in batches of chunk rows, built from its
// TaskContext's allocator on each Next (so the CheckedAllocator sees
// them). failAt >= 0 makes partition failPart fail after failAt batches;
// endless makes every partition produce forever.
type partsNode struct {
	schema   *arrow.Schema
	parts    [][][]any
	chunk    int
	ord      []exec.SortKey
	failPart int
	failAt   int
	endless  bool
	metrics  exec.Metrics
}

var errPartition = errors.New("partition failed on purpose")

func (p *partsNode) Name() string                { return "partsNode" }
func (p *partsNode) Schema() *arrow.Schema       { return p.schema }
func (p *partsNode) Children() []exec.Node       { return nil }
func (p *partsNode) Properties() exec.Properties { return exec.Properties{Ordering: p.ord} }
func (p *partsNode) String() string              { return fmt.Sprintf("partsNode: partitions=%d", len(p.parts)) }
func (p *partsNode) Metrics() *exec.Metrics      { return &p.metrics }
func (p *partsNode) OutputPartitions() int       { return len(p.parts) }

func (p *partsNode) Execute(ctx context.Context, tc *exec.TaskContext) (exec.Stream, error) {
	if len(p.parts) == 1 { // exec.ExecutePartitions of one partition
		return &partStream{n: p, mem: tc}, nil
	}
	return nil, errors.New("partsNode: only ExecutePartitions")
}

func (p *partsNode) ExecutePartitions(ctx context.Context, tc *exec.TaskContext) ([]exec.Stream, error) {
	out := make([]exec.Stream, len(p.parts))
	for i := range p.parts {
		out[i] = &partStream{n: p, i: i, mem: tc}
	}
	return out, nil
}

type partStream struct {
	n      *partsNode
	i, off int
	sent   int
	mem    *exec.TaskContext
	closed bool
}

func (s *partStream) Schema() *arrow.Schema { return s.n.schema }
func (s *partStream) Close() error          { s.closed = true; return nil }
func (s *partStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.n.failAt >= 0 && s.i == s.n.failPart && s.sent == s.n.failAt {
		return nil, errPartition
	}
	rows := s.n.parts[s.i]
	if s.n.endless {
		s.off %= max(len(rows), 1)
	}
	if s.off >= len(rows) {
		return nil, io.EOF
	}
	end := min(s.off+s.n.chunk, len(rows))
	b, err := exectest.Batch(s.mem.Mem, s.n.schema, rows[s.off:end])
	s.off = end
	s.sent++
	return b, err
}

func newParts(parts [][][]any, chunk int) *partsNode {
	return &partsNode{schema: arrowtest.KVSchema, parts: parts, chunk: chunk, failAt: -1}
}

// splitRows cuts rows into n contiguous partitions of random sizes.
func splitRows(r *rand.Rand, rows [][]any, n int) [][][]any {
	cuts := []int{0}
	for range n - 1 {
		cuts = append(cuts, r.IntN(len(rows)+1))
	}
	cuts = append(cuts, len(rows))
	slices.Sort(cuts)
	out := make([][][]any, n)
	for i := range out {
		out[i] = rows[cuts[i]:cuts[i+1]]
	}
	return out
}

// goroutines waits (up to 2s) for the goroutine count to return to base:
// every operator stops its workers in Close, so anything left is a leak.
func checkGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines leaked: %d > %d\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// drainAll reads every stream to the end, concurrently (as the contract
// of ExecutePartitions requires), and closes them.
func drainAll(ctx context.Context, ss []exec.Stream) ([][][]any, error) {
	out := make([][][]any, len(ss))
	errs := make([]error, len(ss))
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.Close()
			bs, err := exec.Collect(ctx, s)
			if err != nil {
				errs[i] = err
				return
			}
			out[i], errs[i] = exectest.Rows(bs...)
			for _, b := range bs {
				b.Release()
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

func sortedRows(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r...)
	}
	slices.Sort(out)
	return out
}

func TestCoalescePartitions(t *testing.T) {
	base := runtime.NumGoroutine()
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 3, 8} {
		for _, chunk := range []int{1, 3, 64} {
			rows := arrowtest.RandRows(r, 100)
			mem := exectest.Mem(t)
			c := exec.NewCoalescePartitionsExec(newParts(splitRows(r, rows, n), chunk))
			s, err := c.Execute(context.Background(), &exec.TaskContext{Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			bs, err := exec.Collect(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := exectest.Rows(bs...)
			for _, b := range bs {
				b.Release()
			}
			s.Close()
			if !slices.Equal(sortedRows(got), sortedRows(rows)) {
				t.Fatalf("n=%d chunk=%d: rows differ", n, chunk)
			}
			if m := c.Metrics().OutputRows.Load(); m != int64(len(rows)) {
				t.Fatalf("output_rows=%d, want %d", m, len(rows))
			}
			c.Metrics().OutputRows.Store(0)
		}
	}
	checkGoroutines(t, base)
}

func TestRepartition(t *testing.T) {
	base := runtime.NumGoroutine()
	r := rand.New(rand.NewPCG(9, 10))
	for _, keys := range [][]int{nil, {0}, {0, 1}} {
		for _, in := range []int{1, 3} {
			for _, out := range []int{1, 2, 5} {
				rows := arrowtest.RandRows(r, 200)
				mem := exectest.Mem(t)
				rp, err := exec.NewRepartitionExec(newParts(splitRows(r, rows, in), 7), out, keys)
				if err != nil {
					t.Fatal(err)
				}
				ss, err := exec.ExecutePartitions(context.Background(), rp, &exec.TaskContext{Mem: mem})
				if err != nil {
					t.Fatal(err)
				}
				parts, err := drainAll(context.Background(), ss)
				if err != nil {
					t.Fatal(err)
				}
				var all [][]any
				owner := map[string]int{} // key -> partition (hash partitioning)
				for p, rows := range parts {
					all = append(all, rows...)
					for _, row := range rows {
						var k string
						for _, c := range keys {
							k += fmt.Sprint(row[c], "|")
						}
						if keys == nil {
							continue
						}
						if q, ok := owner[k]; ok && q != p {
							t.Fatalf("keys %v: key %q in partitions %d and %d", keys, k, q, p)
						}
						owner[k] = p
					}
				}
				if !slices.Equal(sortedRows(all), sortedRows(rows)) {
					t.Fatalf("keys %v, %d→%d: rows differ", keys, in, out)
				}
				// Execute: every partition in one stream.
				s, err := rp.Execute(context.Background(), &exec.TaskContext{Mem: mem})
				if err != nil {
					t.Fatal(err)
				}
				bs, err := exec.Collect(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := exectest.Rows(bs...)
				for _, b := range bs {
					b.Release()
				}
				s.Close()
				if !slices.Equal(sortedRows(got), sortedRows(rows)) {
					t.Fatalf("Execute: rows differ")
				}
			}
		}
	}
	checkGoroutines(t, base)
}

func TestSortPreservingMerge(t *testing.T) {
	base := runtime.NumGoroutine()
	r := rand.New(rand.NewPCG(11, 12))
	for _, key := range []exec.SortKey{{Column: 0, Name: "k"}, {Column: 0, Name: "k", Descending: true, NullsFirst: true}} {
		for _, n := range []int{1, 2, 4} {
			rows := arrowtest.RandRows(r, 150)
			for i := range rows {
				rows[i] = append(rows[i], int64(i)) // input position: the tie-break check
			}
			parts := splitRows(r, rows, n)
			for _, p := range parts {
				slices.SortStableFunc(p, func(a, b []any) int { return refCompare(a[0], b[0], key.Descending, key.NullsFirst) })
			}
			want := slices.Concat(parts...)
			slices.SortStableFunc(want, func(a, b []any) int { return refCompare(a[0], b[0], key.Descending, key.NullsFirst) })
			src := newParts(parts, 4)
			src.schema = arrow.NewSchema(append(arrowtest.KVSchema.Fields(), arrow.Field{Name: "pos", Type: arrow.PrimitiveTypes.Int64}), nil)
			src.ord = []exec.SortKey{key}
			m, err := exec.NewSortPreservingMergeExec(src, []exec.SortKey{key})
			if err != nil {
				t.Fatal(err)
			}
			mem := exectest.Mem(t)
			s, err := m.Execute(context.Background(), &exec.TaskContext{Mem: mem, BatchSize: 5})
			if err != nil {
				t.Fatal(err)
			}
			bs, err := exec.Collect(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := exectest.Rows(bs...)
			for _, b := range bs {
				b.Release()
			}
			s.Close()
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%v n=%d:\n got %v\nwant %v", key, n, got, want)
			}
		}
	}
	if _, err := exec.NewSortPreservingMergeExec(newParts(nil, 1), []exec.SortKey{{Column: 0}}); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatalf("merge of an unordered input: %v", err)
	}
	checkGoroutines(t, base)
}

// TestPartitionFailures: an error in any partition reaches the consumer,
// cancellation stops every worker, closing early leaks nothing.
func TestPartitionFailures(t *testing.T) {
	base := runtime.NumGoroutine()
	r := rand.New(rand.NewPCG(13, 14))
	rows := arrowtest.RandRows(r, 60)
	key := []exec.SortKey{{Column: 0, Name: "k"}}
	ops := map[string]func(in exec.Node) (exec.Node, error){
		"coalesce": func(in exec.Node) (exec.Node, error) { return exec.NewCoalescePartitionsExec(in), nil },
		"merge":    func(in exec.Node) (exec.Node, error) { return exec.NewSortPreservingMergeExec(in, key) },
		"hash": func(in exec.Node) (exec.Node, error) {
			rp, err := exec.NewRepartitionExec(in, 3, []int{0})
			return exec.NewCoalescePartitionsExec(rp), err
		},
		"roundrobin": func(in exec.Node) (exec.Node, error) {
			rp, err := exec.NewRepartitionExec(in, 2, nil)
			return exec.NewCoalescePartitionsExec(rp), err
		},
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			sorted := slices.Clone(rows)
			slices.SortStableFunc(sorted, func(a, b []any) int { return refCompare(a[0], b[0], false, false) })
			mk := func() *partsNode {
				p := newParts([][][]any{sorted, sorted, sorted, sorted}, 2)
				p.ord = key
				return p
			}
			run := func(src *partsNode, ctx context.Context, read int) error {
				mem := exectest.Mem(t)
				n, err := op(src)
				if err != nil {
					t.Fatal(err)
				}
				s, err := n.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 4})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				for i := 0; read < 0 || i < read; i++ {
					b, err := s.Next(ctx)
					if errors.Is(err, io.EOF) {
						return nil
					}
					if err != nil {
						return err
					}
					b.Release()
				}
				return nil
			}
			// A failure in partition 2 after 3 batches.
			src := mk()
			src.failPart, src.failAt = 2, 3
			if err := run(src, context.Background(), -1); !errors.Is(err, errPartition) {
				t.Fatalf("want the partition's error, got %v", err)
			}
			// Endless partitions, cancelled while reading.
			src = mk()
			src.endless = true
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(20*time.Millisecond, cancel)
			if err := run(src, ctx, -1); !errors.Is(err, context.Canceled) {
				t.Fatalf("want Canceled, got %v", err)
			}
			// Endless partitions, closed after a few batches.
			src = mk()
			src.endless = true
			if err := run(src, context.Background(), 5); err != nil {
				t.Fatal(err)
			}
			// Closed before the first Next.
			if err := run(mk(), context.Background(), 0); err != nil {
				t.Fatal(err)
			}
		})
	}
	checkGoroutines(t, base)
}

// TestTwoPhaseAggregate: partial per partition, hash repartition, final
// per partition equals the single-phase HashAggregateExec (the serial
// operator, tested against its own model in aggregate_test.go), for
// grouped and grouping-less measures, with empty partitions and NULL keys.
func TestTwoPhaseAggregate(t *testing.T) {
	base := runtime.NumGoroutine()
	r := rand.New(rand.NewPCG(15, 16))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	aggs := []exec.Aggregate{
		{Func: exec.AggCountStar, Name: "n"}, {Func: exec.AggCount, Args: []int{1}, Name: "ns"},
		{Func: exec.AggSum, Args: []int{0}, Name: "sum"}, {Func: exec.AggAvg, Args: []int{0}, Name: "avg"},
		{Func: exec.AggMin, Args: []int{1}, Name: "min"}, {Func: exec.AggMax, Args: []int{0}, Name: "max"},
		{Func: exec.AggBoolAnd, Args: []int{2}, Name: "and"}, {Func: exec.AggBoolOr, Args: []int{2}, Name: "or"},
	}
	for _, groups := range [][]int{nil, {1}, {1, 2}} {
		for _, n := range []int{2, 5} {
			// Huge values, first all positive, then the same rows with
			// the big part negated: partial sums leave bigint, every
			// group's total comes back into range (exact 128-bit states,
			// as the serial sum).
			const half = 150
			rows := make([][]any, 2*half)
			for i := range half {
				big, small := int64(r.IntN(1<<62))+1<<61, int64(r.IntN(1000))
				rows[i] = []any{big + small, string(rune('a' + r.IntN(6))), r.IntN(3) == 0}
				rows[i+half] = []any{-big, rows[i][1], rows[i][2]}
				if r.IntN(9) == 0 {
					rows[i][0], rows[i+half][0] = nil, nil
				}
				if r.IntN(11) == 0 {
					rows[i][1], rows[i+half][1] = nil, nil
				}
			}
			parts := splitRows(r, rows, n)
			parts = append(parts, nil) // an empty partition
			mem := exectest.Mem(t)
			tc := &exec.TaskContext{Mem: mem, BatchSize: 16}
			src := newParts(parts, 7)
			src.schema = schema
			single, err := exec.NewHashAggregateExec(src, groups, aggs)
			if err != nil {
				t.Fatal(err)
			}
			if !single.Mergeable() {
				t.Fatal("count, sum/avg of integers, min, max, bool_and/or are mergeable")
			}
			partial, err := single.PartialOver(src)
			if err != nil {
				t.Fatal(err)
			}
			var mid exec.Node = exec.NewCoalescePartitionsExec(partial)
			if len(groups) > 0 {
				keys := []int{0, 1}[:len(groups)]
				if mid, err = exec.NewRepartitionExec(partial, 3, keys); err != nil {
					t.Fatal(err)
				}
			}
			final, err := single.FinalOver(partial, mid)
			if err != nil {
				t.Fatal(err)
			}
			ss, err := exec.ExecutePartitions(context.Background(), final, tc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := drainAll(context.Background(), ss)
			if err != nil {
				t.Fatal(err)
			}
			// The oracle: the serial aggregate over all the rows.
			one := newParts([][][]any{rows}, 7)
			one.schema = schema
			serial, _ := exec.NewHashAggregateExec(one, groups, aggs)
			s, _ := serial.Execute(context.Background(), tc)
			bs, err := exec.Collect(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := exectest.Rows(bs...)
			for _, b := range bs {
				b.Release()
			}
			s.Close()
			if g, w := sortedRows(slices.Concat(got...)), sortedRows(want); !slices.Equal(g, w) {
				t.Fatalf("groups %v, %d partitions:\n got %v\nwant %v", groups, n, g, w)
			}
		}
	}
	// Not mergeable: DISTINCT, float sums, string_agg.
	src := newParts([][][]any{nil}, 1)
	for _, a := range []exec.Aggregate{{Func: exec.AggCount, Args: []int{0}, Distinct: true, Name: "d"}, {Func: exec.AggStringAgg, Args: []int{1, 1}, Name: "s"}} {
		h, err := exec.NewHashAggregateExec(src, nil, []exec.Aggregate{a})
		if err != nil {
			t.Fatal(err)
		}
		if h.Mergeable() {
			t.Fatalf("%v is not mergeable", a)
		}
		if _, err := h.PartialOver(src); !errors.Is(err, physexpr.ErrInvalidArgument) {
			t.Fatalf("PartialOver of %v: %v", a, err)
		}
	}
	checkGoroutines(t, base)
}

// TestParallelHashJoin: probing partitions against one shared build
// returns the serial join's rows for every join type (the RIGHT-side
// ones emit their right rows from every partition's matches, merged by
// the last partition to end), builds once, and the probe-driven types
// never build when every partition is empty.
func TestParallelHashJoin(t *testing.T) {
	base := runtime.NumGoroutine()
	r := rand.New(rand.NewPCG(17, 18))
	left, right := arrowtest.RandRows(r, 120), arrowtest.RandRows(r, 40)
	for _, typ := range []exec.JoinType{exec.JoinInner, exec.JoinLeft, exec.JoinSemi, exec.JoinAnti, exec.JoinAntiNullAware,
		exec.JoinRight, exec.JoinFull, exec.JoinRightSemi, exec.JoinRightAnti} {
		for _, lp := range [][][][]any{splitRows(r, left, 4), {nil, nil, nil}} {
			mem := exectest.Mem(t)
			tc := &exec.TaskContext{Mem: mem, BatchSize: 8}
			build := newParts([][][]any{right}, 5)
			serialJoin, err := exec.NewHashJoinExec(newParts([][][]any{slices.Concat(lp...)}, 3), build, []int{0}, []int{0}, typ)
			if err != nil {
				t.Fatal(err)
			}
			pj, err := serialJoin.PerPartition(newParts(lp, 3), build)
			if err != nil {
				t.Fatal(err)
			}
			ss, err := exec.ExecutePartitions(context.Background(), pj, tc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := drainAll(context.Background(), ss)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := serialJoin.Execute(context.Background(), tc)
			bs, err := exec.Collect(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := exectest.Rows(bs...)
			for _, b := range bs {
				b.Release()
			}
			s.Close()
			if g, w := sortedRows(slices.Concat(got...)), sortedRows(want); !slices.Equal(g, w) {
				t.Fatalf("%s: got %v\nwant %v", typ, g, w)
			}
			builds := pj.Metrics().Snapshot()["build_rows"]
			if want := int64(len(right)); len(slices.Concat(lp...)) == 0 {
				want = 0
			} else if builds != want {
				t.Fatalf("%s: build_rows=%d, want %d (one build)", typ, builds, want)
			}
		}
	}
	j, _ := exec.NewHashJoinExec(newParts([][][]any{left}, 3), newParts([][][]any{right}, 3), []int{0}, []int{0}, exec.JoinFull)
	if _, err := j.PerPartition(newParts([][][]any{left, left}, 3), newParts([][][]any{right, right}, 3)); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatalf("a partitioned build side: %v", err)
	}
	checkGoroutines(t, base)
}
