package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"google.golang.org/protobuf/proto"
)

// A qual (WHERE, HAVING, JOIN ON) is simplified the way PostgreSQL's
// planner does it, in one place, canonicalQual, before it is split into
// conjuncts and lowered: eval_const_expressions folds each arm (the
// lowering's folding, constfold.go), then canonicalize_qual (prepqual.c,
// find_duplicate_ors with is_check=false) treats a constant NULL like
// FALSE, since a qual keeps a row only where it is TRUE:
//
//	AND: a FALSE or NULL arm makes the whole AND constant FALSE;
//	     TRUE arms drop
//	OR:  FALSE and NULL arms drop; a TRUE arm makes it TRUE; an OR
//	     with no arm left is FALSE
//
// recursing through nested AND/OR, and through NOT over them, which
// eval_const_expressions has pushed down (negate_clause), not through any
// other call.
// The other arms of an AND made FALSE are then never evaluated, so
// x / 0 > 1 AND CAST(NULL AS BOOLEAN) keeps no row and divides nothing,
// and a constant FALSE qual gates its input (plan/filter.go: the
// Result with One-Time Filter: false that PostgreSQL plans).
//
// A CHECK-like context (is_check=true: NULL counts as TRUE) is not a
// qual and does not come here.

// qualKind is what an arm folds to.
type qualKind int

const (
	qualVaries qualKind = iota // not a constant
	qualTrue
	qualFalse
	qualNull
)

// canonicalQual is the qual n over scope sc with canonicalize_qual's
// rules applied to its folded arms. n is returned as it is unless they
// change it. Before an arm is dropped, what PostgreSQL would have raised
// analysing its subqueries (analyzeDropped) or folding it raises
// (raiseDropped).
// The arms of an AND made FALSE that hold a subquery stay beside the
// FALSE: whereSubqueries plans (or drops) them as PostgreSQL does.
func (l *lowerer) canonicalQual(n *pg_query.Node, sc *scope, ctx string) (*pg_query.Node, error) {
	if n == nil {
		return nil, nil
	}
	c := qualCanon{l: l, sc: sc, ctx: ctx}
	out, _ := c.walk(n, true)
	if !c.changed {
		return n, nil
	}
	if err := l.analyzeDropped(n, out, sc); err != nil { // analyze.go
		return nil, err
	}
	if err := c.raiseDropped(n); err != nil {
		return nil, err
	}
	return out, nil
}

type qualCanon struct {
	l   *lowerer
	sc  *scope
	ctx string // noAggs for the lowering (a WHERE or ON has none)
	// changed: a NULL arm was taken as FALSE or dropped, or an AND was
	// made FALSE (its other arms dropped).
	changed bool
}

// walk is find_duplicate_ors over n; top is set for the qual's top-level
// AND, whose arms holding subqueries stay when it is made FALSE.
func (c *qualCanon) walk(n *pg_query.Node, top bool) (*pg_query.Node, qualKind) {
	b := n.GetBoolExpr()
	if b != nil && b.Boolop == pg_query.BoolExprType_NOT_EXPR && len(b.Args) == 1 {
		if pushed := pushNot(b.Args[0]); pushed != nil {
			return c.walk(pushed, top)
		}
	}
	if x := expandBetween(n); x != nil {
		return c.walk(x, top)
	}
	if b == nil || b.Boolop == pg_query.BoolExprType_NOT_EXPR {
		return n, c.leaf(n)
	}
	and := b.Boolop == pg_query.BoolExprType_AND_EXPR
	var kept, subs []*pg_query.Node
	forced := false
	at := -1 // where in subs the first FALSE arm came
	for _, a := range b.Args {
		out, k := c.walk(a, top && and)
		if k == qualNull {
			c.changed = true
		}
		switch {
		case and && k == qualTrue && top && containsSubLink(a):
			// Folded TRUE (x OR TRUE), but PostgreSQL analysed its
			// subqueries before folding: if the AND is made FALSE
			// it stays beside the FALSE, where whereSubqueries
			// lowers and drops it, raising what analysis raises
			// (min(boolean) does not exist; seed 20261221 case
			// 128712); otherwise it goes.
			subs = append(subs, a)
			continue
		case and && k == qualTrue, !and && (k == qualFalse || k == qualNull):
			continue
		case and && (k == qualFalse || k == qualNull):
			forced, c.changed = true, true
			if k == qualFalse && at < 0 {
				at = len(subs)
			}
		case !and && k == qualTrue:
			return trueNode(), qualTrue
		default:
			kept = append(kept, out)
			if top && and && containsSubLink(out) {
				subs = append(subs, out)
			}
		}
	}
	switch {
	case forced && top && len(subs) > 0:
		// The FALSE stands where the first FALSE arm stood (after all
		// of them if only NULLs made it FALSE): the subquery arms before
		// it are folded outside their subqueries, those after are not
		// (foldedBeforeFalse, sublinkfold.go; simplify_and_arguments).
		if at < 0 {
			at = len(subs)
		}
		arms := append(append(append([]*pg_query.Node{}, subs[:at]...), falseNode()), subs[at:]...)
		return andNode(arms), qualVaries
	case forced:
		return falseNode(), qualFalse
	case len(kept) == 0 && and:
		return trueNode(), qualTrue
	case len(kept) == 0:
		return falseNode(), qualFalse
	case len(kept) == 1:
		return kept[0], qualVaries
	}
	op := &pg_query.BoolExpr{Boolop: b.Boolop, Args: kept, Location: b.Location}
	return &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: op}}, qualVaries
}

// pushNot is NOT n with the NOT pushed below an AND or OR n (De
// Morgan's laws, exact in SQL's three-valued logic) or cancelling a NOT
// n, as eval_const_expressions does (negate_clause), so the arms under
// it are the qual's for canonicalize_qual: NOT (x OR NULL) is
// NOT x AND NULL, FALSE. nil for any other n: it stays a leaf.
func pushNot(n *pg_query.Node) *pg_query.Node {
	if x := expandBetween(n); x != nil {
		n = x // NOT (x BETWEEN y AND z) is NOT over their AND
	}
	b := n.GetBoolExpr()
	if b == nil {
		return nil
	}
	var dual pg_query.BoolExprType
	switch b.Boolop {
	case pg_query.BoolExprType_NOT_EXPR:
		if len(b.Args) != 1 {
			return nil
		}
		return b.Args[0]
	case pg_query.BoolExprType_AND_EXPR:
		dual = pg_query.BoolExprType_OR_EXPR
	case pg_query.BoolExprType_OR_EXPR:
		dual = pg_query.BoolExprType_AND_EXPR
	default:
		return nil
	}
	args := make([]*pg_query.Node, len(b.Args))
	for i, a := range b.Args {
		not := &pg_query.BoolExpr{Boolop: pg_query.BoolExprType_NOT_EXPR, Args: []*pg_query.Node{a}, Location: b.Location}
		args[i] = &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: not}}
	}
	op := &pg_query.BoolExpr{Boolop: dual, Args: args, Location: b.Location}
	return &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: op}}
}

// leaf is what the arm n folds to; an arm with a subquery, or one that
// does not lower here (its error is raised where it is lowered), varies.
func (c *qualCanon) leaf(n *pg_query.Node) qualKind {
	if containsSubLink(n) {
		return qualVaries
	}
	e, err := c.lower(n)
	if err != nil {
		return qualVaries
	}
	if isNullConst(e) {
		return qualNull
	}
	if v, ok := boolConst(e); ok {
		if v {
			return qualTrue
		}
		return qualFalse
	}
	return qualVaries
}

// lower is the arm n lowered and coerced to boolean in a copy of the
// scope (lowering adds nothing to it for an arm without subqueries).
func (c *qualCanon) lower(n *pg_query.Node) (expr.Expression, error) {
	ws := *c.sc
	if c.ctx != "" {
		ws.noAggs = c.ctx
	}
	v, err := c.l.expr(n, &ws)
	if err != nil {
		return nil, err
	}
	return c.l.coerce(v, kindBool)
}

// raiseDropped is the error PostgreSQL raises for the qual n's top-level
// arms before canonicalize_qual drops any: an arm's analysis error (the
// parser raises it whatever the qual folds to); then, left to right, what
// eval_const_expressions raises simplifying them: a constant in an arm
// that raises (raisingConstant). A FALSE arm ends the folding:
// simplify_and_arguments does not simplify the arms after it. The arms
// with subqueries stay in the qual (walk), where whereSubqueries folds
// their operands outside the subqueries, such as the left operand of a
// [NOT] IN (subquery) (foldedBeforeFalse; seed 20261207 case 25382),
// and never plans a dropped subquery's body.
func (c *qualCanon) raiseDropped(n *pg_query.Node) error {
	arms := andArgs(n)
	lowered := make([]expr.Expression, len(arms))
	for i, a := range arms {
		if containsSubLink(a) {
			continue
		}
		e, err := c.lower(a)
		if err != nil {
			return err
		}
		lowered[i] = e
	}
	for i := range arms {
		e := lowered[i]
		if e == nil {
			continue // a subquery in it: planned or dropped by whereSubqueries
		}
		if v, ok := boolConst(e); ok && !v {
			return nil
		}
		if err := raisingConstant(e); err != nil {
			return err
		}
	}
	return nil
}

// expandBetween is a BETWEEN n as the parser's transformAExprBetween
// writes it, an AND (NOT BETWEEN: an OR) of two comparisons with the
// operand repeated, so canonicalize_qual sees its arms: x BETWEEN y AND
// NULL is (x >= y) AND NULL, which makes a WHERE's AND FALSE (seed
// 20261222 case 82491). nil for any other n, and for the SYMMETRIC forms,
// which stay leaves.
func expandBetween(n *pg_query.Node) *pg_query.Node {
	a := n.GetAExpr()
	if a == nil {
		return nil
	}
	lo, hi, op := ">=", "<=", pg_query.BoolExprType_AND_EXPR
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN:
	case pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		lo, hi, op = "<", ">", pg_query.BoolExprType_OR_EXPR
	default:
		return nil
	}
	bounds := a.Rexpr.GetList()
	if bounds == nil || len(bounds.Items) != 2 {
		return nil // lowered as it is, which raises
	}
	cmp := func(name string, r *pg_query.Node) *pg_query.Node {
		return &pg_query.Node{Node: &pg_query.Node_AExpr{AExpr: &pg_query.A_Expr{
			Kind:  pg_query.A_Expr_Kind_AEXPR_OP,
			Name:  []*pg_query.Node{{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: name}}}},
			Lexpr: cloneNode(a.Lexpr), Rexpr: r, Location: a.Location}}}
	}
	b := &pg_query.BoolExpr{Boolop: op, Args: []*pg_query.Node{cmp(lo, bounds.Items[0]), cmp(hi, bounds.Items[1])}, Location: a.Location}
	return &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: b}}
}

func cloneNode(n *pg_query.Node) *pg_query.Node { return proto.Clone(n).(*pg_query.Node) }

// trueNode and falseNode are the boolean constants as parse nodes.
func trueNode() *pg_query.Node  { return boolNode(true) }
func falseNode() *pg_query.Node { return boolNode(false) }

func boolNode(v bool) *pg_query.Node {
	c := &pg_query.A_Const{Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: v}}, Location: -1}
	return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: c}}
}
