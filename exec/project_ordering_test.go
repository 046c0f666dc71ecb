package exec_test

import (
	"slices"
	"testing"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// TestProjectOrderingOf: a projection keeps the leading sort keys it
// passes through as plain columns, renumbered, and none after the first
// one it drops or computes over.
func TestProjectOrderingOf(t *testing.T) {
	in, err := exec.NewUnnestExec([]int64{3, 1})
	if err != nil {
		t.Fatal(err)
	}
	value := physexpr.Col{Index: 0, Name: "value"}
	ord := physexpr.Col{Index: 1, Name: "ord"}
	have := []exec.SortKey{{Column: 1, Name: "ord"}, {Column: 0, Name: "value", Descending: true}}
	cases := []struct {
		name  string
		exprs []physexpr.Expr
		want  []exec.SortKey
	}{
		{"both kept, swapped", []physexpr.Expr{ord, value}, []exec.SortKey{{Column: 0, Name: "a"}, {Column: 1, Name: "b", Descending: true}}},
		{"second dropped", []physexpr.Expr{ord}, []exec.SortKey{{Column: 0, Name: "a"}}},
		{"first dropped", []physexpr.Expr{value}, nil},
		{"first computed over", []physexpr.Expr{physexpr.Lit{Value: int64(1)}, value}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			names := []string{"a", "b"}[:len(tc.exprs)]
			p, err := exec.NewProjectExec(in, tc.exprs, names)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.OrderingOf(have); !slices.Equal(got, tc.want) {
				t.Fatalf("OrderingOf = %v, want %v", got, tc.want)
			}
		})
	}
}
