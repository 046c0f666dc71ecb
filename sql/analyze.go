package sql

import (
	"errors"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// PostgreSQL's parser analyses every subquery of a statement (its types,
// names and functions: transformSubLink) before the planner folds any
// qual, so a subquery that folding then drops still raises what analysis
// raises: WHERE a.k > 0 OR (FALSE AND (SELECT max(TRUE) FROM s)) fails
// with 42883, function max(boolean) does not exist, though
// canonicalize_qual leaves only a.k > 0; so does an EXISTS under an OR
// beside a FALSE conjunct, which whereSubqueries drops unlowered (found
// auditing the analysis of difftest seed 20261230 case 302920, whose own
// shape main already raised). analyzeDropped and whereSubqueries lower
// each such subquery and throw the plan away, raising only the errors
// that are analysis errors in PostgreSQL; the errors of evaluating a
// constant (out of range, division by zero) are the planner's, and a
// dropped subquery never raises them.

// analyzeDropped raises the first analysis error, in source order, of the
// subqueries in the qual n that its canonical form out no longer holds.
func (l *lowerer) analyzeDropped(n, out *pg_query.Node, sc *scope) error {
	kept := map[*pg_query.SubLink]bool{}
	for _, sl := range subLinks(out) {
		kept[sl] = true
	}
	for _, sl := range subLinks(n) {
		if kept[sl] {
			continue
		}
		if err := l.analyzeSubLink(sl, sc); isAnalysisError(err) {
			return err
		}
	}
	return nil
}

// analyzeSubLink lowers the subquery of sl over the outer scope sc, its
// outer references allowed as the parser allows them, and returns the
// lowering's error; the plan is dropped.
func (l *lowerer) analyzeSubLink(sl *pg_query.SubLink, sc *scope) error {
	sub := sl.Subselect.GetSelectStmt()
	if sub == nil {
		return nil
	}
	scratch := *sc
	if sl.Testexpr != nil {
		if _, err := l.expr(sl.Testexpr, &scratch); err != nil {
			return err
		}
	}
	saved, savedNext := l.outer, l.corrNext
	l.outer, l.corrNext = &scratch, true
	defer func() { l.outer, l.corrNext = saved, savedNext }()
	_, _, err := l.selectStmt(sub, nil)
	return err
}

// isAnalysisError reports an error PostgreSQL's parse analysis raises
// (SQLSTATE class 42: an undefined function or operator, a type
// mismatch, an unknown or ambiguous name). Any other error, including
// what stablerow does not lower, is left to the planning that would
// have dropped the subquery: it then raises nothing.
func isAnalysisError(err error) bool {
	if err == nil || errors.Is(err, errCorrelated) {
		return false
	}
	return errors.Is(err, ErrType) || errors.Is(err, ErrUnknownColumn) ||
		errors.Is(err, ErrUnknownTable) || errors.Is(err, ErrAmbiguous)
}

// subLinks returns the subqueries in the tree n, in source order, not
// looking inside any subquery's own SELECT (lowering it analyses those).
func subLinks(n *pg_query.Node) []*pg_query.SubLink {
	var out []*pg_query.SubLink
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if sl, ok := m.Interface().(*pg_query.SubLink); ok {
			out = append(out, sl)
			if sl.Testexpr != nil {
				walk(sl.Testexpr.ProtoReflect())
			}
			return
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return true })
	}
	if n != nil {
		walk(n.ProtoReflect())
	}
	return out
}
