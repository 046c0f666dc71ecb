package exec_test

import (
	"errors"
	"testing"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
)

// A three-valued boolean of the model: nil is NULL.
type tv = any

// refMark is the mark join's model, written from Substrait's LEFT MARK
// definition: each left row, then the OR over every right row of the
// condition in three-valued logic (TRUE if one is true, else NULL if one
// is NULL, else FALSE).
func refMark(left, right [][]any, cond func(l, r []any) tv) [][]any {
	out := make([][]any, 0, len(left))
	for _, l := range left {
		var mark tv = false
		for _, r := range right {
			switch c := cond(l, r); c {
			case true:
				mark = true
			case nil:
				if mark == false {
					mark = nil
				}
			}
		}
		out = append(out, append(append([]any{}, l...), mark))
	}
	return out
}

// and3 and eq3 are SQL's AND and = over model values.
func and3(a, b tv) tv {
	if a == false || b == false {
		return false
	}
	if a == nil || b == nil {
		return nil
	}
	return true
}

func eq3(a, b any) tv {
	if a == nil || b == nil {
		return nil
	}
	return a == b
}

func gt3(a, b any) tv {
	if a == nil || b == nil {
		return nil
	}
	return a.(int64) > b.(int64)
}

// The mark against the model on random NULL-heavy inputs (both sides'
// keys NULL one row in five, empty right inputs): one key (x IN (S)),
// a key and a residual (a correlated IN whose residual can be NULL), two
// keys (a NULL in either makes the pair NULL unless the other differs),
// and the nested loop join on the same conditions, at every chunking
// exectest runs, with the checked allocator.
func TestMarkJoin(t *testing.T) {
	// rv < k: the pair schema's k and rv; NULL where k is.
	rvLtK := physexpr.Binary{Op: physexpr.OpLt, L: prv, R: pk}
	ps := physexpr.Col{Index: 1, Name: "s"}
	prs := physexpr.Col{Index: 3, Name: "rs"}
	eqK := physexpr.Binary{Op: physexpr.OpEq, L: pk, R: prk}
	eqS := physexpr.Binary{Op: physexpr.OpEq, L: ps, R: prs}
	cases := []struct {
		name         string
		lkeys, rkeys []int
		residual     physexpr.Expr
		model        func(l, r []any) tv
	}{
		{"key", []int{0}, []int{0}, nil, func(l, r []any) tv { return eq3(l[0], r[0]) }},
		{"key_residual", []int{0}, []int{0}, rvLtK, func(l, r []any) tv { return and3(eq3(l[0], r[0]), gt3(l[0], r[2])) }},
		{"two_keys", []int{0, 1}, []int{0, 1}, nil, func(l, r []any) tv { return and3(eq3(l[0], r[0]), eq3(l[1], r[1])) }},
		{"two_keys_residual", []int{0, 1}, []int{0, 1}, rvLtK, func(l, r []any) tv {
			return and3(and3(eq3(l[0], r[0]), eq3(l[1], r[1])), gt3(l[0], r[2]))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint64(5) {
				left, right := joinInputs(seed+100, 30, []int{0, 1, 4, 12, 25}[seed])
				in := []exectest.Input{{Schema: arrowtest.KVSchema, Rows: left}, {Schema: rSchema, Rows: right}}
				want := refMark(left, right, c.model)
				exectest.Run(t, exectest.Case{Inputs: in, Ordered: true, Want: want,
					Build: func(n []exec.Node) (exec.Node, error) {
						return exec.NewHashJoinExecResidual(n[0], n[1], c.lkeys, c.rkeys, exec.JoinMark, c.residual)
					}})
				var cond physexpr.Expr = eqK
				if len(c.lkeys) == 2 {
					cond = physexpr.Binary{Op: physexpr.OpAnd, L: eqK, R: eqS}
				}
				if c.residual != nil {
					cond = physexpr.Binary{Op: physexpr.OpAnd, L: cond, R: c.residual}
				}
				exectest.Run(t, exectest.Case{Inputs: in, Ordered: true, Want: want,
					Build: func(n []exec.Node) (exec.Node, error) {
						return exec.NewNestedLoopJoinExec(n[0], n[1], exec.JoinMark, cond)
					}})
			}
		})
	}
	// No condition (an uncorrelated EXISTS): TRUE over a non-empty right
	// input, FALSE over an empty one, never NULL.
	left, right := joinInputs(7, 10, 3)
	for _, r := range [][][]any{right, nil} {
		exectest.Run(t, exectest.Case{
			Inputs: []exectest.Input{{Schema: arrowtest.KVSchema, Rows: left}, {Schema: rSchema, Rows: r}}, Ordered: true,
			Want: refMark(left, r, func(l, r []any) tv { return true }),
			Build: func(n []exec.Node) (exec.Node, error) {
				return exec.NewNestedLoopJoinExec(n[0], n[1], exec.JoinMark, nil)
			}})
	}
}

// The mark join's output schema is the left input's and a nullable
// boolean; its build side is held under the statement's memory limit
// like every join's: over it, the typed resource error.
func TestMarkJoinShapeAndLimit(t *testing.T) {
	mem := exectest.Mem(t)
	left, right := joinInputs(3, 50, 2000)
	lb, err := exectest.Batch(mem, arrowtest.KVSchema, left)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := exectest.Batch(mem, rSchema, right)
	if err != nil {
		t.Fatal(err)
	}
	lv, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{lb})
	rv, _ := exec.NewValuesExec(rSchema, []arrow.RecordBatch{rb})
	lb.Release()
	rb.Release()
	defer lv.Release()
	defer rv.Release()
	j, err := exec.NewHashJoinExec(lv, rv, []int{0}, []int{0}, exec.JoinMark)
	if err != nil {
		t.Fatal(err)
	}
	sc := j.Schema()
	if sc.NumFields() != 3 || sc.Field(2).Type.ID() != arrow.BOOL || !sc.Field(2).Nullable {
		t.Fatalf("schema %v", sc)
	}
	if _, err := exectest.RunUnder(t, mem, j, 1<<10); !errors.Is(err, memlimit.ErrResourceExhausted) {
		t.Fatalf("under 1 KiB: %v, want ErrResourceExhausted", err)
	}
	if n, err := exectest.RunUnder(t, mem, j, 1<<30); err != nil || n != 50 {
		t.Fatalf("rows %d, %v", n, err)
	}
}
