package difftest

// Subqueries three levels deep (issue 28: correlated subqueries at any
// depth), whose innermost query reads the first level's row, with or
// without the second's:
//
//	[NOT] EXISTS (SELECT 1 FROM t AS d1 WHERE [d1.x op a.y AND]
//	  EXISTS (SELECT 1 FROM u AS d2 WHERE [d2.x op d1.y AND]
//	    <inner> (SELECT ... FROM w AS d3 WHERE d3.x op a.y [AND d3.z op d1.w])))
//
// <inner> an EXISTS, NOT EXISTS, IN or a count compared with a constant.
// plan/optimize unnests them level by level (decorrelate_general.go:
// a window an inner unnesting made is partitioned by every farther
// domain; a level reading no column one level out has an empty domain).
// A nearer level may correlate by = or by an inequality; nothing raises.

// deepSubquery draws one such boolean value over the outer scope (nil
// when no column pair of one type links the levels).
func (g *Gen) deepSubquery(ts []*Table, outer scope) *Expr {
	t1, t2, t3 := pick(g, ts), pick(g, ts), pick(g, ts)
	s1, s2, s3 := tableScope(t1, "d1"), tableScope(t2, "d2"), tableScope(t3, "d3")
	ops := []string{"=", "=", "<", ">", "<>", "<=", ">="}
	corr := func(in, out scope) *Expr {
		for try := 0; try < 6; try++ {
			typ := g.typ()
			ic, oc := in.ofType(typ), out.ofType(typ)
			if len(ic) == 0 || len(oc) == 0 {
				continue
			}
			return &Expr{Op: "cmp", Type: TBool, Text: pick(g, ops), Args: []*Expr{
				{Op: "col", Type: typ, Text: pick(g, ic).name}, {Op: "col", Type: typ, Text: pick(g, oc).name}}}
		}
		return nil
	}
	and := func(a, b *Expr) *Expr {
		switch {
		case a == nil:
			return b
		case b == nil:
			return a
		}
		return &Expr{Op: "and", Type: TBool, Args: []*Expr{a, b}}
	}
	// The innermost level reads the first level's row (outer), and
	// maybe the second's (s1).
	w3 := corr(s3, outer)
	if w3 == nil {
		return nil
	}
	if g.p(0.5) {
		w3 = and(w3, corr(s3, s1))
	}
	if g.p(0.3) {
		w3 = and(w3, g.expr(s3, TBool, 1, true))
	}
	sub3 := &Sub{Table: t3.Name, Alias: "d3", Where: w3}
	var inner *Expr
	switch g.n(4) {
	case 0:
		inner = &Expr{Op: "exists", Type: TBool, Sub: sub3}
	case 1:
		inner = &Expr{Op: "notexists", Type: TBool, Sub: sub3}
	case 2:
		typ := g.typ()
		oc := s2.ofType(typ)
		if len(oc) == 0 {
			oc = s1.ofType(typ)
		}
		if len(oc) == 0 {
			inner = &Expr{Op: "exists", Type: TBool, Sub: sub3}
			break
		}
		sub3.Item = g.leaf(s3, typ)
		inner = &Expr{Op: pick(g, []string{"insub", "notinsub"}), Type: TBool, Args: []*Expr{{Op: "col", Type: typ, Text: pick(g, oc).name}}, Sub: sub3}
	default:
		sub3.Item = &Expr{Op: "agg", Type: TInt, Text: "count"}
		inner = &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{">", "=", "<"}), Args: []*Expr{
			{Op: "scalar", Type: TInt, Sub: sub3}, {Op: "lit", Type: TInt, Text: pick(g, []string{"0", "1", "2"})}}}
	}
	var w2 *Expr
	if g.p(0.6) {
		w2 = corr(s2, s1)
	}
	sub2 := &Sub{Table: t2.Name, Alias: "d2", Where: and(w2, inner)}
	var w1 *Expr
	if g.p(0.5) {
		w1 = corr(s1, outer)
	}
	sub1 := &Sub{Table: t1.Name, Alias: "d1", Where: and(w1, &Expr{Op: "exists", Type: TBool, Sub: sub2})}
	switch g.n(3) {
	case 0:
		return &Expr{Op: "notexists", Type: TBool, Sub: sub1}
	case 1:
		sub1.Item = &Expr{Op: "agg", Type: TInt, Text: "count"}
		return &Expr{Op: "cmp", Type: TBool, Text: pick(g, []string{">", "=", "<"}), Args: []*Expr{
			{Op: "scalar", Type: TInt, Sub: sub1}, {Op: "lit", Type: TInt, Text: pick(g, []string{"0", "1", "3"})}}}
	}
	return &Expr{Op: "exists", Type: TBool, Sub: sub1}
}
