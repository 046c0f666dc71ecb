package exec_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

func TestValues(t *testing.T) {
	rows := arrowtest.RandRows(rand.New(rand.NewPCG(1, 2)), 50)
	exectest.Run(t, exectest.Case{
		Inputs:  []exectest.Input{{Schema: arrowtest.KVSchema, Rows: rows}},
		Build:   func(in []exec.Node) (exec.Node, error) { return in[0], nil },
		Want:    rows,
		Ordered: true,
	})
}

func TestLimit(t *testing.T) {
	rows := arrowtest.RandRows(rand.New(rand.NewPCG(3, 4)), 40)
	for _, tc := range []struct{ off, lim int64 }{{0, 0}, {0, 5}, {3, 10}, {39, 5}, {45, 1}, {2, -1}} {
		lo := min(int(tc.off), len(rows))
		hi := len(rows)
		if tc.lim >= 0 {
			hi = min(hi, lo+int(tc.lim))
		}
		exectest.Run(t, exectest.Case{
			Inputs: []exectest.Input{{Schema: arrowtest.KVSchema, Rows: rows}},
			Build: func(in []exec.Node) (exec.Node, error) {
				return exec.NewLimitExec(in[0], tc.off, tc.lim), nil
			},
			Want:    rows[lo:hi],
			Ordered: true,
		})
	}
}

func TestUnion(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a, b := arrowtest.RandRows(r, 13), arrowtest.RandRows(r, 9)
	exectest.Run(t, exectest.Case{
		Inputs: []exectest.Input{{Schema: arrowtest.KVSchema, Rows: a}, {Schema: arrowtest.KVSchema, Rows: nil}, {Schema: arrowtest.KVSchema, Rows: b}},
		Build: func(in []exec.Node) (exec.Node, error) {
			return exec.NewUnionExec(in...)
		},
		Want:    append(append([][]any{}, a...), b...),
		Ordered: true,
	})
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil)
	mem := exectest.Mem(t)
	v1, _ := exec.NewValuesExec(arrowtest.KVSchema, nil)
	v2, _ := exec.NewValuesExec(other, nil)
	_ = mem
	if _, err := exec.NewUnionExec(v1, v2); !errors.Is(err, physexpr.ErrSchema) {
		t.Fatalf("want ErrSchema, got %v", err)
	}
}

func TestUnnest(t *testing.T) {
	list := []uint64{5, 3, 3, 9, 0, 1, 2, 8}
	want := make([][]any, len(list))
	for i, v := range list {
		want[i] = []any{v, int64(i + 1)}
	}
	exectest.Run(t, exectest.Case{
		Build:   func([]exec.Node) (exec.Node, error) { return exec.NewUnnestExec(list) },
		Want:    want,
		Ordered: true,
	})
	// Bound parameter with NULLs.
	x, y := int64(-4), int64(7)
	plist := []*int64{&x, nil, &y}
	exectest.Run(t, exectest.Case{
		Build: func([]exec.Node) (exec.Node, error) {
			return exec.NewUnnestParamExec(1, arrow.PrimitiveTypes.Int64)
		},
		Params:  map[int]any{1: plist},
		Want:    [][]any{{int64(-4), int64(1)}, {nil, int64(2)}, {int64(7), int64(3)}},
		Ordered: true,
	})
	u, _ := exec.NewUnnestParamExec(1, arrow.PrimitiveTypes.Int64)
	if _, err := u.Execute(context.Background(), &exec.TaskContext{}); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatalf("unbound param: %v", err)
	}
	if _, err := u.Execute(context.Background(), &exec.TaskContext{Params: map[int]any{1: []uint64{1}}}); !errors.Is(err, physexpr.ErrSchema) {
		t.Fatalf("wrong param type: %v", err)
	}
	if _, err := exec.NewUnnestExec([]float32{1}); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatalf("bad list: %v", err)
	}
	// A text list parameter, with a NULL.
	a, b := "a", ""
	exectest.Run(t, exectest.Case{
		Build: func([]exec.Node) (exec.Node, error) {
			return exec.NewUnnestParamExec(1, arrow.BinaryTypes.String)
		},
		Params:  map[int]any{1: []*string{&a, nil, &b}},
		Want:    [][]any{{"a", int64(1)}, {nil, int64(2)}, {"", int64(3)}},
		Ordered: true,
	})
	exectest.Run(t, exectest.Case{
		Build:   func([]exec.Node) (exec.Node, error) { return exec.NewUnnestExec([]string{"x", "y"}) },
		Want:    [][]any{{"x", int64(1)}, {"y", int64(2)}},
		Ordered: true,
	})
	if !exec.OrderingSatisfies(u.Properties().Ordering, []exec.SortKey{{Column: 1}}) {
		t.Fatal("unnest must declare ord ASC")
	}
}

func TestOrderingSatisfies(t *testing.T) {
	a, b := exec.SortKey{Column: 0}, exec.SortKey{Column: 1, Descending: true}
	cases := []struct {
		have, want []exec.SortKey
		ok         bool
	}{
		{nil, nil, true}, {[]exec.SortKey{a}, nil, true}, {nil, []exec.SortKey{a}, false},
		{[]exec.SortKey{a, b}, []exec.SortKey{a}, true}, {[]exec.SortKey{a}, []exec.SortKey{a, b}, false},
		{[]exec.SortKey{b}, []exec.SortKey{{Column: 1}}, false},
	}
	for i, c := range cases {
		if got := exec.OrderingSatisfies(c.have, c.want); got != c.ok {
			t.Errorf("case %d: got %v", i, got)
		}
	}
}

func TestCoalescer(t *testing.T) {
	mem := exectest.Mem(t)
	r := rand.New(rand.NewPCG(7, 8))
	rows := arrowtest.RandRows(r, 100)
	for _, size := range []int{1, 3, 7, 16, 40, 200} {
		var in []arrow.RecordBatch
		for lo := 0; lo < len(rows); {
			hi := min(len(rows), lo+1+r.IntN(30))
			bs, err := exectest.Chunk(mem, arrowtest.KVSchema, rows[lo:hi], hi-lo, true)
			if err != nil {
				t.Fatal(err)
			}
			in = append(in, bs...)
			lo = hi
		}
		c := exec.NewCoalescer(arrowtest.KVSchema, mem, size)
		var out []arrow.RecordBatch
		for _, b := range in {
			if err := c.Push(b); err != nil {
				t.Fatal(err)
			}
			passes := 2*b.NumRows() >= int64(size) && b.NumRows() <= int64(size)
			b.Release()
			for o, ok := c.Pop(); ok; o, ok = c.Pop() {
				out = append(out, o)
			}
			// A batch of half the size or more, up to the size, goes out
			// as it is, not copied (after the rows held before it).
			if passes && (len(out) == 0 || out[len(out)-1] != b) {
				t.Fatalf("size %d: a batch of %d rows did not pass through", size, b.NumRows())
			}
		}
		if err := c.Finish(); err != nil {
			t.Fatal(err)
		}
		for o, ok := c.Pop(); ok; o, ok = c.Pop() {
			out = append(out, o)
		}
		c.Release()
		// At most size rows each; one under half the size (rows held when
		// a big batch came) is the last or followed by a big one.
		for i, o := range out {
			if o.NumRows() == 0 || o.NumRows() > int64(size) {
				t.Fatalf("size %d: batch %d has %d rows", size, i, o.NumRows())
			}
			if small := 2*o.NumRows() < int64(size); small && i < len(out)-1 && 2*out[i+1].NumRows() < int64(size) {
				t.Fatalf("size %d: batches %d and %d both under half the size (%d, %d rows)", size, i, i+1, o.NumRows(), out[i+1].NumRows())
			}
		}
		got, err := exectest.Rows(out...)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out {
			o.Release()
		}
		if len(got) != len(rows) {
			t.Fatalf("size %d: %d rows, want %d", size, len(got), len(rows))
		}
		for i := range rows {
			if got[i][0] != rows[i][0] || got[i][1] != rows[i][1] {
				t.Fatalf("size %d row %d: %v != %v", size, i, got[i], rows[i])
			}
		}
	}
}

func TestExplainAndMetrics(t *testing.T) {
	mem := exectest.Mem(t)
	b, _ := exectest.Batch(mem, arrowtest.KVSchema, arrowtest.RandRows(rand.New(rand.NewPCG(9, 9)), 10))
	v, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{b})
	b.Release()
	defer v.Release()
	lim := exec.NewLimitExec(v, 2, 5)
	ctx := context.Background()
	s, _ := lim.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 3})
	out, err := exec.Collect(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		o.Release()
	}
	if got := lim.Metrics().OutputRows.Load(); got != 5 {
		t.Fatalf("output rows %d", got)
	}
	lim.Metrics().Add("spills", 2)
	if lim.Metrics().Snapshot()["spills"] != 2 {
		t.Fatal("extra counter")
	}
	e := exec.Explain(lim, false)
	if e != "01)LimitExec: offset=2 limit=5\n02)  ValuesExec: batches=1 rows=10\n" {
		t.Fatalf("explain:\n%s", e)
	}
	ea := exec.Explain(lim, true)
	if !strings.Contains(ea, "output_rows=5") || !strings.Contains(ea, "spills=2") {
		t.Fatalf("explain analyze:\n%s", ea)
	}
}

func TestCancellation(t *testing.T) {
	mem := exectest.Mem(t)
	u, _ := exec.NewUnnestExec([]int64{1, 2, 3})
	ctx, cancel := context.WithCancel(context.Background())
	s, _ := exec.NewLimitExec(u, 0, -1).Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 1})
	b, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
	cancel()
	if _, err := exec.Collect(ctx, s); !errors.Is(err, context.Canceled) {
		t.Fatalf("want Canceled, got %v", err)
	}
}

func TestAdapters(t *testing.T) {
	mem := exectest.Mem(t)
	rows := arrowtest.RandRows(rand.New(rand.NewPCG(11, 12)), 20)
	bs, _ := exectest.Chunk(mem, arrowtest.KVSchema, rows, 6, true)
	rr, err := array.NewRecordReader(arrowtest.KVSchema, bs)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		b.Release()
	}
	// Stream -> reader -> stream round trip.
	back := exec.FromRecordReader(exec.ToRecordReader(exec.FromRecordReader(rr)))
	out, err := exec.Collect(context.Background(), back)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := exectest.Rows(out...)
	for _, o := range out {
		o.Release()
	}
	if len(got) != len(rows) {
		t.Fatalf("%d rows", len(got))
	}
	for i := range rows {
		if got[i][0] != rows[i][0] || got[i][1] != rows[i][1] {
			t.Fatalf("row %d", i)
		}
	}
	if _, err := back.Next(context.Background()); !errors.Is(err, exec.ErrClosed) && !errors.Is(err, io.EOF) {
		t.Fatalf("after close: %v", err)
	}
}
