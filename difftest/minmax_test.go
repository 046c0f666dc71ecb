package difftest

import (
	"errors"
	"strings"
	"testing"
)

// TestMinMaxAsLimit1: PostgreSQL answering a min/max-like aggregate over
// one table where stablerow raises on the WHERE's rows is its LIMIT 1 plan
// (seed 20261213 case 15586) only in that shape, with PostgreSQL's value
// showing a row qualified and stablerow's count of the WHERE's rows
// raising; anything else is a divergence.
func TestMinMaxAsLimit1(t *testing.T) {
	k := &Expr{Op: "col", Type: TInt, Text: "a.k"}
	where := &Expr{Op: "cmp", Type: TBool, Text: ">", Raises: true, Args: []*Expr{
		{Op: "fn", Type: TFloat, Text: "sqrt", Args: []*Expr{k}, Raises: true}, k}}
	agg := func(name string, arg *Expr) *Expr {
		return &Expr{Op: "agg", Type: arg.Type, Text: name, Args: []*Expr{arg}}
	}
	one := &Expr{Op: "lit", Type: TInt, Text: "CAST(1 AS BIGINT)"}
	null := &Expr{Op: "lit", Type: TInt, Text: "CAST(NULL AS BIGINT)"}
	tru := &Expr{Op: "lit", Type: TBool, Text: "TRUE"}
	query := func(items ...*Expr) *Query {
		return &Query{Select: items, Where: where, Limit: -1, Offset: -1, From: From{Kind: FromTable, T0: "t0"}}
	}
	tables := func(index bool) []*Table { return []*Table{{Name: "t0", Index: index}} }
	srErr := &Outcome{Err: errors.New("exec: invalid argument: sqrt")}
	pg := func(vs ...*string) *Outcome { return &Outcome{Cols: []TypeClass{ClassInt}, Rows: [][]*string{vs}} }
	var asked []string
	countRaises := func(sql string) *Outcome {
		asked = append(asked, sql)
		return &Outcome{Err: errors.New("sqrt")}
	}
	countAnswers := func(string) *Outcome { return &Outcome{Cols: []TypeClass{ClassInt}, Rows: [][]*string{{s("1")}}} }
	match := func(q *Query, index bool, pgOut *Outcome, again func(string) *Outcome) bool {
		d := &Divergence{Case: &Case{Query: q, Tables: tables(index)}, SQL: q.SQL(), PG: pgOut, SR: srErr, IsQuery: true}
		return minMaxAsLimit1(d, again)
	}

	if !match(query(agg("max", one)), false, pg(s("1")), countRaises) {
		t.Error("max of a constant did not match")
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "SELECT count(*) FROM t0 AS a WHERE") {
		t.Errorf("the confirmation is not a count of the WHERE's rows: %q", asked)
	}
	if !match(query(agg("bool_and", tru), agg("min", one)), false, pg(s("t"), s("1")), countRaises) {
		t.Error("bool_and and min of constants did not match")
	}
	if !match(query(agg("max", null)), false, pg(nil), countRaises) {
		t.Error("max of a NULL constant (no scan in PostgreSQL) did not match")
	}
	// A constant select item beside a HAVING over bool_or of a constant
	// that folds to NULL (NULL < 1): PostgreSQL's one-time filter reads no
	// row and the HAVING keeps none (seed 20261222 case 337062). Not so
	// for a constant that is not NULL: which rows its LIMIT 1 read does
	// not show when the HAVING keeps no row.
	probe := func(sql string) *Outcome {
		switch {
		case strings.HasPrefix(sql, "SELECT count(*)"):
			return &Outcome{Err: errors.New("division by zero")}
		case strings.Contains(sql, "NULL"):
			return &Outcome{Cols: []TypeClass{ClassBool}, Rows: [][]*string{{nil}}}
		}
		return &Outcome{Cols: []TypeClass{ClassBool}, Rows: [][]*string{{s("t")}}}
	}
	havingOver := func(arg *Expr) *Query {
		q := query(&Expr{Op: "lit", Type: TText, Text: "CAST(NULL AS CHAR(4))"})
		q.Having = &Expr{Op: "cmp", Type: TBool, Text: "=", Args: []*Expr{agg("bool_or", arg), {Op: "lit", Type: TBool, Text: "FALSE"}}}
		return q
	}
	noRows := &Outcome{Cols: []TypeClass{ClassText}}
	if !match(havingOver(&Expr{Op: "cmp", Type: TBool, Text: "<", Args: []*Expr{null, one}}), false, noRows, probe) {
		t.Error("a HAVING over bool_or of a constant folding to NULL did not match")
	}
	if match(havingOver(tru), false, noRows, probe) {
		t.Error("a HAVING over bool_or(TRUE) keeping no row matched")
	}
	for name, c := range map[string]struct {
		q     *Query
		index bool
		pg    *Outcome
		again func(string) *Outcome
	}{
		"k without an index (a sort reads every row)":    {query(agg("max", k)), false, pg(s("5")), countRaises},
		"k with an index (the oracle has no index path)": {query(agg("max", k)), true, pg(s("5")), countRaises},
		"an argument over a column":                      {query(agg("max", &Expr{Op: "neg", Type: TInt, Args: []*Expr{k}})), true, pg(s("5")), countRaises},
		"count beside max (every row is read)":           {query(agg("max", one), &Expr{Op: "agg", Type: TInt, Text: "count"}), false, pg(s("1"), s("2")), countRaises},
		"sum":                                            {query(agg("sum", one)), false, pg(s("1")), countRaises},
		"an expression over the aggregate":               {query(&Expr{Op: "neg", Type: TInt, Args: []*Expr{agg("max", one)}}), false, pg(s("-1")), countRaises},
		"NULL from a constant: no row qualified":         {query(agg("max", one)), false, pg(nil), countRaises},
		"the WHERE's rows do not raise on stablerow":     {query(agg("max", one)), false, pg(s("1")), countAnswers},
		"GROUP BY": {&Query{Select: []*Expr{agg("max", one)}, Where: where, GroupBy: []string{"a.k"}, Limit: -1, Offset: -1, From: From{Kind: FromTable, T0: "t0"}}, false, pg(s("1")), countRaises},
		"a join":   {&Query{Select: []*Expr{agg("max", one)}, Where: where, Limit: -1, Offset: -1, From: From{Kind: FromJoin, T0: "t0", T1: "t0", On: [2]string{"a.k", "b.k"}}}, false, pg(s("1")), countRaises},
		"a HAVING over a non-min/max aggregate (count)": {&Query{Select: []*Expr{agg("max", one)}, Where: where, Having: &Expr{Op: "cmp", Type: TBool, Text: ">", Args: []*Expr{{Op: "agg", Type: TInt, Text: "count"}, one}}, Limit: -1, Offset: -1, From: From{Kind: FromTable, T0: "t0"}}, false, pg(s("1")), countRaises},
	} {
		if match(c.q, c.index, c.pg, c.again) {
			t.Errorf("%s: matched", name)
		}
	}
	// PostgreSQL raising too, or stablerow answering, is no such case.
	d := &Divergence{Case: &Case{Query: query(agg("max", one)), Tables: tables(false)}, PG: srErr, SR: pg(s("1")), IsQuery: true}
	if minMaxAsLimit1(d, countRaises) {
		t.Error("matched PostgreSQL raising")
	}
}
