package plan

import (
	"fmt"

	"github.com/stablerow/stablerow/exec"
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

// keyPair is one equality conjunct between the inputs.
type keyPair struct{ l, r expr.Expression }

// equiKey reports whether e is equal(left expr, right expr) in either order.
func equiKey(e expr.Expression, nl int) (keyPair, bool, error) {
	f, ok := e.(*expr.ScalarFunction)
	if !ok || funcName(f) != "equal" || f.NArgs() != 2 {
		return keyPair{}, false, nil
	}
	args, err := exprArgs("equal", 2, f.Arg)
	if err != nil {
		return keyPair{}, false, err
	}
	a, err := sideOf(args[0], nl)
	if err != nil {
		return keyPair{}, false, err
	}
	b, err := sideOf(args[1], nl)
	if err != nil {
		return keyPair{}, false, err
	}
	switch {
	case a == sideLeft && b == sideRight:
		return keyPair{args[0], args[1]}, true, nil
	case a == sideRight && b == sideLeft:
		return keyPair{args[1], args[0]}, true, nil
	}
	return keyPair{}, false, nil
}

// joinParts is a join condition split for planning.
type joinParts struct {
	keys                []keyPair
	leftOnly, rightOnly []expr.Expression
	residual            []expr.Expression // reference both sides, not an equi key
}

func splitJoin(j *splan.JoinRel, nl int) (joinParts, error) {
	var jp joinParts
	for _, c := range conjuncts(j.Expr()) {
		k, ok, err := equiKey(c, nl)
		if err != nil {
			return jp, err
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

// join plans an INNER or LEFT equi-join: the take rule when it applies,
// else a hash join (right side built), with the rest of the condition as
// filters: for INNER, single-side conjuncts filter their input and the rest
// filters the joined rows; for LEFT, conjuncts on the right input filter it
// before the join (that keeps LEFT semantics), anything else is unsupported.
func (p *planner) join(j *splan.JoinRel, need []bool, h hint) (*rel, error) {
	var typ exec.JoinType
	switch j.Type() {
	case splan.JoinTypeInner:
		typ = exec.JoinInner
	case splan.JoinTypeLeft:
		typ = exec.JoinLeft
	default:
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
	if !p.opt.DisableIndexes && !h.noTake {
		if r, ok, err := p.take(j, jp, nl, nr, need, typ == exec.JoinInner); err != nil || ok {
			return r, err
		}
	}
	if len(jp.keys) == 0 {
		return nil, fmt.Errorf("%w: join without an equality between its inputs", ErrUnsupported)
	}
	if typ == exec.JoinLeft && (len(jp.leftOnly) > 0 || len(jp.residual) > 0) {
		return nil, fmt.Errorf("%w: LEFT JOIN condition other than equalities and right-side filters", ErrUnsupported)
	}
	all := []expr.Expression{postFilter(j)}
	all = append(all, jp.leftOnly...)
	all = append(all, jp.rightOnly...)
	all = append(all, jp.residual...)
	for _, k := range jp.keys {
		all = append(all, k.l, k.r)
	}
	jneed, err := inputNeed(nl+nr, need, all...)
	if err != nil {
		return nil, err
	}
	left, err := p.compile(j.Left(), jneed[:nl], hint{})
	if err != nil {
		return nil, err
	}
	right, err := p.compile(j.Right(), jneed[nl:], hint{})
	if err != nil {
		return nil, err
	}
	for _, c := range jp.rightOnly {
		if right, err = p.filterIn(right, shifted{r: right, off: nl}, c); err != nil {
			return nil, err
		}
	}
	for _, c := range jp.leftOnly { // INNER only
		if left, err = p.applyFilter(left, c); err != nil {
			return nil, err
		}
	}
	rsc := shifted{r: right, off: nl}
	lkeys, rkeys := make([]exec.Expr, len(jp.keys)), make([]exec.Expr, len(jp.keys))
	for i, k := range jp.keys {
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
		lkeys[i], rkeys[i] = l, r
	}
	lnode, li, err := keyColumns(p.extended, left.node, lkeys)
	if err != nil {
		return nil, err
	}
	rnode, ri, err := keyColumns(p.extended, right.node, rkeys)
	if err != nil {
		return nil, err
	}
	hj, err := exec.NewHashJoinExec(lnode, rnode, li, ri, typ)
	if err != nil {
		return nil, fmt.Errorf("%w: join: %w", ErrInvalidPlan, err)
	}
	out := joined(hj, left, right, lnode.Schema().NumFields())
	for _, c := range jp.residual {
		if out, err = p.applyFilter(out, c); err != nil {
			return nil, err
		}
	}
	if f := postFilter(j); f != nil {
		if out, err = p.applyFilter(out, f); err != nil {
			return nil, err
		}
	}
	return out, nil
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
func keyColumns(extended map[exec.Node]extension, node exec.Node, keys []exec.Expr) (exec.Node, []int, error) {
	idx := make([]int, len(keys))
	var extras []exec.Expr
	var names []string
	var at []int
	for i, k := range keys {
		if c, ok := k.(exec.Col); ok {
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
