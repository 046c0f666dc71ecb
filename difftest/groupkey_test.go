package difftest

import (
	"strings"
	"testing"
)

// TestZeroSignInGroupKey: a group key printed -0 by one side and 0 by the
// other is the same answer when the group held both (seed 20261213 case
// 13222), and a divergence otherwise: a sign computed wrongly on the rows,
// a differing aggregate, a column that is not a key, UNION ALL.
func TestZeroSignInGroupKey(t *testing.T) {
	key := &Expr{Op: "bin", Type: TFloat, Text: "*", Args: []*Expr{
		{Op: "col", Type: TFloat, Text: "a.c0"}, {Op: "col", Type: TInt, Text: "b.k"}}}
	cnt := &Expr{Op: "agg", Type: TInt, Text: "count"}
	grouped := &Query{Select: []*Expr{key, cnt}, GroupBy: []string{"1"}, Limit: -1, Offset: -1,
		From: From{Kind: FromJoin, T0: "t0", T1: "t0", On: [2]string{"a.k", "b.k"}}}
	row := func(vs ...string) []*string {
		r := make([]*string, len(vs))
		for i, v := range vs {
			r[i] = s(v)
		}
		return r
	}
	out := func(cols []TypeClass, rows ...[]*string) *Outcome { return &Outcome{Cols: cols, Rows: rows} }
	keyCnt := []TypeClass{ClassFloat, ClassInt}
	var asked []string
	ungrouped := func(vals ...string) func(string) *Outcome {
		return func(sql string) *Outcome {
			asked = append(asked, sql)
			o := &Outcome{Cols: []TypeClass{ClassFloat}}
			for _, v := range vals {
				o.Rows = append(o.Rows, row(v))
			}
			return o
		}
	}
	match := func(q *Query, pg, sr *Outcome, again func(string) *Outcome) bool {
		d := &Divergence{Case: &Case{Query: q}, SQL: q.SQL(), PG: pg, SR: sr, IsQuery: true}
		return zeroSignInGroupKey(d, again)
	}

	if !match(grouped, out(keyCnt, row("-0", "2")), out(keyCnt, row("0", "2")), ungrouped("0", "-0")) {
		t.Error("a group of -0 and 0 printed -0 and 0 did not match")
	}
	if len(asked) != 1 || strings.Contains(asked[0], "GROUP BY") || strings.Contains(asked[0], "count") {
		t.Errorf("the confirmation is not the ungrouped keys: %q", asked)
	}
	if match(grouped, out(keyCnt, row("-0", "2")), out(keyCnt, row("0", "2")), ungrouped("0", "0")) {
		t.Error("matched though stablerow's rows hold no -0 (a sign computed wrongly on the rows)")
	}
	if match(grouped, out(keyCnt, row("-0", "2")), out(keyCnt, row("0", "3")), ungrouped("0", "-0")) {
		t.Error("matched though the aggregate differs")
	}
	if match(grouped, out(keyCnt, row("1", "2")), out(keyCnt, row("0", "2")), ungrouped("0", "1")) {
		t.Error("matched two different keys")
	}
	// A min over the group is no key: its -0 against 0 is not matched here.
	agg := &Query{Select: []*Expr{cnt, {Op: "agg", Type: TFloat, Text: "min", Args: []*Expr{key}}},
		GroupBy: []string{"b.k"}, Limit: -1, Offset: -1, From: grouped.From}
	cntKey := []TypeClass{ClassInt, ClassFloat}
	if match(agg, out(cntKey, row("2", "-0")), out(cntKey, row("2", "0")), ungrouped("0", "-0")) {
		t.Error("an aggregate column matched as a key")
	}
	plain := &Query{Select: []*Expr{key}, Limit: -1, Offset: -1, From: grouped.From}
	float := []TypeClass{ClassFloat}
	if match(plain, out(float, row("-0")), out(float, row("0")), ungrouped("0", "-0")) {
		t.Error("a query without grouping matched")
	}
	// DISTINCT and the set operations but UNION ALL group too.
	distinct := &Query{Select: []*Expr{key}, Distinct: true, Limit: -1, Offset: -1, From: grouped.From}
	if !match(distinct, out(float, row("-0")), out(float, row("0")), ungrouped("-0", "0")) {
		t.Error("DISTINCT over -0 and 0 did not match")
	}
	for _, all := range []bool{false, true} {
		u := &Query{Select: []*Expr{key}, Limit: -1, Offset: -1, From: grouped.From,
			Set: &SetQuery{Op: "UNION", All: all, Right: &Query{Select: []*Expr{key}, Limit: -1, Offset: -1, From: grouped.From}}}
		asked = nil
		got := match(u, out(float, row("-0")), out(float, row("0")), ungrouped("-0", "0"))
		if got == all {
			t.Errorf("UNION ALL=%v: matched %v", all, got)
		}
		if !all && (len(asked) != 1 || !strings.Contains(asked[0], "UNION ALL")) {
			t.Errorf("UNION's confirmation is not the UNION ALL of its sides: %q", asked)
		}
	}
	// Through the list of known divergences, by name.
	d := &Divergence{Case: &Case{Query: grouped}, SQL: grouped.SQL(), IsQuery: true,
		PG: out(keyCnt, row("-0", "2")), SR: out(keyCnt, row("0", "2"))}
	name := ""
	for _, k := range knownDivergences {
		if k.Match(d, ungrouped("0", "-0")) {
			name = k.Name
			break
		}
	}
	if name != "sign of zero in a group key" {
		t.Errorf("matched %q", name)
	}
}
