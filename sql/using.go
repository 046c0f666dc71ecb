package sql

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// usingJoin lowers JOIN ... USING (a, ...) [AS alias] and NATURAL JOIN as
// PostgreSQL's transformFromClauseItem does: the condition is
// left.a = right.a AND ... (transformJoinUsingClause), and the join's
// record is the merged columns first, in USING order (buildMergedJoinVar:
// the left's for INNER and LEFT, the right's for RIGHT, COALESCE(left,
// right) for FULL, each at the two sides' common type), then every left
// and right column. The sides' own USING columns stay in the record for
// t.a and t.*, but an unqualified name or * no longer reaches them
// (column.merged), as PostgreSQL's join namespace leaves them out.
func (l *lowerer) usingJoin(j *pg_query.JoinExpr, jt plan.JoinType, left, right plan.Rel, ls, rs *scope) (plan.Rel, *scope, error) {
	names, err := l.usingNames(j, ls, rs)
	if err != nil {
		return nil, nil, err
	}
	alias := ""
	if a := j.JoinUsingAlias; a != nil {
		// PostgreSQL 14's USING (...) AS alias names the merged columns
		// alone; the grammar allows no column list, so it is always simple.
		alias = a.Aliasname
		if ls.hasQual(alias) || rs.hasQual(alias) {
			return nil, nil, fmt.Errorf("%w: table name %q specified more than once", ErrAmbiguous, alias)
		}
	}
	nLeft := len(ls.cols)
	pairs := make([][2]int, len(names))
	for i, name := range names {
		li, err := l.usingSide(ls, name, "left")
		if err != nil {
			return nil, nil, err
		}
		ri, err := l.usingSide(rs, name, "right")
		if err != nil {
			return nil, nil, err
		}
		pairs[i] = [2]int{li, nLeft + ri}
		// Named as the left column is: a name matched with its case
		// folded (lookupHere's rule, substrait.md §9) keeps the
		// column's own spelling, as PostgreSQL's exact match does.
		names[i] = ls.cols[li].name
	}
	cols := append(append([]column{}, ls.cols...), rs.cols...)
	for _, p := range pairs {
		cols[p[0]].merged, cols[p[1]].merged = true, true
	}
	nullable := func(from, to int) {
		for i := from; i < to; i++ {
			cols[i].typ = cols[i].typ.WithNullability(types.NullabilityNullable)
			cols[i].konst = nil // a PlaceHolderVar in PostgreSQL (pullconst.go)
		}
	}
	if jt == plan.JoinTypeLeft || jt == plan.JoinTypeOuter {
		nullable(nLeft, len(cols))
	}
	if jt == plan.JoinTypeRight || jt == plan.JoinTypeOuter {
		nullable(0, nLeft)
	}
	rel, err := l.usingCondition(jt, left, right, ls, rs, pairs)
	if err != nil {
		return nil, nil, err
	}
	// The merged columns, computed over the join's output.
	js := &scope{cols: cols}
	exprs := make([]expr.Expression, len(pairs))
	merged := make([]column, len(pairs))
	for i, p := range pairs {
		e, err := l.mergedColumn(js, jt, p)
		if err != nil {
			return nil, nil, err
		}
		exprs[i] = e
		merged[i] = column{qual: alias, name: names[i], typ: e.GetType()}
	}
	if len(exprs) == 0 {
		return rel, &scope{cols: cols}, nil
	}
	remap := make([]int32, 0, len(exprs)+len(cols))
	for i := range exprs {
		remap = append(remap, int32(len(cols)+i))
	}
	for i := range cols {
		remap = append(remap, int32(i))
	}
	if rel, err = l.b.ProjectRemap(rel, remap, exprs...); err != nil {
		return nil, nil, fmt.Errorf("%w: USING projection: %w", ErrInvalid, err)
	}
	return rel, &scope{cols: append(merged, cols...)}, nil
}

// usingNames is the USING list, or NATURAL's: the left's column names that
// the right also has, in the left's order (transformFromClauseItem). A
// name twice in USING is PostgreSQL's error.
func (l *lowerer) usingNames(j *pg_query.JoinExpr, ls, rs *scope) ([]string, error) {
	var names []string
	if j.IsNatural {
		for _, c := range ls.cols {
			if c.hidden || c.merged || slices.Contains(names, c.name) {
				continue
			}
			if slices.ContainsFunc(rs.cols, func(r column) bool { return !r.hidden && !r.merged && r.name == c.name }) {
				names = append(names, c.name)
			}
		}
		return names, nil
	}
	for _, n := range j.UsingClause {
		name := n.GetString_().GetSval()
		if slices.Contains(names, name) {
			return nil, fmt.Errorf("%w: column name %q appears more than once in USING clause", ErrAmbiguous, name)
		}
		names = append(names, name)
	}
	return names, nil
}

// usingSide finds a USING name among one side's columns that an
// unqualified name reaches (its join namespace's column names): exactly
// one, else PostgreSQL's errors. Names match as lookupHere's do: exact
// case first, then folded.
func (l *lowerer) usingSide(s *scope, name, side string) (int, error) {
	find := func(match func(a, b string) bool) []int {
		var hits []int
		for i, c := range s.cols {
			if !c.hidden && !c.merged && match(c.name, name) {
				hits = append(hits, i)
			}
		}
		return hits
	}
	hits := find(func(a, b string) bool { return a == b })
	if len(hits) == 0 {
		hits = find(strings.EqualFold)
	}
	switch len(hits) {
	case 0:
		return 0, fmt.Errorf("%w: column %q specified in USING clause does not exist in %s table", ErrUnknownColumn, name, side)
	case 1:
		return hits[0], nil
	}
	return 0, fmt.Errorf("%w: common column name %q appears more than once in %s table", ErrAmbiguous, name, side)
}

// usingCondition joins left and right on left.a = right.a AND ... (each
// equality resolved as = is between the two columns); with no names
// (NATURAL with no common column) the condition is true, which for an
// inner join is a cross join.
func (l *lowerer) usingCondition(jt plan.JoinType, left, right plan.Rel, ls, rs *scope, pairs [][2]int) (plan.Rel, error) {
	if len(pairs) == 0 && jt == plan.JoinTypeInner {
		rel, err := l.b.Cross(left, right)
		if err != nil {
			return nil, fmt.Errorf("%w: cross join: %w", ErrInvalid, err)
		}
		return rel, nil
	}
	on := &scope{cols: append(append([]column{}, ls.cols...), rs.cols...)}
	var eqs []expr.Expression
	for _, p := range pairs {
		lr, err := on.ref(p[0])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		rr, err := on.ref(p[1])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		args, _, err := l.unify(value{e: lr, loc: -1}, value{e: rr, loc: -1})
		if err != nil {
			return nil, usingTypeError(on, p, err)
		}
		eq, err := l.call(urnComparison, "equal", -1, args...)
		if err != nil {
			return nil, err
		}
		eqs = append(eqs, eq)
	}
	cond := newLiteral(true, false)
	switch len(eqs) {
	case 0:
	case 1:
		cond = eqs[0]
	default:
		var err error
		if cond, err = l.call(urnBoolean, "and", -1, eqs...); err != nil {
			return nil, err
		}
	}
	rel, err := l.b.Join(left, right, cond, jt)
	if err != nil {
		return nil, fmt.Errorf("%w: join: %w", ErrInvalid, err)
	}
	return rel, nil
}

// usingTypeError is PostgreSQL's error for USING columns of types with no
// common type (select_common_type's "JOIN/USING types %s and %s cannot be
// matched"); another error passes through.
func usingTypeError(s *scope, p [2]int, err error) error {
	if !errors.Is(err, ErrType) {
		return err
	}
	return fmt.Errorf("%w: JOIN/USING types %s and %s cannot be matched", ErrType, kindOf(s.cols[p[0]].typ), kindOf(s.cols[p[1]].typ))
}

// mergedColumn is buildMergedJoinVar's merged column over the join's
// output: both sides at their common type (select_common_type, as
// COALESCE's arguments meet), then the left's for INNER and LEFT, the
// right's for RIGHT, and COALESCE(left, right) for FULL.
func (l *lowerer) mergedColumn(js *scope, jt plan.JoinType, p [2]int) (expr.Expression, error) {
	lr, err := js.ref(p[0])
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	rr, err := js.ref(p[1])
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	es, _, err := l.commonResults([]value{{e: lr, loc: -1}, {e: rr, loc: -1}}, 0)
	if err != nil {
		return nil, usingTypeError(js, p, err)
	}
	switch jt {
	case plan.JoinTypeRight:
		return es[1], nil
	case plan.JoinTypeOuter:
		return l.callOpts(urnComparison, "coalesce", -1, nil, es...)
	}
	return es[0], nil
}
