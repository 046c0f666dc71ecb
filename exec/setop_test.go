package exec_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/internal/arrowtest"
)

// refSetOp is the reference model of PostgreSQL's set operation rules: a
// row m times on the left and n on the right is in the result once
// (INTERSECT: m, n > 0; EXCEPT: m > 0 = n) or min(m, n) / max(m-n, 0)
// times (ALL); rows compare with NULLs equal.
func refSetOp(left, right [][]any, op exec.SetOp) [][]any {
	key := func(r []any) string { return fmt.Sprintf("%#v", r) }
	l, rc := map[string]int{}, map[string]int{}
	var order [][]any
	for _, r := range left {
		if l[key(r)] == 0 {
			order = append(order, r)
		}
		l[key(r)]++
	}
	for _, r := range right {
		rc[key(r)]++
	}
	var out [][]any
	for _, r := range order {
		m, n := l[key(r)], rc[key(r)]
		c := 0
		switch op {
		case exec.SetIntersect:
			if m > 0 && n > 0 {
				c = 1
			}
		case exec.SetIntersectAll:
			c = min(m, n)
		case exec.SetExcept:
			if n == 0 {
				c = 1
			}
		case exec.SetExceptAll:
			c = max(m-n, 0)
		}
		for range c {
			out = append(out, r)
		}
	}
	return out
}

func TestSetOpAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	small := func(n int) [][]any {
		rows := make([][]any, n)
		for i := range rows {
			var k any = int64(r.IntN(3))
			if r.IntN(4) == 0 {
				k = nil
			}
			var s any = string(rune('a' + r.IntN(2)))
			if r.IntN(4) == 0 {
				s = nil
			}
			rows[i] = []any{k, s}
		}
		return rows
	}
	for _, op := range []exec.SetOp{exec.SetIntersect, exec.SetIntersectAll, exec.SetExcept, exec.SetExceptAll} {
		for _, n := range [][2]int{{0, 0}, {0, 5}, {5, 0}, {30, 30}} {
			left, right := small(n[0]), small(n[1])
			t.Run(fmt.Sprintf("%s/%d_%d", op, n[0], n[1]), func(t *testing.T) {
				exectest.Run(t, exectest.Case{
					Inputs: []exectest.Input{{Schema: arrowtest.KVSchema, Rows: left}, {Schema: arrowtest.KVSchema, Rows: right}},
					Build: func(in []exec.Node) (exec.Node, error) {
						return exec.NewSetOpExec(in[0], in[1], op)
					},
					Want:    refSetOp(left, right, op),
					Ordered: true,
				})
			})
		}
	}
}

func TestSetOpRefusals(t *testing.T) {
	a, _ := exec.NewValuesExec(arrowtest.KVSchema, nil)
	b, _ := exec.NewValuesExec(aggSchema, nil)
	if _, err := exec.NewSetOpExec(a, b, exec.SetExcept); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("mismatched inputs: %v", err)
	}
	if _, err := exec.NewSetOpExec(a, a, exec.SetOp(7)); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("unknown op: %v", err)
	}
}
