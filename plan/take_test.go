package plan_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// seedPlan is the seed query
//
//	SELECT v.ord, t._rowaddr FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord)
//	LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord
//
// as Sort(ord) <- Project[v.ord, t._rowaddr] <- Join(LEFT, unnest, t), or
// with the Project above the Sort when projectOnTop.
func seedPlan(t testing.TB, c *testCatalog, projectOnTop bool) *substraitpb.Plan {
	s := newSB(t)
	v := s.unnestParam(1)
	tb := s.scan(c, "t")
	j := must(s.b.Join(v, tb, s.fn(cmpURN, "equal", s.jref(v, tb, 0), s.jref(v, tb, 2+3)), splan.JoinTypeLeft))
	if projectOnTop {
		srt := must(s.b.Sort(j, expr.SortField{Expr: s.ref(j, 1), Kind: types.SortAscNullsLast}))
		pr := must(s.b.ProjectRemap(srt, []int32{7, 8}, s.ref(srt, 1), s.ref(srt, 6)))
		return s.plan(pr, "ord", "_rowaddr")
	}
	pr := must(s.b.ProjectRemap(j, []int32{7, 8}, s.ref(j, 1), s.ref(j, 6)))
	srt := must(s.b.Sort(pr, expr.SortField{Expr: s.ref(pr, 0), Kind: types.SortAscNullsLast}))
	return s.plan(srt, "ord", "_rowaddr")
}

const seedExplain = `01)ProjectExec: expr=[ord@1 as ord, _rowaddr@3 as _rowaddr]
02)  TakeByKeyExec(test): table=t key=3 columns=[4]
03)    ProjectExec: expr=[value@0 as value, ord@1 as ord, u64(value@0) as key0]
04)      UnnestExec: list=$1 ordinality=true
`

// seedWant is the reference answer computed in plain Go.
func seedWant(ids []int64) [][]any {
	addr := map[int64]uint64{}
	for _, r := range tRows {
		addr[int64(r[3].(uint64))] = r[4].(uint64)
	}
	var want [][]any
	for i, id := range ids {
		var a any
		if v, ok := addr[id]; ok {
			a = v
		}
		want = append(want, []any{int64(i + 1), a})
	}
	return want
}

func TestTakeRuleSeedQuery(t *testing.T) {
	ids := []int64{5, 3, 99, 5, -1, 0, 9, 1 << 40}
	for _, top := range []bool{false, true} {
		for _, batch := range []int{1, 2, 1024} {
			mem := exectest.Mem(t)
			c := stdCatalog(t, mem)
			pb := seedPlan(t, c, top)
			rows, explain, err := run(t, mem, c, pb, plan.Options{}, map[int]any{1: ids}, batch)
			if err != nil {
				t.Fatal(err)
			}
			equalRows(t, rows, seedWant(ids))
			if len(c.takes) != 1 || !c.takes[0].ok {
				t.Fatalf("takes = %+v, want one successful call", c.takes)
			}
			tk := c.takes[0]
			if tk.key != 3 || len(tk.columns) != 1 || tk.columns[0] != 4 || tk.drivingKeyType.ID() != arrow.UINT64 {
				t.Fatalf("take call %+v: want key _rowid(3), columns [_rowaddr(4)], a uint64 driving key", tk)
			}
			if explain != seedExplain {
				t.Fatalf("explain:\n%s\nwant:\n%s", explain, seedExplain)
			}
			if !strings.Contains(explain, "TakeByKeyExec(test)") || !strings.Contains(explain, "UnnestExec") {
				t.Fatalf("explain:\n%s", explain)
			}
			if got := fieldNames(t, c, pb); strings.Join(got, ",") != "ord,_rowaddr" {
				t.Fatalf("names %v", got)
			}
		}
	}
}

func TestTakeRuleDisableIndexes(t *testing.T) {
	ids := []int64{9, 0, 0, 4, -7, 8}
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	rows, explain, err := run(t, mem, c, seedPlan(t, c, false), plan.Options{DisableIndexes: true}, map[int]any{1: ids}, 2)
	if err != nil {
		t.Fatal(err)
	}
	equalRows(t, rows, seedWant(ids))
	if len(c.takes) != 0 {
		t.Fatalf("TakeByKey called under DisableIndexes: %+v", c.takes)
	}
	if !strings.Contains(explain, "HashJoinExec") || !strings.Contains(explain, "SortExec") {
		t.Fatalf("want hash join + sort:\n%s", explain)
	}
}

// TestTakeRuleNoIndex: the provider declines (no unique index), so the
// planner falls back to hash join + sort with the same rows.
func TestTakeRuleNoIndex(t *testing.T) {
	ids := []int64{2, 1, 2, 77}
	mem := exectest.Mem(t)
	c := newCatalog(t, mem)
	c.add("t", tUser, tRows) // no unique columns
	rows, explain, err := run(t, mem, c, seedPlan(t, c, false), plan.Options{}, map[int]any{1: ids}, 3)
	if err != nil {
		t.Fatal(err)
	}
	equalRows(t, rows, seedWant(ids))
	if len(c.takes) != 1 || c.takes[0].ok {
		t.Fatalf("takes %+v", c.takes)
	}
	if !strings.Contains(explain, "HashJoinExec") || !strings.Contains(explain, "SortExec") {
		t.Fatalf("want hash join + sort:\n%s", explain)
	}
}

// TestTakeRuleMetamorphic runs random id lists through the take and the
// generic plan, against the reference.
func TestTakeRuleMetamorphic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for iter := range 20 {
		ids := make([]int64, r.IntN(30))
		for i := range ids {
			ids[i] = int64(r.IntN(14)) - 2
		}
		var param any = ids
		if iter%3 == 1 { // the engine may bind ids as uint64
			u := make([]uint64, 0, len(ids))
			for i, id := range ids {
				if id < 0 {
					ids[i] = 0
				}
				u = append(u, uint64(ids[i]))
			}
			param = u
		}
		for _, opt := range []plan.Options{{}, {DisableIndexes: true}} {
			mem := exectest.Mem(t)
			c := stdCatalog(t, mem)
			rows, _, err := run(t, mem, c, seedPlan(t, c, iter%2 == 0), opt, map[int]any{1: param}, 1+r.IntN(5))
			if err != nil {
				t.Fatal(err)
			}
			equalRows(t, rows, seedWant(ids))
		}
	}
}

// TestTakeRuleUserColumn: the rule is a take over any unique column, here
// the int64 id, with every table column requested and a literal list.
func TestTakeRuleUserColumn(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	s := newSB(t)
	v := s.extTable(map[string]any{"relation": "stablerow.unnest", "values": []any{12, nil, 10, 13}, "element_type": "i64", "ordinality": true},
		[]string{"k", "o"}, []types.Type{i64(true), i64(false)})
	tb := s.scan(c, "t")
	j := must(s.b.Join(v, tb, s.fn(cmpURN, "equal", s.jref(v, tb, 2), s.jref(v, tb, 0)), splan.JoinTypeLeft))
	srt := must(s.b.Sort(j, expr.SortField{Expr: s.ref(j, 1), Kind: types.SortAscNullsLast}))
	rows, explain, err := run(t, mem, c, s.plan(srt, "k", "o", "id", "name", "score", "_rowid", "_rowaddr"), plan.Options{}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	equalRows(t, rows, [][]any{
		{int64(12), int64(1), int64(12), nil, 3.5, uint64(2), uint64(4294967296)},
		{nil, int64(2), nil, nil, nil, nil, nil},
		{int64(10), int64(3), int64(10), "a", 1.5, uint64(0), uint64(100)},
		{int64(13), int64(4), nil, nil, nil, nil, nil},
	})
	if len(c.takes) != 1 || c.takes[0].key != 0 || strings.Contains(explain, "SortExec") {
		t.Fatalf("takes %+v\n%s", c.takes, explain)
	}
}

// TestTakeRuleNonMatching: shapes that must plan generically.
func TestTakeRuleNonMatching(t *testing.T) {
	type tc struct {
		name  string
		build func(s *sb, c *testCatalog) *substraitpb.Plan
		want  func(ids []int64) [][]any
	}
	ids := []int64{5, 0, 3, 5}
	cases := []tc{
		{"inner-with-extra-predicate", func(s *sb, c *testCatalog) *substraitpb.Plan {
			v := s.unnestParam(1)
			tb := s.scan(c, "t")
			cond := s.fn(boolURN, "and",
				s.fn(cmpURN, "equal", s.jref(v, tb, 0), s.jref(v, tb, 5)),
				s.fn(cmpURN, "gt", s.jref(v, tb, 4), lit(2.0)))
			j := must(s.b.Join(v, tb, cond, splan.JoinTypeInner))
			srt := must(s.b.Sort(j, expr.SortField{Expr: s.ref(j, 1), Kind: types.SortAscNullsLast}))
			pr := must(s.b.ProjectRemap(srt, []int32{7, 8}, s.ref(srt, 1), s.ref(srt, 2)))
			return s.plan(pr, "ord", "id")
		}, func(ids []int64) [][]any {
			var out [][]any
			for i, id := range ids {
				for _, r := range tRows {
					if int64(r[3].(uint64)) == id && r[2] != nil && r[2].(float64) > 2 {
						out = append(out, []any{int64(i + 1), r[0]})
					}
				}
			}
			return out
		}},
		{"sort-on-table-column", func(s *sb, c *testCatalog) *substraitpb.Plan {
			v := s.unnestParam(1)
			tb := s.scan(c, "t")
			j := must(s.b.Join(v, tb, s.fn(cmpURN, "equal", s.jref(v, tb, 0), s.jref(v, tb, 5)), splan.JoinTypeLeft))
			pr := must(s.b.ProjectRemap(j, []int32{7, 8}, s.ref(j, 1), s.ref(j, 3)))
			srt := must(s.b.Sort(pr, expr.SortField{Expr: s.ref(pr, 1), Kind: types.SortDescNullsFirst}, expr.SortField{Expr: s.ref(pr, 0), Kind: types.SortAscNullsLast}))
			return s.plan(srt, "ord", "name")
		}, func(ids []int64) [][]any {
			// by name DESC NULLS FIRST, then ord
			return [][]any{{int64(3), nil}, {int64(1), "d"}, {int64(4), "d"}, {int64(2), "a"}}
		}},
		{"key-not-equality-on-take-column", func(s *sb, c *testCatalog) *substraitpb.Plan {
			v := s.unnestParam(1)
			tb := s.scan(c, "t")
			plus1 := s.fn(arithURN, "add", s.jref(v, tb, 2), lit(int64(-10)))
			j := must(s.b.Join(v, tb, s.fn(cmpURN, "equal", s.jref(v, tb, 0), plus1), splan.JoinTypeLeft))
			pr := must(s.b.ProjectRemap(j, []int32{7, 8}, s.ref(j, 1), s.ref(j, 2)))
			srt := must(s.b.Sort(pr, expr.SortField{Expr: s.ref(pr, 0), Kind: types.SortAscNullsLast}))
			return s.plan(srt, "ord", "id")
		}, func(ids []int64) [][]any {
			var out [][]any
			for i, id := range ids {
				var m any
				for _, r := range tRows {
					if r[0] != nil && r[0].(int64)-10 == id {
						m = r[0]
					}
				}
				out = append(out, []any{int64(i + 1), m})
			}
			return out
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := exectest.Mem(t)
			c := stdCatalog(t, mem)
			rows, explain, err := run(t, mem, c, tc.build(newSB(t), c), plan.Options{}, map[int]any{1: ids}, 2)
			if err != nil {
				t.Fatal(err)
			}
			equalRows(t, rows, tc.want(ids))
			if len(c.takes) != 0 {
				t.Fatalf("TakeByKey called: %+v\n%s", c.takes, explain)
			}
			if !strings.Contains(explain, "HashJoinExec") || !strings.Contains(explain, "SortExec") {
				t.Fatalf("want hash join + sort:\n%s", explain)
			}
		})
	}
}

// TestTakeRuleInner: an INNER join of the take shape is the take plus a
// filter on found; order is kept and the sort elided.
func TestTakeRuleInner(t *testing.T) {
	ids := []int64{8, 4, 0, 8, -2, 5}
	want := [][]any{}
	for _, r := range seedWant(ids) {
		if r[1] != nil {
			want = append(want, r)
		}
	}
	for _, opt := range []plan.Options{{}, {DisableIndexes: true}} {
		mem := exectest.Mem(t)
		c := stdCatalog(t, mem)
		s := newSB(t)
		v := s.unnestParam(1)
		tb := s.scan(c, "t")
		j := must(s.b.Join(v, tb, s.fn(cmpURN, "equal", s.jref(v, tb, 5), s.jref(v, tb, 0)), splan.JoinTypeInner))
		pr := must(s.b.ProjectRemap(j, []int32{7, 8}, s.ref(j, 1), s.ref(j, 6)))
		srt := must(s.b.Sort(pr, expr.SortField{Expr: s.ref(pr, 0), Kind: types.SortAscNullsLast}))
		rows, explain, err := run(t, mem, c, s.plan(srt, "ord", "_rowaddr"), opt, map[int]any{1: ids}, 2)
		if err != nil {
			t.Fatal(err)
		}
		equalRows(t, rows, want)
		if opt.DisableIndexes != strings.Contains(explain, "SortExec") || opt.DisableIndexes == strings.Contains(explain, "TakeByKeyExec") {
			t.Fatalf("DisableIndexes=%v:\n%s", opt.DisableIndexes, explain)
		}
	}
}

// TestTakeRuleEmitAndFilter: the join's own emit mapping, and a WHERE
// between the projection and the join, keep the rule and the elision.
func TestTakeRuleEmitAndFilter(t *testing.T) {
	ids := []int64{7, 1, 2, 7, 3, -5}
	for _, filtered := range []bool{false, true} {
		mem := exectest.Mem(t)
		c := stdCatalog(t, mem)
		s := newSB(t)
		v := s.unnestParam(1)
		tb := s.scan(c, "t")
		cond := s.fn(cmpURN, "equal", s.jref(v, tb, 0), s.jref(v, tb, 5))
		// emit [ord, _rowaddr, name]
		j := must(s.b.JoinRemap(v, tb, cond, splan.JoinTypeLeft, []int32{1, 6, 3}))
		var in splan.Rel = j
		if filtered {
			in = must(s.b.Filter(j, s.fn(cmpURN, "is_not_null", s.ref(j, 1))))
		}
		srt := must(s.b.Sort(in, expr.SortField{Expr: s.ref(in, 0), Kind: types.SortAscNullsLast}))
		rows, explain, err := run(t, mem, c, s.plan(srt, "ord", "_rowaddr", "name"), plan.Options{}, map[int]any{1: ids}, 2)
		if err != nil {
			t.Fatal(err)
		}
		var want [][]any
		for i, id := range ids {
			row := []any{int64(i + 1), nil, nil}
			for _, r := range tRows {
				if int64(r[3].(uint64)) == id {
					row[1], row[2] = r[4], r[1]
				}
			}
			if !filtered || row[1] != nil {
				want = append(want, row)
			}
		}
		equalRows(t, rows, want)
		if strings.Contains(explain, "SortExec") || len(c.takes) != 1 || len(c.takes[0].columns) != 2 {
			t.Fatalf("takes %+v\n%s", c.takes, explain)
		}
	}
}
