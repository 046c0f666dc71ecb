package exec_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// Pair columns of arrowtest.KVSchema ++ rSchema: k, s, rk, rs, rv.
var (
	pk  = physexpr.Col{Index: 0, Name: "k"}
	prk = physexpr.Col{Index: 2, Name: "rk"}
	prv = physexpr.Col{Index: 4, Name: "rv"}
	// residual: rv > k (NULL when k is NULL: no match).
	residualGt = physexpr.Binary{Op: physexpr.OpGt, L: prv, R: pk}
)

// refJoin is the reference model, written from the SQL definitions: it
// loops over every pair and asks on (true only when the condition is
// true, not NULL). Pairs come in left order, unmatched right rows last.
func refJoin(left, right [][]any, nr int, typ exec.JoinType, on func(l, r []any) bool) [][]any {
	var out [][]any
	hitR := make([]bool, len(right))
	for _, l := range left {
		matched := false
		for j, r := range right {
			if !on(l, r) {
				continue
			}
			matched, hitR[j] = true, true
			if typ != exec.JoinSemi && typ != exec.JoinAnti && typ != exec.JoinRightSemi && typ != exec.JoinRightAnti {
				out = append(out, append(append([]any{}, l...), r...))
			}
		}
		switch {
		case typ == exec.JoinSemi && matched, typ == exec.JoinAnti && !matched:
			out = append(out, append([]any{}, l...))
		case (typ == exec.JoinLeft || typ == exec.JoinFull || typ == exec.JoinSingle) && !matched:
			out = append(out, append(append([]any{}, l...), make([]any, nr)...))
		}
	}
	if typ == exec.JoinRight || typ == exec.JoinFull {
		for j, r := range right {
			if !hitR[j] {
				out = append(out, append(make([]any, len(arrowtest.KVSchema.Fields())), r...))
			}
		}
	}
	if typ == exec.JoinRightSemi || typ == exec.JoinRightAnti {
		for j, r := range right {
			if hitR[j] == (typ == exec.JoinRightSemi) {
				out = append(out, append([]any{}, r...))
			}
		}
	}
	return out
}

// refNotIn is PostgreSQL's x NOT IN (S) kept only where it is true: S
// empty, or x not NULL, equal to no element and S without NULL.
func refNotIn(left, right [][]any) [][]any {
	var out [][]any
	for _, l := range left {
		keep := true
		if len(right) > 0 {
			if l[0] == nil {
				keep = false
			}
			for _, r := range right {
				if r[0] == nil || r[0] == l[0] {
					keep = false
				}
			}
		}
		if keep {
			out = append(out, append([]any{}, l...))
		}
	}
	return out
}

func keyEq(l, r []any) bool { return l[0] != nil && r[0] != nil && l[0] == r[0] }
func keyEqGt(l, r []any) bool {
	return keyEq(l, r) && r[2].(int64) > l[0].(int64)
}

var allTypes = []exec.JoinType{exec.JoinInner, exec.JoinLeft, exec.JoinRight, exec.JoinFull, exec.JoinSemi, exec.JoinAnti,
	exec.JoinRightSemi, exec.JoinRightAnti}

func joinInputs(seed uint64, nl, nr int) (left, right [][]any) {
	r := rand.New(rand.NewPCG(seed, 7))
	left = arrowtest.RandRows(r, nl)
	right = make([][]any, nr)
	for i := range right {
		rr := arrowtest.RandRows(r, 1)[0]
		right[i] = []any{rr[0], rr[1], int64(i)}
	}
	return left, right
}

// Every join type, as a hash join (with and without a residual) and as a
// nested loop join on the same condition, against the model.
func TestJoinTypes(t *testing.T) {
	left, right := joinInputs(41, 40, 25)
	in := []exectest.Input{{Schema: arrowtest.KVSchema, Rows: left}, {Schema: rSchema, Rows: right}}
	eq := physexpr.Binary{Op: physexpr.OpEq, L: pk, R: prk}
	for _, typ := range allTypes {
		t.Run(typ.String(), func(t *testing.T) {
			exectest.Run(t, exectest.Case{Inputs: in, Ordered: true,
				Want: refJoin(left, right, 3, typ, keyEq),
				Build: func(n []exec.Node) (exec.Node, error) {
					return exec.NewHashJoinExec(n[0], n[1], []int{0}, []int{0}, typ)
				}})
			exectest.Run(t, exectest.Case{Inputs: in, Ordered: true,
				Want: refJoin(left, right, 3, typ, keyEqGt),
				Build: func(n []exec.Node) (exec.Node, error) {
					return exec.NewHashJoinExecResidual(n[0], n[1], []int{0}, []int{0}, typ, residualGt)
				}})
			exectest.Run(t, exectest.Case{Inputs: in, Ordered: true,
				Want: refJoin(left, right, 3, typ, keyEqGt),
				Build: func(n []exec.Node) (exec.Node, error) {
					return exec.NewNestedLoopJoinExec(n[0], n[1], typ, physexpr.Binary{Op: physexpr.OpAnd, L: eq, R: residualGt})
				}})
		})
	}
}

// A cross join and a join on an inequality only (no key): nested loop.
func TestNestedLoopJoin(t *testing.T) {
	left, right := joinInputs(43, 9, 6)
	in := []exectest.Input{{Schema: arrowtest.KVSchema, Rows: left}, {Schema: rSchema, Rows: right}}
	lt := func(l, r []any) bool { return l[0] != nil && r[0] != nil && l[0].(int64) < r[0].(int64) }
	for _, typ := range append(allTypes, exec.JoinSingle) {
		if typ != exec.JoinSingle {
			exectest.Run(t, exectest.Case{Inputs: in, Ordered: true,
				Want: refJoin(left, right, 3, typ, lt),
				Build: func(n []exec.Node) (exec.Node, error) {
					return exec.NewNestedLoopJoinExec(n[0], n[1], typ, physexpr.Binary{Op: physexpr.OpLt, L: pk, R: prk})
				}})
		}
		exectest.Run(t, exectest.Case{Inputs: []exectest.Input{in[0], {Schema: rSchema, Rows: right[:1]}}, Ordered: true,
			Want: refJoin(left, right[:1], 3, typ, func(l, r []any) bool { return true }),
			Build: func(n []exec.Node) (exec.Node, error) {
				return exec.NewNestedLoopJoinExec(n[0], n[1], typ, nil)
			}})
	}
	// A cross join of 9 x 6 rows.
	exectest.Run(t, exectest.Case{Inputs: in, Ordered: true,
		Want: refJoin(left, right, 3, exec.JoinInner, func(l, r []any) bool { return true }),
		Build: func(n []exec.Node) (exec.Node, error) {
			return exec.NewNestedLoopJoinExec(n[0], n[1], exec.JoinInner, nil)
		}})
}

// NOT IN's NULL rules, each case by hand from PostgreSQL's definition,
// then random NULL-heavy inputs against the model.
func TestNullAwareAntiJoin(t *testing.T) {
	row := func(k any) []any { return []any{k, "x"} }
	rrow := func(k any) []any { return []any{k, "y", int64(0)} }
	cases := []struct {
		name        string
		left, right [][]any
		want        [][]any
	}{
		{"empty set keeps NULL", [][]any{row(nil), row(int64(1))}, nil, [][]any{row(nil), row(int64(1))}},
		{"NULL probe dropped", [][]any{row(nil), row(int64(1))}, [][]any{rrow(int64(2))}, [][]any{row(int64(1))}},
		{"NULL in set drops all", [][]any{row(int64(1)), row(int64(3))}, [][]any{rrow(int64(2)), rrow(nil)}, nil},
		{"match dropped", [][]any{row(int64(1)), row(int64(2))}, [][]any{rrow(int64(2))}, [][]any{row(int64(1))}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := refNotIn(c.left, c.right); len(got) != len(c.want) {
				t.Fatalf("model: %v", got)
			}
			exectest.Run(t, exectest.Case{
				Inputs: []exectest.Input{{Schema: arrowtest.KVSchema, Rows: c.left}, {Schema: rSchema, Rows: c.right}},
				Want:   c.want, Ordered: true,
				Build: func(n []exec.Node) (exec.Node, error) {
					return exec.NewHashJoinExec(n[0], n[1], []int{0}, []int{0}, exec.JoinAntiNullAware)
				}})
		})
	}
	for seed := range uint64(6) {
		left, right := joinInputs(seed, 30, int(seed)*2)
		exectest.Run(t, exectest.Case{
			Inputs: []exectest.Input{{Schema: arrowtest.KVSchema, Rows: left}, {Schema: rSchema, Rows: right}},
			Want:   refNotIn(left, right), Ordered: true,
			Build: func(n []exec.Node) (exec.Node, error) {
				return exec.NewHashJoinExec(n[0], n[1], []int{0}, []int{0}, exec.JoinAntiNullAware)
			}})
	}
}

// A scalar subquery's join: two rows for one left row is PostgreSQL's
// cardinality error; an empty left input never runs the right one.
func TestSingleJoinCardinality(t *testing.T) {
	mem := exectest.Mem(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	var vals []*exec.ValuesExec
	defer func() { // before AssertSize: defers run last-in first-out
		for _, v := range vals {
			v.Release()
		}
	}()
	build := func(lrows, rrows [][]any) exec.Node {
		lb, err := exectest.Batch(mem, arrowtest.KVSchema, lrows)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := exectest.Batch(mem, rSchema, rrows)
		if err != nil {
			t.Fatal(err)
		}
		l, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{lb})
		r, _ := exec.NewValuesExec(rSchema, []arrow.RecordBatch{rb})
		lb.Release()
		rb.Release()
		vals = append(vals, l, r)
		j, err := exec.NewNestedLoopJoinExec(l, r, exec.JoinSingle, nil)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	two := [][]any{{int64(1), "a", int64(1)}, {int64(2), "b", int64(2)}}
	j := build([][]any{{int64(1), "x"}}, two)
	s, _ := j.Execute(ctx, &exec.TaskContext{Mem: mem})
	if _, err := exec.Collect(ctx, s); !errors.Is(err, exec.ErrSubqueryRows) || err.Error() != "more than one row returned by a subquery used as an expression" {
		t.Fatalf("got %v", err)
	}
	s.Close()
	j = build(nil, two)
	s, _ = j.Execute(ctx, &exec.TaskContext{Mem: mem})
	out, err := exec.Collect(ctx, s)
	if err != nil || len(out) != 0 {
		t.Fatalf("empty left: %v %v", out, err)
	}
}

func TestJoinConstructorErrors(t *testing.T) {
	l, _ := exec.NewValuesExec(arrowtest.KVSchema, nil)
	r, _ := exec.NewValuesExec(rSchema, nil)
	if _, err := exec.NewNestedLoopJoinExec(l, r, exec.JoinAntiNullAware, nil); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatal(err)
	}
	if _, err := exec.NewHashJoinExecResidual(l, r, []int{0}, []int{0}, exec.JoinAntiNullAware, residualGt); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatal(err)
	}
	if _, err := exec.NewNestedLoopJoinExec(l, r, exec.JoinInner, pk); !errors.Is(err, physexpr.ErrSchema) {
		t.Fatalf("non-boolean condition: %v", err)
	}
	if _, err := exec.NewNestedLoopJoinExec(l, r, exec.JoinType(99), nil); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatal(err)
	}
	j, _ := exec.NewHashJoinExec(l, r, []int{0}, []int{0}, exec.JoinFull)
	if j.Properties().Ordering != nil || !j.Schema().Field(0).Nullable || !j.Schema().Field(4).Nullable {
		t.Fatal("FULL: no ordering, both sides nullable")
	}
	sj, _ := exec.NewHashJoinExec(l, r, []int{0}, []int{0}, exec.JoinSemi)
	if sj.Schema().NumFields() != 2 {
		t.Fatal("semi join outputs the left columns")
	}
}

// Memory is bounded by the batch size, not by the result: a 60 x 50 cross
// join and a 40 x 40 single-key join (1600 pairs of one key) test at most
// batchSize candidate pairs at a time.
func TestJoinPairsBounded(t *testing.T) {
	mem := exectest.Mem(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	rows := func(n int, width int) [][]any {
		out := make([][]any, n)
		for i := range out {
			out[i] = []any{int64(1), "s", int64(i)}[:width]
		}
		return out
	}
	for _, c := range []struct {
		nl, nr int
		hash   bool
	}{{60, 50, false}, {40, 40, true}} {
		lb, _ := exectest.Batch(mem, arrowtest.KVSchema, rows(c.nl, 2))
		rb, _ := exectest.Batch(mem, rSchema, rows(c.nr, 3))
		l, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{lb})
		r, _ := exec.NewValuesExec(rSchema, []arrow.RecordBatch{rb})
		lb.Release()
		rb.Release()
		var j exec.Node
		var err error
		if c.hash {
			j, err = exec.NewHashJoinExecResidual(l, r, []int{0}, []int{0}, exec.JoinLeft, residualGt)
		} else {
			j, err = exec.NewNestedLoopJoinExec(l, r, exec.JoinInner, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		s, _ := j.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 7})
		out, err := exec.Collect(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, b := range out {
			n += int(b.NumRows())
			if b.NumRows() > 7 {
				t.Fatalf("batch of %d rows", b.NumRows())
			}
			b.Release()
		}
		// Cross: every pair. Hash: rv > k=1 keeps right rows 2..nr-1 for every left row.
		want := c.nl * c.nr
		if c.hash {
			want = c.nl * (c.nr - 2)
		}
		if n != want {
			t.Fatalf("%d rows, want %d", n, want)
		}
		if m := j.Metrics().Snapshot()["pairs_max"]; m < 1 || m > 7 {
			t.Fatalf("pairs_max = %d, want 1..7", m)
		}
		l.Release()
		r.Release()
	}
}
