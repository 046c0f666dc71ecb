package sql

import (
	"fmt"
	"math"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// RowCounter is what a Catalog may also offer: a table's live row count,
// which orders the joins of FROM a, b, c (ok false: unknown).
type RowCounter interface {
	TableRows(name string) (rows uint64, ok bool)
}

// FROM a, b, c WHERE ... is an inner join of the items, and a cross join
// of all of them with the WHERE on top is its meaning but a terrible plan
// (TPC-H Q2 would pair every part with every supplier). fromWhere builds
// a tree of joins instead (left-deep, but for the build-side arms below),
// each condition placed where its items meet:
//
//	conjuncts of WHERE (OR's common conjuncts factored out first)
//	   |-- one item:        a filter on that item, before any join
//	   |-- several items:   part of the condition of the join that
//	   |                    brings the last of them in (an OR also
//	   |                    filters each item all its branches
//	   |                    restrict: impliedFilter)
//	   |-- IN / [NOT] EXISTS over one item, not the probe item:
//	   |                    a semi (anti) join of that item, after its
//	   |                    filters, before any join (semipush.go)
//	   `-- none, a subquery, an outer reference: the WHERE left on top
//
// The order is greedy: the largest item (by its table's row count,
// quartered for each filter on it) is the probe side; then, while items
// remain, one joined to the tree by an equality with one item on each
// side (a hash join key) is added as the next build side; only when none
// is, one joined by another condition (a nested loop join), and only
// when none is that, an unconnected one (a cross join); an item brought
// in by an equality comes with the filtered items that hang off it alone,
// joined into its build side first (joinArm). Among those: the most selective
// (its filters keep the smallest fraction of its table, and a join on its
// key keeps that fraction of the probe rows), then the smallest. A
// projection puts the columns back in FROM order, so * and positions are
// unchanged. The rows are the same as the cross join's filtered by the
// WHERE: the conjuncts are the same, each evaluated over the items it
// names. (A ∧ B) ∨ (A ∧ C) = A ∧ (B ∨ C) holds in SQL's three-valued
// logic, so the factoring keeps each row's WHERE value.
func (l *lowerer) fromWhere(items []*pg_query.Node, where *pg_query.Node) (plan.Rel, *scope, *pg_query.Node, error) {
	if len(items) < 2 || where == nil {
		rel, sc, err := l.from(items)
		if err == nil && len(items) == 1 && where != nil {
			sc.from = &fromInfo{items: items, offs: []int{0}, full: &scope{cols: sc.cols}, where: andArgs(where)}
		}
		return rel, sc, where, err
	}
	type item struct {
		rel  plan.Rel
		sc   *scope
		off  int     // first column in the FROM-order scope
		base float64 // the table's rows
		est  float64 // after the filters pushed onto it
		used bool
		// restrict: a correlated subquery's restriction (restrict.go),
		// never the probe side: it filters the others.
		restrict bool
		filters  []expr.Expression // its WHERE conjuncts, pushed onto it
	}
	its := make([]*item, len(items))
	full := &scope{}
	for i, n := range items {
		rel, sc, err := l.fromItem(n)
		if err != nil {
			return nil, nil, nil, err
		}
		if i > 0 {
			if err := l.distinctQuals(full, sc); err != nil {
				return nil, nil, nil, err
			}
		}
		base := l.estimate(n)
		est := base
		b, e, restrict := l.restrictEstimate(n)
		if restrict {
			base, est = b, e
		}
		its[i] = &item{rel: rel, sc: sc, off: len(full.cols), base: base, est: est, restrict: restrict}
		full = &scope{cols: append(append([]column{}, full.cols...), sc.cols...)}
	}
	full.outer = l.outer
	// The WHERE's NULL arms are FALSE before it is split (quals.go).
	where, err := l.canonicalQual(where, full, "in WHERE")
	if err != nil {
		return nil, nil, nil, err
	}
	owner := func(col int) int {
		for i := len(its) - 1; i >= 0; i-- {
			if col >= its[i].off {
				return i
			}
		}
		return 0
	}
	// Sort the conjuncts by the items they name.
	var rest []*pg_query.Node
	type cond struct {
		n     *pg_query.Node
		items []int
		equi  bool // a = b, each side over one item: a hash join key
	}
	var conds []cond
	itemsOf := func(c *pg_query.Node) ([]int, bool) {
		refs, ok := l.itemRefs(c, full)
		if !ok || len(refs) == 0 {
			return nil, false
		}
		var set []int
		for _, col := range refs {
			if o := owner(col); !slices.Contains(set, o) {
				set = append(set, o)
			}
		}
		return set, true
	}
	// An item's conjuncts become one filter, their AND in WHERE order:
	// the AND evaluates each conjunct only on the rows the ones before it
	// left undecided (exec's short-circuit AND), so the next conjunct
	// reads only the rows the previous kept, as a filter per conjunct
	// did, without copying the kept rows between filters (a date range's
	// first half keeps most rows: TPC-H Q5's, Q10's, Q12's).
	push := func(i int, c *pg_query.Node) error {
		it := its[i]
		fs := *it.sc
		fs.noAggs = "in WHERE"
		v, err := l.expr(c, &fs)
		if err != nil {
			return err
		}
		e, err := l.coerce(v, kindBool)
		if err != nil {
			return err
		}
		it.filters = append(it.filters, e)
		it.est /= 4
		return nil
	}
	var sets []*pg_query.Node // [NOT] EXISTS / IN conjuncts: semipush.go
	for _, c := range factorOr(andArgs(where)) {
		if _, k := setSubLink(c); k != setNone {
			sets = append(sets, c)
			continue
		}
		set, ok := itemsOf(c)
		if !ok {
			rest = append(rest, c)
			continue
		}
		if len(set) == 1 {
			if err := push(set[0], c); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		// An OR over several items also filters each item every branch
		// restricts (Q7's nations); c stays, as the join's condition.
		for _, i := range set {
			if f := impliedFilter(c, i, itemsOf); f != nil {
				if err := push(i, f); err != nil {
					return nil, nil, nil, err
				}
			}
		}
		conds = append(conds, cond{n: c, items: set, equi: equiEdge(c, itemsOf)})
	}
	// The probe item: the largest, by the estimates of its filters.
	probe := func() int {
		first := -1
		for i, it := range its {
			if !it.restrict && (first < 0 || it.est > its[first].est) {
				first = i
			}
		}
		return first
	}
	// A set conjunct over one item other than the probe item is applied
	// to it, after its filters (semipush.go); the others stay on top.
	var pushes []setPush
	if len(sets) > 0 {
		rels, scs, restrict := make([]plan.Rel, len(its)), make([]*scope, len(its)), make([]bool, len(its))
		for i, it := range its {
			rels[i], scs[i], restrict[i] = it.rel, it.sc, it.restrict
		}
		first := probe()
		for _, c := range sets {
			if i := l.setItem(c, rels, scs, full, restrict, itemsOf); i >= 0 && i != first {
				sl, k := setSubLink(c)
				pushes = append(pushes, setPush{item: i, sl: sl, k: k})
				its[i].est /= 4
				continue
			}
			rest = append(rest, c)
		}
	}
	for _, it := range its {
		if len(it.filters) == 0 {
			continue
		}
		cond := it.filters[0]
		var err error
		if len(it.filters) > 1 {
			if cond, err = l.call(urnBoolean, "and", -1, it.filters...); err != nil {
				return nil, nil, nil, err
			}
		}
		if it.rel, err = l.b.Filter(it.rel, cond); err != nil {
			return nil, nil, nil, fmt.Errorf("%w: filter: %w", ErrInvalid, err)
		}
	}
	for _, p := range pushes {
		it := its[p.item]
		saved := l.outer
		l.outer = nil
		rel, err := l.setJoin(it.rel, &scope{cols: it.sc.cols}, p.sl, p.k)
		l.outer = saved
		if err != nil {
			return nil, nil, nil, err
		}
		it.rel = rel
	}
	// Greedy order.
	first := probe()
	placed := make([]bool, len(conds))
	// join joins two parts of the tree (lists of items, in column order)
	// on the conditions not yet placed that they now both cover.
	join := func(left plan.Rel, lItems []int, right plan.Rel, rItems []int) (plan.Rel, error) {
		items := append(append([]int{}, lItems...), rItems...)
		js := &scope{outer: l.outer, noAggs: "in WHERE"}
		for _, i := range items {
			js.cols = append(js.cols, its[i].sc.cols...)
		}
		var on []expr.Expression
		for k, cd := range conds {
			if placed[k] || slices.ContainsFunc(cd.items, func(i int) bool { return !slices.Contains(items, i) }) {
				continue
			}
			v, err := l.expr(cd.n, js)
			if err != nil {
				return nil, err
			}
			e, err := l.coerce(v, kindBool)
			if err != nil {
				return nil, err
			}
			on = append(on, e)
			placed[k] = true
		}
		var rel plan.Rel
		var err error
		switch len(on) {
		case 0:
			rel, err = l.b.Cross(left, right)
		case 1:
			rel, err = l.b.Join(left, right, on[0], plan.JoinTypeInner)
		default:
			var and expr.Expression
			if and, err = l.call(urnBoolean, "and", -1, on...); err == nil {
				rel, err = l.b.Join(left, right, and, plan.JoinTypeInner)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%w: join: %w", ErrInvalid, err)
		}
		return rel, nil
	}
	equi := func(i, j int) bool {
		return slices.ContainsFunc(conds, func(cd cond) bool {
			return cd.equi && slices.Contains(cd.items, i) && slices.Contains(cd.items, j)
		})
	}
	order := []int{first}
	its[first].used = true
	rel := its[first].rel
	// grow is item i's build side (joinArm): the unused items hanging
	// off it by an equality, and not joined to the tree by one, that
	// filter it (each kid's own arm).
	var grow func(i int, seen []int) *joinArm
	grow = func(i int, seen []int) *joinArm {
		a := &joinArm{item: i, sel: its[i].est / its[i].base}
		seen = append(seen, i)
		for j, it := range its {
			if it.used || slices.Contains(seen, j) || it.restrict || !equi(i, j) || slices.ContainsFunc(order, func(t int) bool { return equi(j, t) }) {
				continue
			}
			if k := grow(j, seen); k.sel < 1 {
				a.kids = append(a.kids, k)
				a.sel *= k.sel
				seen = append(seen, k.members()...)
			}
		}
		return a
	}
	var build func(a *joinArm) (plan.Rel, []int, error)
	build = func(a *joinArm) (plan.Rel, []int, error) {
		rel, items := its[a.item].rel, []int{a.item}
		for _, k := range a.kids {
			kr, ki, err := build(k)
			if err != nil {
				return nil, nil, err
			}
			if rel, err = join(rel, items, kr, ki); err != nil {
				return nil, nil, err
			}
			items = append(items, ki...)
		}
		return rel, items, nil
	}
	for len(order) < len(its) {
		var next *joinArm
		connected := 0
		for i, it := range its {
			if it.used {
				continue
			}
			c := 0 // 2: an equi-join edge to the tree, 1: another condition
			for k, cd := range conds {
				if !placed[k] && slices.Contains(cd.items, i) && slices.ContainsFunc(cd.items, func(t int) bool { return slices.Contains(order, t) }) {
					if cd.equi {
						c = 2
						break
					}
					c = 1
				}
			}
			a := &joinArm{item: i, sel: it.est / it.base}
			if c == 2 {
				a = grow(i, nil)
			}
			better := next == nil || c > connected
			if !better && c == connected {
				// The most selective first (a key join keeps the probe rows
				// its filters keep), then the smallest build side. By the
				// item's own filters, not its arm's: the estimates are a
				// quarter per filter, and an arm's product of them (Q8's
				// orders ⋈ customer ⋈ nation ⋈ region(AMERICA): 1/16) took
				// the orders before the far more selective part.
				best := its[next.item]
				sel, bestSel := it.est/it.base, best.est/best.base
				better = sel < bestSel || (sel == bestSel && it.est < best.est)
			}
			if better {
				next, connected = a, c
			}
		}
		r, items, err := build(next)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, i := range items {
			its[i].used = true
		}
		if rel, err = join(rel, order, r, items); err != nil {
			return nil, nil, nil, err
		}
		order = append(order, items...)
	}
	// Back to FROM order.
	if !slices.IsSorted(order) {
		pos := make([]int, len(its)) // item -> first column in join order
		at := 0
		for _, i := range order {
			pos[i] = at
			at += len(its[i].sc.cols)
		}
		remap := make([]int32, 0, len(full.cols))
		for i, it := range its {
			for c := range it.sc.cols {
				remap = append(remap, int32(pos[i]+c))
			}
		}
		var err error
		// A ProjectRel must compute something: a constant the remap drops.
		if rel, err = l.b.ProjectRemap(rel, remap, expr.NewPrimitiveLiteral(true, false)); err != nil {
			return nil, nil, nil, fmt.Errorf("%w: join order projection: %w", ErrInvalid, err)
		}
	}
	offs := make([]int, len(its))
	for i, it := range its {
		offs[i] = it.off
	}
	sc := &scope{cols: full.cols, outer: l.outer,
		from: &fromInfo{items: items, offs: offs, full: &scope{cols: full.cols}, where: andArgs(where)}}
	switch len(rest) {
	case 0:
		return rel, sc, nil, nil
	case 1:
		return rel, sc, rest[0], nil
	}
	and := &pg_query.BoolExpr{Boolop: pg_query.BoolExprType_AND_EXPR, Args: rest, Location: -1}
	return rel, sc, &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: and}}, nil
}

// estimate is a FROM item's row count: its table's, when the catalog
// counts rows; else a guess of 100,000.
func (l *lowerer) estimate(n *pg_query.Node) float64 {
	if rv := n.GetRangeVar(); rv != nil && rv.Schemaname == "" && rv.Catalogname == "" {
		if _, isCTE := l.cte(rv.Relname); !isCTE {
			if rc, ok := l.cat.(RowCounter); ok {
				if r, ok := rc.TableRows(rv.Relname); ok {
					return math.Max(float64(r), 1)
				}
			}
		}
	}
	return 100_000
}

// itemRefs resolves the column references of a conjunct in the FROM
// scope. ok is false when the conjunct holds a subquery or names
// something outside the FROM (an enclosing query's column), or a name
// does not resolve (the WHERE's own lowering reports it).
func (l *lowerer) itemRefs(n *pg_query.Node, full *scope) (cols []int, ok bool) {
	if containsSubLink(n) {
		return nil, false
	}
	ok = true
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if !ok {
			return
		}
		if cr, is := m.Interface().(*pg_query.ColumnRef); is {
			var i int
			if i, ok = l.refIndex(cr, full); ok {
				cols = append(cols, i)
			}
			return
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return ok })
	}
	walk(n.ProtoReflect())
	return cols, ok
}

// refIndex is the column of full a column reference names, here (not an
// outer query's); ok is false for a star or a name full does not hold.
func (l *lowerer) refIndex(cr *pg_query.ColumnRef, full *scope) (int, bool) {
	qual, name, star, err := l.refName(cr)
	if err != nil || star {
		return 0, false
	}
	i, err := l.lookupHere(full, qual, name, cr.Location)
	return i, err == nil
}

// factorOr rewrites each conjunct (A ∧ B) ∨ (A ∧ C) as A, (B ∨ C): the
// conjuncts every disjunct shares (compared without source positions)
// come out of the OR, so a join condition written into each branch
// (TPC-H Q19) becomes a join key. An OR with a branch left empty is
// true and dropped.
func factorOr(conjuncts []*pg_query.Node) []*pg_query.Node {
	var out []*pg_query.Node
	for _, c := range conjuncts {
		b := c.GetBoolExpr()
		if b == nil || b.Boolop != pg_query.BoolExprType_OR_EXPR || len(b.Args) < 2 {
			out = append(out, c)
			continue
		}
		branches := make([][]*pg_query.Node, len(b.Args))
		keys := make([][]string, len(b.Args))
		for i, a := range b.Args {
			branches[i] = andArgs(a)
			for _, x := range branches[i] {
				keys[i] = append(keys[i], canonical(x))
			}
		}
		var common []int // indices into branch 0
		for j, k := range keys[0] {
			all := true
			for _, ks := range keys[1:] {
				if !slices.Contains(ks, k) {
					all = false
					break
				}
			}
			if all && !slices.ContainsFunc(common, func(p int) bool { return keys[0][p] == k }) {
				common = append(common, j)
			}
		}
		if len(common) == 0 {
			out = append(out, c)
			continue
		}
		shared := map[string]bool{}
		for _, j := range common {
			out = append(out, branches[0][j])
			shared[keys[0][j]] = true
		}
		var ors []*pg_query.Node
		empty := false
		for i, br := range branches {
			var left []*pg_query.Node
			for j, x := range br {
				if !shared[keys[i][j]] {
					left = append(left, x)
				}
			}
			switch len(left) {
			case 0:
				empty = true
			case 1:
				ors = append(ors, left[0])
			default:
				ors = append(ors, &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: &pg_query.BoolExpr{
					Boolop: pg_query.BoolExprType_AND_EXPR, Args: left, Location: -1}}})
			}
		}
		if !empty {
			out = append(out, &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: &pg_query.BoolExpr{
				Boolop: pg_query.BoolExprType_OR_EXPR, Args: ors, Location: b.Location}}})
		}
	}
	return out
}

// canonical is a node's identity without its source positions.
func canonical(n *pg_query.Node) string {
	c := proto.Clone(n).(*pg_query.Node)
	var clear func(m protoreflect.Message)
	clear = func(m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Name() == "location" && fd.Kind() == protoreflect.Int32Kind:
				m.Clear(fd)
			case fd.Kind() != protoreflect.MessageKind:
			case fd.IsList():
				for i := range v.List().Len() {
					clear(v.List().Get(i).Message())
				}
			case fd.IsMap():
			default:
				clear(v.Message())
			}
			return true
		})
	}
	clear(c.ProtoReflect())
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(c)
	return string(b)
}

// impliedFilter is the filter on item i that an OR conjunct over several
// items implies: the OR of each branch's conjuncts on i alone, or nil when
// some branch has none (then any row of i may satisfy that branch). From
//
//	(n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR
//	(n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE')
//
// it derives n1.n_name = 'FRANCE' OR n1.n_name = 'GERMANY' for n1. Where
// the OR is true some branch is true, so all that branch's conjuncts are,
// so the derived filter is true too: it only removes rows of i that the
// OR would reject, and the OR itself is kept, so the WHERE keeps exactly
// the rows it kept before.
func impliedFilter(c *pg_query.Node, i int, items func(*pg_query.Node) ([]int, bool)) *pg_query.Node {
	b := c.GetBoolExpr()
	if b == nil || b.Boolop != pg_query.BoolExprType_OR_EXPR {
		return nil
	}
	var ors []*pg_query.Node
	for _, br := range b.Args {
		var own []*pg_query.Node
		for _, x := range andArgs(br) {
			if set, ok := items(x); ok && len(set) == 1 && set[0] == i {
				own = append(own, proto.Clone(x).(*pg_query.Node))
			}
		}
		switch len(own) {
		case 0:
			return nil
		case 1:
			ors = append(ors, own[0])
		default:
			ors = append(ors, &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: &pg_query.BoolExpr{
				Boolop: pg_query.BoolExprType_AND_EXPR, Args: own, Location: -1}}})
		}
	}
	return &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: &pg_query.BoolExpr{
		Boolop: pg_query.BoolExprType_OR_EXPR, Args: ors, Location: b.Location}}}
}

// equiEdge reports whether c is a = b with each side over a single item,
// the two different: a hash join key between them.
func equiEdge(c *pg_query.Node, items func(*pg_query.Node) ([]int, bool)) bool {
	ae := c.GetAExpr()
	if ae == nil || ae.Kind != pg_query.A_Expr_Kind_AEXPR_OP || len(ae.Name) != 1 || ae.Name[0].GetString_().GetSval() != "=" {
		return false
	}
	ls, lok := items(ae.Lexpr)
	rs, rok := items(ae.Rexpr)
	return lok && rok && len(ls) == 1 && len(rs) == 1 && ls[0] != rs[0]
}

// joinArm is an item's build side in fromWhere's order: the item, joined
// first with the filtered items that hang off it alone by equalities
// (TPC-H Q11: supplier ⋈ (nation WHERE n_name = 'GERMANY') is built
// before partsupp probes it, instead of partsupp ⋈ supplier, all 800K
// rows, then ⋈ nation), so the tree's join keeps fewer rows sooner.
type joinArm struct {
	item int
	kids []*joinArm
	sel  float64 // the fraction of the item's rows it and its kids keep (estimated)
}

// members are the arm's items in column order: the item, then each
// kid's.
func (a *joinArm) members() []int {
	out := []int{a.item}
	for _, k := range a.kids {
		out = append(out, k.members()...)
	}
	return out
}
