package exec_test

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// refCompare orders one Go value per key (nil = NULL) independently of exec.
func refCompare(a, b any, desc, nullsFirst bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		if nullsFirst {
			return -1
		}
		return 1
	case b == nil:
		if nullsFirst {
			return 1
		}
		return -1
	}
	var r int
	switch x := a.(type) {
	case int64:
		r = cmp.Compare(x, b.(int64))
	case string:
		r = cmp.Compare(x, b.(string))
	}
	if desc {
		r = -r
	}
	return r
}

func TestSort(t *testing.T) {
	rows := arrowtest.RandRows(rand.New(rand.NewPCG(21, 22)), 60)
	keySets := [][]exec.SortKey{
		{{Column: 0}},
		{{Column: 0, Descending: true, NullsFirst: true}},
		{{Column: 1, NullsFirst: true}, {Column: 0, Descending: true}},
		{{Column: 1, Descending: true}, {Column: 0, NullsFirst: true}},
	}
	for _, keys := range keySets {
		want := append([][]any{}, rows...)
		sort.SliceStable(want, func(i, j int) bool {
			for _, k := range keys {
				if r := refCompare(want[i][k.Column], want[j][k.Column], k.Descending, k.NullsFirst); r != 0 {
					return r < 0
				}
			}
			return false
		})
		exectest.Run(t, exectest.Case{
			Inputs:  []exectest.Input{{Schema: arrowtest.KVSchema, Rows: rows}},
			Build:   func(in []exec.Node) (exec.Node, error) { return exec.NewSortExec(in[0], keys) },
			Want:    want,
			Ordered: true, // stable sort: ties keep input order, so the order is exact
		})
	}
	v, _ := exec.NewValuesExec(arrowtest.KVSchema, nil)
	s, _ := exec.NewSortExec(v, []exec.SortKey{{Column: 1, Descending: true}})
	if s.String() != "SortExec: keys=[s DESC]" {
		t.Fatal(s.String())
	}
	if !exec.OrderingSatisfies(s.Properties().Ordering, []exec.SortKey{{Column: 1, Descending: true}}) {
		t.Fatal("sort ordering")
	}
	if _, err := exec.NewSortExec(v, []exec.SortKey{{Column: 5}}); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatal(err)
	}
	bin := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.BinaryTypes.Binary}}, nil)
	bv, _ := exec.NewValuesExec(bin, nil)
	if _, err := exec.NewSortExec(bv, []exec.SortKey{{Column: 0}}); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatal(err)
	}
}
