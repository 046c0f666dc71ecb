package plan_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// countingCatalog is a testCatalog that also counts its tables' rows
// (plan.RowCounter), so the planner may choose a join's build side.
type countingCatalog struct{ *testCatalog }

func (c countingCatalog) TableRows(name string) (uint64, bool) {
	t, ok := c.tables[name]
	if !ok {
		return 0, false
	}
	return uint64(len(t.rows)), true
}

var _ plan.RowCounter = countingCatalog{}

// buildSideTables: "small" (3 rows) and "big" (20 rows), ids with
// duplicates and NULLs drawn from 0..5.
func buildSideTables(t *testing.T, c *testCatalog, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 3))
	rows := func(n int) [][]any {
		out := make([][]any, n)
		for i := range out {
			var id, score any = int64(r.IntN(6)), float64(r.IntN(4))
			if r.IntN(5) == 0 {
				id = nil
			}
			if r.IntN(6) == 0 {
				score = nil
			}
			out[i] = []any{id, fmt.Sprintf("n%d", i), score, uint64(i), uint64(1000 + i)}
		}
		return out
	}
	c.add("small", tUser, rows(3))
	c.add("big", tUser, rows(20))
}

// A SEMI, ANTI or LEFT join whose right input is estimated over twice its
// left is planned as RIGHT SEMI, RIGHT ANTI or RIGHT with the inputs
// swapped, and answers exactly as the right-build join (the plan without
// row counts) does: with duplicate and NULL keys, with a residual, and
// through the LEFT join's column mapping. A filter on the big side
// (a quarter per conjunct) or a big left side keeps the right build.
func TestBuildSideSwap(t *testing.T) {
	types := []struct {
		join    splan.JoinType
		swapped string
	}{
		{splan.JoinTypeLeftSemi, "type=RightSemi"},
		{splan.JoinTypeLeftAnti, "type=RightAnti"},
		{splan.JoinTypeLeft, "type=Right "},
	}
	for seed := uint64(0); seed < 8; seed++ {
		for _, typ := range types {
			for _, shape := range []string{"small-big", "big-small", "small-filteredbig"} {
				for _, residual := range []bool{false, true} {
					name := fmt.Sprintf("seed=%d/%s/%s/residual=%v", seed, typ.join, shape, residual)
					mem := exectest.Mem(t)
					c := newCatalog(t, mem)
					buildSideTables(t, c, seed)
					s := newSB(t)
					var l, r splan.Rel
					switch shape {
					case "small-big":
						l, r = s.scan(c, "small"), s.scan(c, "big")
					case "big-small":
						l, r = s.scan(c, "big"), s.scan(c, "small")
					default:
						l = s.scan(c, "small")
						b := s.scan(c, "big")
						r = must(s.b.Filter(b, s.fn(boolURN, "and",
							s.fn(cmpURN, "gt", s.ref(b, 3), lit(int64(-1))),
							s.fn(cmpURN, "gt", s.ref(b, 4), lit(int64(-1))))))
					}
					cond := s.fn(cmpURN, "equal", s.jref(l, r, 0), s.jref(l, r, 5))
					if residual {
						cond = s.fn(boolURN, "and", cond, s.fn(cmpURN, "lt", s.jref(l, r, 2), s.jref(l, r, 7)))
					}
					j := must(s.b.Join(l, r, cond, typ.join))
					var names []string
					for i := range len(j.RecordType().Types()) {
						names = append(names, fmt.Sprintf("c%d", i))
					}
					pb := s.plan(j, names...)
					want, wantExplain, err := run(t, mem, c, pb, plan.Options{}, nil, 4)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for _, batch := range []int{1, 4, 1024} {
						got, explain, err := run(t, mem, countingCatalog{c}, pb, plan.Options{}, nil, batch)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						if g, w := sortedRows(got), sortedRows(want); !reflect.DeepEqual(g, w) && len(g)+len(w) > 0 {
							t.Fatalf("%s batch %d\n got %v\nwant %v\n%s", name, batch, g, w, explain)
						}
						if swapped := strings.Contains(explain, typ.swapped); swapped != (shape == "small-big") {
							t.Fatalf("%s: swapped=%v\n%s", name, swapped, explain)
						}
					}
					if strings.Contains(wantExplain, "type=Right") {
						t.Fatalf("%s: without row counts the right input is built\n%s", name, wantExplain)
					}
				}
			}
		}
	}
}

// The seed take query plans as before with row counts: the take rule
// comes first, and with indexes disabled its LEFT join's driving side (an
// UNNEST, whose rows are unknown) keeps the right build.
func TestBuildSideKeepsTake(t *testing.T) {
	ids := []int64{5, 3, 99, 5}
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	pb := seedPlan(t, c, false)
	rows, explain, err := run(t, mem, countingCatalog{c}, pb, plan.Options{}, map[int]any{1: ids}, 2)
	if err != nil {
		t.Fatal(err)
	}
	equalRows(t, rows, seedWant(ids))
	if explain != seedExplain {
		t.Fatalf("explain:\n%s\nwant:\n%s", explain, seedExplain)
	}
	rows, explain, err = run(t, mem, countingCatalog{c}, pb, plan.Options{DisableIndexes: true}, map[int]any{1: ids}, 2)
	if err != nil {
		t.Fatal(err)
	}
	equalRows(t, rows, seedWant(ids))
	if !strings.Contains(explain, "HashJoinExec: type=Left ") {
		t.Fatalf("explain:\n%s", explain)
	}
}

// The build side is chosen by the optimizer's estimates
// (optimize.Estimated), the ones join ordering uses: an inner join without
// a key is the product of its inputs, a quarter per conjunct. big SEMI
// (big ⋈ big ON score < score) builds an estimated 20 × 20 / 4 = 100 rows
// on its right against 20 on its left: the inputs are swapped (the second
// estimator the planner had took every inner join for a key join, 20
// rows, and built them), and the answer is the right-build join's.
func TestBuildSideKeylessInner(t *testing.T) {
	mem := exectest.Mem(t)
	c := newCatalog(t, mem)
	buildSideTables(t, c, 1)
	s := newSB(t)
	l, b1, b2 := s.scan(c, "big"), s.scan(c, "big"), s.scan(c, "big")
	r := must(s.b.Join(b1, b2, s.fn(cmpURN, "lt", s.jref(b1, b2, 2), s.jref(b1, b2, 7)), splan.JoinTypeInner))
	j := must(s.b.Join(l, r, s.fn(cmpURN, "equal", s.jref(l, r, 0), s.jref(l, r, 5)), splan.JoinTypeLeftSemi))
	var names []string
	for i := range len(j.RecordType().Types()) {
		names = append(names, fmt.Sprintf("c%d", i))
	}
	pb := s.plan(j, names...)
	want, _, err := run(t, mem, c, pb, plan.Options{}, nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	got, explain, err := run(t, mem, countingCatalog{c}, pb, plan.Options{}, nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := sortedRows(got), sortedRows(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("got %v\nwant %v\n%s", g, w, explain)
	}
	if !strings.Contains(explain, "type=RightSemi") {
		t.Fatalf("the keyless join's estimated 100 rows are built\n%s", explain)
	}
}
