package plan

import (
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/plan/ingest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan/optimize"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// conjuncts splits an AND tree.
func conjuncts(e expr.Expression) []expr.Expression {
	if e == nil {
		return nil
	}
	if f, ok := e.(*expr.ScalarFunction); ok && funcName(f) == "and" {
		var out []expr.Expression
		for i := 0; i < f.NArgs(); i++ {
			a, ok := f.Arg(i).(expr.Expression)
			if !ok {
				return []expr.Expression{e}
			}
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	if isTrue(e) {
		return nil // ON TRUE
	}
	return []expr.Expression{e}
}

// isTrue reports whether e is the literal true (substrait-go's builder sets
// it as every join's post-join filter).
func isTrue(e expr.Expression) bool {
	l, ok := e.(expr.Literal)
	if !ok {
		return false
	}
	b, ok := l.ToProtoLiteral().GetLiteralType().(*substraitpb.Expression_Literal_Boolean)
	return ok && b.Boolean
}

// postFilter is the join's post-join filter, nil when there is none.
func postFilter(j *splan.JoinRel) expr.Expression {
	if f := j.PostJoinFilter(); f != nil && !isTrue(f) {
		return f
	}
	return nil
}

// side says which join inputs an expression references.
type side int

const (
	sideNone side = iota
	sideLeft
	sideRight
	sideBoth
)

func sideOf(e expr.Expression, nl int) (side, error) {
	s := sideNone
	err := refs(e, func(i int) error {
		t := sideLeft
		if i >= nl {
			t = sideRight
		}
		if s == sideNone {
			s = t
		} else if s != t {
			s = sideBoth
		}
		return nil
	})
	return s, err
}

// keyPair is one equality conjunct between the inputs. nullEq: it is
// IS NOT DISTINCT FROM (orig), under which two NULLs are equal
// (nulleqkey.go).
type keyPair struct {
	l, r   expr.Expression
	nullEq bool
	orig   expr.Expression
}

// equiKey reports whether e is equal(left expr, right expr) in either order.
func equiKey(e expr.Expression, nl int) (keyPair, bool, error) {
	l, r, ok, err := crossArgs(e, "equal", nl)
	return keyPair{l: l, r: r}, ok, err
}

// crossArgs reports whether e is a call of the two-argument function name
// with one argument over each input, and returns them, the left input's
// first.
func crossArgs(e expr.Expression, name string, nl int) (l, r expr.Expression, ok bool, err error) {
	f, isCall := e.(*expr.ScalarFunction)
	if !isCall || funcName(f) != name || f.NArgs() != 2 {
		return nil, nil, false, nil
	}
	args, err := exprArgs(name, 2, f.Arg)
	if err != nil {
		return nil, nil, false, err
	}
	a, err := sideOf(args[0], nl)
	if err != nil {
		return nil, nil, false, err
	}
	b, err := sideOf(args[1], nl)
	if err != nil {
		return nil, nil, false, err
	}
	switch {
	case a == sideLeft && b == sideRight:
		return args[0], args[1], true, nil
	case a == sideRight && b == sideLeft:
		return args[1], args[0], true, nil
	}
	return nil, nil, false, nil
}

// joinParts is a join condition split for planning.
type joinParts struct {
	keys                []keyPair
	leftOnly, rightOnly []expr.Expression
	residual            []expr.Expression // reference both sides, not an equi key
	// subplan: the join stands for a sublink PostgreSQL keeps as a SubPlan
	// filter over the left input (optimize.IsSubPlanJoin): built with the
	// left as its streamed outer, it has that input's pathkeys
	// (ordering.go, subplans).
	subplan bool
}

func splitJoin(j *splan.JoinRel, nl int) (joinParts, error) {
	var jp joinParts
	for _, c := range conjuncts(j.Expr()) {
		k, ok, err := equiKey(c, nl)
		if err != nil {
			return jp, err
		}
		if !ok {
			if k, ok, err = nullEqKey(c, nl); err != nil {
				return jp, err
			}
		}
		if ok {
			jp.keys = append(jp.keys, k)
			continue
		}
		s, err := sideOf(c, nl)
		if err != nil {
			return jp, err
		}
		switch s {
		case sideLeft:
			jp.leftOnly = append(jp.leftOnly, c)
		case sideRight:
			jp.rightOnly = append(jp.rightOnly, c)
		default: // both sides, or a constant
			jp.residual = append(jp.residual, c)
		}
	}
	return jp, nil
}

// joinTypes maps Substrait's join types to exec's. Right semi/anti/single
// and mark joins have no operator (a producer can swap the inputs).
var joinTypes = map[splan.JoinType]exec.JoinType{
	splan.JoinTypeInner:      exec.JoinInner,
	splan.JoinTypeLeft:       exec.JoinLeft,
	splan.JoinTypeRight:      exec.JoinRight,
	splan.JoinTypeOuter:      exec.JoinFull,
	splan.JoinTypeLeftSemi:   exec.JoinSemi,
	splan.JoinTypeLeftAnti:   exec.JoinAnti,
	splan.JoinTypeLeftSingle: exec.JoinSingle,
}

// joinWidth is a JoinRel's width before its emit mapping: semi and anti
// joins emit the left input only.
func (p *planner) joinWidth(j *splan.JoinRel) (int, error) {
	l, err := p.width(j.Left())
	if err != nil {
		return 0, err
	}
	if t := j.Type(); t == splan.JoinTypeLeftSemi || t == splan.JoinTypeLeftAnti {
		return l, nil
	}
	rw, err := p.width(j.Right())
	return l + rw, err
}

// join plans a JoinRel: the take rule when it applies, else a hash join
// on the equalities between the inputs (right side built, or the left one
// when it is much smaller: buildside.go), else a nested
// loop join. The rest of the condition goes where it keeps the join's
// meaning: a conjunct on one input filters that input when the join never
// NULL-extends nor keeps unmatched rows of it (INNER: both; LEFT, SEMI,
// ANTI, SINGLE: the right; RIGHT: the left); every other conjunct is the
// join's residual predicate, tested on each candidate pair.
func (p *planner) join(j *splan.JoinRel, need []bool, h hint) (*rel, error) {
	if ingest.IsMarkJoin(j.GetAdvancedExtension()) {
		return p.markJoin(j, need)
	}
	if fn, ok := expandJoin(j); ok {
		return p.expand(j, fn, need) // expand.go
	}
	typ, ok := joinTypes[j.Type()]
	if !ok {
		return nil, fmt.Errorf("%w: %s", errUnsupported("join type"), j.Type())
	}
	nl, err := p.width(j.Left())
	if err != nil {
		return nil, err
	}
	nr, err := p.width(j.Right())
	if err != nil {
		return nil, err
	}
	// Name an unknown function before judging the condition's shape.
	if err := checkFuncs(j.Expr()); err != nil {
		return nil, err
	}
	jp, err := splitJoin(j, nl)
	if err != nil {
		return nil, err
	}
	if !p.opt.DisableIndexes && !h.noTake && (typ == exec.JoinInner || typ == exec.JoinLeft) {
		if r, ok, err := p.take(j, jp, nl, nr, need); err != nil || ok {
			return r, err
		}
	}
	if typ == exec.JoinAnti {
		if k, ok, err := notInKey(jp, nl); err != nil {
			return nil, err
		} else if ok {
			// NOT IN's condition alone: the NULL-aware hash anti join.
			typ, jp = exec.JoinAntiNullAware, joinParts{keys: []keyPair{k}}
		}
	}
	jp.subplan = optimize.IsSubPlanJoin(j.GetAdvancedExtension())
	return p.joinParts(j.Left(), j.Right(), nl, nr, typ, jp, postFilter(j), need)
}

// cross plans a CrossRel: a nested loop join with no condition.
func (p *planner) cross(c *splan.CrossRel, need []bool) (*rel, error) {
	nl, err := p.width(c.Left())
	if err != nil {
		return nil, err
	}
	nr, err := p.width(c.Right())
	if err != nil {
		return nil, err
	}
	return p.joinParts(c.Left(), c.Right(), nl, nr, exec.JoinInner, joinParts{}, nil, need)
}

// notInKey recognizes the condition SQL lowers x NOT IN (subquery) to,
// or(equal(x, y), is_null(x), is_null(y)) with x on the left and y on the
// right, as the only conjunct of an anti join.
func notInKey(jp joinParts, nl int) (keyPair, bool, error) {
	if len(jp.keys)+len(jp.leftOnly)+len(jp.rightOnly) != 0 || len(jp.residual) != 1 {
		return keyPair{}, false, nil
	}
	f, ok := jp.residual[0].(*expr.ScalarFunction)
	if !ok || funcName(f) != "or" || f.NArgs() != 3 {
		return keyPair{}, false, nil
	}
	args, err := exprArgs("or", 3, f.Arg)
	if err != nil {
		return keyPair{}, false, err
	}
	k, ok, err := equiKey(args[0], nl)
	if err != nil || !ok {
		return keyPair{}, false, err
	}
	for i, want := range []expr.Expression{k.l, k.r} {
		g, ok := args[i+1].(*expr.ScalarFunction)
		if !ok || funcName(g) != "is_null" || g.NArgs() != 1 {
			return keyPair{}, false, nil
		}
		a, ok := g.Arg(0).(expr.Expression)
		if !ok || !a.Equals(want) {
			return keyPair{}, false, nil
		}
	}
	return k, true, nil
}

// joinParts plans a join of left and right whose condition is split in jp.
func (p *planner) joinParts(l, r splan.Rel, nl, nr int, typ exec.JoinType, jp joinParts, post expr.Expression, need []bool) (*rel, error) {
	filterLeft := typ == exec.JoinInner || typ == exec.JoinRight
	filterRight := typ == exec.JoinInner || typ == exec.JoinLeft || typ == exec.JoinSemi || typ == exec.JoinAnti || typ == exec.JoinSingle
	var onLeft, onRight, residual []expr.Expression
	if filterLeft {
		onLeft = jp.leftOnly
	} else {
		residual = append(residual, jp.leftOnly...)
	}
	if filterRight {
		onRight = jp.rightOnly
	} else {
		residual = append(residual, jp.rightOnly...)
	}
	residual = append(residual, jp.residual...)
	all := append([]expr.Expression{post}, jp.leftOnly...)
	all = append(all, jp.rightOnly...)
	all = append(all, jp.residual...)
	for _, k := range jp.keys {
		all = append(all, k.l, k.r)
	}
	jneed, err := inputNeed(nl+nr, need, all...)
	if err != nil {
		return nil, err
	}
	left, err := p.compile(l, jneed[:nl], hint{})
	if err != nil {
		return nil, err
	}
	right, err := p.compile(r, jneed[nl:], hint{})
	if err != nil {
		return nil, err
	}
	for _, c := range onRight {
		if right, err = p.filterIn(right, shifted{r: right, off: nl}, c); err != nil {
			return nil, err
		}
	}
	for _, c := range onLeft {
		if left, err = p.applyFilter(left, c); err != nil {
			return nil, err
		}
	}
	rsc := shifted{r: right, off: nl}
	var lkeys, rkeys []physexpr.Expr
	for _, k := range jp.keys {
		l, err := p.expr(k.l, left)
		if err != nil {
			return nil, err
		}
		r, err := p.expr(k.r, rsc)
		if err != nil {
			return nil, err
		}
		lt, err := typeOf(l, left)
		if err != nil {
			return nil, err
		}
		rt, err := typeOf(r, rsc)
		if err != nil {
			return nil, err
		}
		// Convert the left (driving) key to the right key's type; if that
		// loses meaning, convert the right one instead.
		if l2, err := keyCast(l, lt, rt); err == nil {
			l = l2
		} else if r2, err2 := keyCast(r, rt, lt); err2 == nil {
			r = r2
		} else {
			return nil, err
		}
		if !k.nullEq {
			lkeys, rkeys = append(lkeys, l), append(rkeys, r)
			continue
		}
		ls, rs, ok := nullEqKeys(l, r, rt)
		if !ok { // no hash key for the type: the condition tests the pairs
			residual = append(residual, k.orig)
			continue
		}
		lkeys, rkeys = append(lkeys, ls...), append(rkeys, rs...)
	}
	lnode, li, err := keyColumns(p.extended, left.node, lkeys)
	if err != nil {
		return nil, err
	}
	rnode, ri, err := keyColumns(p.extended, right.node, rkeys)
	if err != nil {
		return nil, err
	}
	lw := lnode.Schema().NumFields()
	pair := pairScope{cols: joined(nil, left, right, lw).cols, sc: pairSchema(lnode, rnode)}
	// A hash join may build its left input instead (buildside.go); a nested
	// loop join's cost is |left| × |right| either way.
	// Not when the left input comes ordered (a sort's pathkeys, or its
	// order replayed through a shared run, which a LEFT, semi or anti
	// join keeps by streaming it): the swapped join emits it built,
	// unmatched rows last, and the order may be the query's own (ORDER
	// BY on a key the select list does not output sorts under the select
	// list, whose scalar subquery is this join: difftest seed 20261235
	// case 136872, seed 20261236 case 56802 through a shared run).
	etyp, swap := typ, false
	if len(lkeys) > 0 && len(p.pathkeys(left.node)) == 0 && len(left.node.Properties().Ordering) == 0 {
		etyp, swap = p.buildLeft(l, r, typ)
	}
	if swap {
		pair = swappedPair(left, right, lnode, rnode)
	}
	var cond physexpr.Expr
	for _, c := range residual {
		e, err := p.expr(c, pair)
		if err != nil {
			return nil, err
		}
		if cond == nil {
			cond = e
		} else {
			cond = physexpr.Binary{Op: physexpr.OpAnd, L: cond, R: e}
		}
	}
	var node exec.Node
	switch {
	case swap:
		node, err = exec.NewHashJoinExecResidual(rnode, lnode, ri, li, etyp, cond)
	case len(lkeys) > 0:
		node, err = exec.NewHashJoinExecResidual(lnode, rnode, li, ri, typ, cond)
	default:
		node, err = exec.NewNestedLoopJoinExec(lnode, rnode, typ, cond)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: join: %w", ErrInvalidPlan, err)
	}
	if jp.subplan && !swap && keepsOuterOrder(typ) {
		if h, ok := node.(*exec.HashJoinExec); ok {
			h.KeepOuterOrder() // the pathkeys below rely on it: it must not spill
		}
		p.subplans[node] = lnode
		p.perOuterRow[node] = typ == exec.JoinLeft || typ == exec.JoinSingle || typ == exec.JoinMark
	}
	var out *rel
	switch {
	case typ == exec.JoinMark:
		out = markedRel(node, left, nr, lw)
	case typ == exec.JoinSemi || typ == exec.JoinAnti || typ == exec.JoinAntiNullAware:
		// The left columns, whichever side the join built.
		out = &rel{node: node, cols: left.cols, names: left.names}
	case swap: // a LEFT join built on its left: right columns first
		out = &rel{node: node, cols: swappedCols(left, right, rnode.Schema().NumFields()),
			names: append(append([]string{}, left.names...), right.names...)}
	default:
		out = joined(node, left, right, lw)
	}
	if post != nil {
		if out, err = p.applyFilter(out, post); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pairScope resolves a residual predicate's join fields to the columns of
// a candidate pair: the left node's, then the right node's.
type pairScope struct {
	cols []int
	sc   *arrow.Schema
}

func (s pairScope) schema() *arrow.Schema { return s.sc }
func (s pairScope) field(i int) (physexpr.Col, error) {
	if i < 0 || i >= len(s.cols) {
		return physexpr.Col{}, fmt.Errorf("%w: field reference %d out of range (%d fields)", ErrInvalidPlan, i, len(s.cols))
	}
	c := s.cols[i]
	if c < 0 || c >= s.sc.NumFields() {
		return physexpr.Col{}, fmt.Errorf("%w: field %d was pruned (planner bug)", ErrInvalidPlan, i)
	}
	return physexpr.Col{Index: c, Name: s.sc.Field(c).Name}, nil
}

func pairSchema(l, r exec.Node) *arrow.Schema {
	return arrow.NewSchema(append(append([]arrow.Field{}, l.Schema().Fields()...), r.Schema().Fields()...), nil)
}

// joined maps a join's fields (left ++ right) onto node, whose columns are
// the left node's (width lw) followed by the right node's.
func joined(node exec.Node, left, right *rel, lw int) *rel {
	out := &rel{node: node, cols: make([]int, 0, len(left.cols)+len(right.cols))}
	out.cols = append(out.cols, left.cols...)
	for _, c := range right.cols {
		if c >= 0 {
			c += lw
		}
		out.cols = append(out.cols, c)
	}
	out.names = append(append([]string{}, left.names...), right.names...)
	return out
}

// keyColumns returns node with every key that is not a plain column added
// as a computed column, and the key columns' indices.
func keyColumns(extended map[exec.Node]extension, node exec.Node, keys []physexpr.Expr) (exec.Node, []int, error) {
	idx := make([]int, len(keys))
	var extras []physexpr.Expr
	var names []string
	var at []int
	for i, k := range keys {
		if c, ok := k.(physexpr.Col); ok {
			idx[i] = c.Index
			continue
		}
		extras = append(extras, k)
		names = append(names, fmt.Sprintf("key%d", i))
		at = append(at, i)
	}
	if len(extras) == 0 {
		return node, idx, nil
	}
	node, ex, err := withExtra(extended, node, extras, names)
	if err != nil {
		return nil, nil, err
	}
	for k, i := range at {
		idx[i] = ex[k]
	}
	return node, idx, nil
}
