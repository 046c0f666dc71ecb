package exec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

func TestAggregateCount(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 17, 100} {
		rows := randRows(r, n)
		var ks, ss int64
		for _, row := range rows {
			if row[0] != nil {
				ks++
			}
			if row[1] != nil {
				ss++
			}
		}
		exectest.Run(t, exectest.Case{
			Inputs: []exectest.Input{{Schema: kvSchema, Rows: rows}},
			Build: func(in []exec.Node) (exec.Node, error) {
				return exec.NewAggregateExec(in[0], []exec.Aggregate{
					{Func: exec.AggCountStar, Name: "n"},
					{Func: exec.AggCount, Column: 0, Name: "k"},
					{Func: exec.AggCount, Column: 1, Name: "s"},
				})
			},
			Want:    [][]any{{int64(n), ks, ss}},
			Ordered: true,
		})
	}
	v, _ := exec.NewValuesExec(kvSchema, nil)
	if _, err := exec.NewAggregateExec(v, []exec.Aggregate{{Func: exec.AggCount, Column: 5}}); err == nil {
		t.Fatal("column out of range accepted")
	}
	if _, err := exec.NewAggregateExec(v, nil); err == nil {
		t.Fatal("no measures accepted")
	}
}
