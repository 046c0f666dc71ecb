package difftest

import (
	"slices"
	"strings"
)

// Grouping sets and aggregate FILTER (issue 29 item 2).
//
// A grouped query's keys sometimes become ROLLUP, CUBE or GROUPING SETS
// (with the empty set, duplicate sets, or a plain key beside a ROLLUP), and
// its SELECT list then sometimes holds GROUPING() of some of its keys; an
// aggregate sometimes carries FILTER (WHERE cond). Both sides run the same
// text; the rows come out in no defined order unless OrderAll.

// groupingSets rewrites q's GROUP BY (keys by position or text, one per
// drawn key) as a grouping-set form over the same keys, and appends
// GROUPING() calls of key expressions to the SELECT list.
func (g *Gen) groupingSets(q *Query, keys []*Expr) {
	if len(q.GroupBy) == 0 || !g.p(0.35) {
		return
	}
	// Not over a key that reads no column: PostgreSQL 15 takes ORDER BY
	// of such a key as a constant's and drops it (its EquivalenceClass
	// holds a constant), though the key is NULL in the sets without it,
	// so its rows come back in no defined order (SELECT DATE '...' ...
	// GROUP BY CUBE (1) ORDER BY 1; seed 1 case 258). stablerow orders
	// them; sql/groupby.go matches such keys, testdata/sql pins them.
	// Nor over one PostgreSQL folds to a constant though it names a
	// column (coalesce(CAST('+7' AS CHAR(4)), b.c2): seed 20261237 case
	// 179806).
	for _, k := range keys {
		if foldsConstant(k) {
			return
		}
	}
	items := q.GroupBy
	list := func(xs []string) string { return strings.Join(xs, ", ") }
	sets := func(xs ...string) string { return "GROUPING SETS (" + list(xs) + ")" }
	switch g.n(6) {
	case 0:
		q.GroupBy = []string{"ROLLUP (" + list(items) + ")"}
	case 1:
		q.GroupBy = []string{"CUBE (" + list(items) + ")"}
	case 2:
		// Each key alone, then all of them or none.
		var xs []string
		for _, it := range items {
			xs = append(xs, "("+it+")")
		}
		xs = append(xs, pick(g, []string{"()", "(" + list(items) + ")"}))
		q.GroupBy = []string{sets(xs...)}
	case 3:
		// Duplicate sets: their groups come twice.
		q.GroupBy = []string{sets("("+list(items)+")", "("+list(items)+")", "()")}
	case 4:
		// A plain key beside a ROLLUP of the rest: the product.
		if len(items) > 1 {
			q.GroupBy = []string{items[0], "ROLLUP (" + list(items[1:]) + ")"}
		} else {
			q.GroupBy = []string{"ROLLUP (" + items[0] + "), ()"}
		}
	default:
		// Nested: a ROLLUP and a CUBE inside GROUPING SETS.
		q.GroupBy = []string{sets("ROLLUP ("+list(items)+")", "CUBE ("+items[len(items)-1]+")")}
	}
	// GROUPING() takes key expressions (not positions, and not a bare
	// constant, which is no grouping expression in PostgreSQL).
	var args []*Expr
	for _, k := range keys {
		if k.Op != "lit" && !hasLiteralOnly(k) {
			args = append(args, k)
		}
	}
	if len(args) > 0 && g.p(0.7) {
		n := g.between(1, len(args))
		call := &Expr{Op: "grouping", Type: TI32, Args: args[:n:n]}
		if n > 1 && g.p(0.3) {
			call.Args = []*Expr{args[n-1], args[0]} // an order of its own
		}
		q.Select = append(q.Select, call)
	}
}

// hasLiteralOnly: e reads no column (PostgreSQL may fold it to a constant,
// and GROUPING of a constant is not a grouping expression).
func hasLiteralOnly(e *Expr) bool { return !anyNode(e, func(x *Expr) bool { return x.Op == "col" }) }

// foldsConstant: e may be a constant after PostgreSQL's
// eval_const_expressions, which the drawn expressions reach in these ways:
// reading no column; coalesce whose first argument folds (a non-NULL
// constant ends the list); a CASE with a condition that folds (TRUE
// decides it); AND or OR with an operand that folds (FALSE or TRUE
// decides it); a strict call or operator with a NULL constant operand,
// or over operands that all fold.
// It errs towards yes: a key it calls constant only keeps the query
// from grouping sets.
func foldsConstant(e *Expr) bool {
	if hasLiteralOnly(e) {
		return true
	}
	switch e.Op {
	case "col":
		return false
	case "coalesce":
		return foldsConstant(e.Args[0])
	case "case":
		n := len(e.Args)
		if e.Text == "else" {
			n--
		}
		for i := 0; i+1 < n; i += 2 {
			if foldsConstant(e.Args[i]) {
				return true
			}
		}
		return false
	case "and", "or":
		return slices.ContainsFunc(e.Args, foldsConstant)
	case "nullif", "distinct", "notdistinct", "isnull", "isnotnull":
		return false // not strict: a NULL operand is a value
	}
	if len(e.Args) > 0 && !slices.ContainsFunc(e.Args, func(a *Expr) bool { return !foldsConstant(a) }) {
		return true // over arguments that all fold
	}
	return slices.ContainsFunc(e.Args, func(a *Expr) bool {
		return a.Op == "lit" && strings.HasPrefix(a.Text, "CAST(NULL ")
	})
}

// groupingSQL renders GROUPING(args...).
func groupingSQL(e *Expr) string {
	xs := make([]string, len(e.Args))
	for i, a := range e.Args {
		xs[i] = a.SQL()
	}
	return "GROUPING(" + strings.Join(xs, ", ") + ")"
}

// withFilter sometimes gives an aggregate call a FILTER (WHERE cond): the
// call's op becomes aggfilter (Text the function, DISTINCT in the call's
// Text prefix) with cond as its last argument.
func (g *Gen) withFilter(a *Expr, s scope) *Expr {
	if (a.Op != "agg" && a.Op != "aggdistinct") || !g.p(0.25) {
		return a
	}
	cond := g.expr(s, TBool, 2, false)
	text := a.Text
	if a.Op == "aggdistinct" {
		text = "DISTINCT " + a.Text
	}
	return &Expr{Op: "aggfilter", Type: a.Type, Text: text, Args: append(append([]*Expr{}, a.Args...), cond), Raises: a.Raises || cond.Raises}
}

// aggFilterSQL renders f([DISTINCT] arg) FILTER (WHERE cond), or
// count(*) FILTER (WHERE cond).
func aggFilterSQL(e *Expr) string {
	cond := e.Args[len(e.Args)-1].SQL()
	name, distinct, _ := strings.Cut(e.Text, " ")
	call := e.Text + "(*)"
	switch {
	case len(e.Args) == 2 && distinct != "":
		call = distinct + "(DISTINCT " + e.Args[0].SQL() + ")"
	case len(e.Args) == 2:
		call = name + "(" + e.Args[0].SQL() + ")"
	}
	return call + " FILTER (WHERE " + cond + ")"
}

// orderedSet draws percentile_cont(f), percentile_disc(f) or mode()
// WITHIN GROUP (ORDER BY x [DESC]) over s: op orderedset, Text the call's
// head ("percentile_disc(0.25)"), Args the value and, for DESC, Text
// carries " DESC" after a tab.
func (g *Gen) orderedSet(s scope) *Expr {
	frac := pick(g, []string{"0", "0.25", "0.5", "0.75", "1", "0.1"})
	dir := ""
	if g.p(0.4) {
		dir = " DESC"
	}
	switch g.n(3) {
	case 0:
		x := g.expr(s, pick(g, []Type{TInt, TI16, TI32, TFloat, TF32, TNumeric}), 1, false)
		return &Expr{Op: "orderedset", Type: TFloat, Text: "percentile_cont(" + frac + ")\t" + dir, Args: []*Expr{x}, Raises: x.Raises}
	case 1:
		t := g.typ()
		x := g.expr(s, t, 1, false)
		return &Expr{Op: "orderedset", Type: t, Text: "percentile_disc(" + frac + ")\t" + dir, Args: []*Expr{x}, Raises: x.Raises}
	default:
		t := g.typ()
		x := g.expr(s, t, 1, false)
		return &Expr{Op: "orderedset", Type: t, Text: "mode()\t" + dir, Args: []*Expr{x}, Raises: x.Raises}
	}
}

// orderedSetSQL renders an orderedset call.
func orderedSetSQL(e *Expr) string {
	head, dir, _ := strings.Cut(e.Text, "\t")
	return head + " WITHIN GROUP (ORDER BY " + e.Args[0].SQL() + dir + ")"
}
