package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// plainDistinct: SELECT DISTINCT (the parser's one empty item), not
// DISTINCT ON (exprs).
func plainDistinct(s *pg_query.SelectStmt) bool {
	return len(s.DistinctClause) == 1 && s.DistinctClause[0].GetNode() == nil
}

// distinct lowers SELECT DISTINCT: the projection, an AggregateRel grouping
// by every output and no measure, then ORDER BY, whose keys must be outputs
// (PostgreSQL: "for SELECT DISTINCT, ORDER BY expressions must appear in
// select list"). first: the statement ends in LIMIT 1 (limitOne), which
// over outputs that are all constants makes it a fetch of one row.
func (l *lowerer) distinct(rel plan.Rel, in *scope, outs []output, clause []*pg_query.Node, first bool) (plan.Rel, error) {
	keys, err := l.orderKeys(clause, in, outs)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.out < 0 {
			return nil, fmt.Errorf("%w: for SELECT DISTINCT, ORDER BY expressions must appear in select list", ErrInvalid)
		}
	}
	n := rel.RecordType().FieldCount()
	exprs := make([]expr.Expression, len(outs))
	remap := make([]int32, len(outs))
	cols := make([]int32, len(outs))
	for i, o := range outs {
		exprs[i], remap[i], cols[i] = o.e, n+int32(i), int32(i)
	}
	proj, err := l.b.ProjectRemap(rel, remap, exprs...)
	if err != nil {
		return nil, fmt.Errorf("%w: project: %w", ErrInvalid, err)
	}
	if first && allConstant(outs) {
		// Every output a constant: PostgreSQL's distinct pathkeys are all
		// redundant, so it plans a Unique over the unsorted input, which
		// emits the first row at once; a LIMIT 1 above it then stops, and
		// nothing past the first row is read, nor a raising WHERE
		// evaluated on it (difftest seed 20261231 case 257959). Asked for
		// a second row, the Unique reads on to the end (so without LIMIT
		// 1 the aggregate stays). The first row is the whole answer, a
		// fetch of one.
		one, err := l.b.Fetch(proj, 0, 1)
		if err != nil {
			return nil, fmt.Errorf("%w: DISTINCT: %w", ErrInvalid, err)
		}
		return l.sortOutputs(one, keys)
	}
	agg, err := l.b.AggregateColumns(proj, nil, cols...)
	if err != nil {
		return nil, fmt.Errorf("%w: DISTINCT: %w", ErrInvalid, err)
	}
	return l.sortOutputs(agg, keys)
}

// limitOne: s ends in LIMIT 1 with no OFFSET.
func (l *lowerer) limitOne(s *pg_query.SelectStmt) bool {
	if s.LimitCount == nil {
		return false
	}
	count, err := l.limitValue(s.LimitCount, "LIMIT")
	if err != nil || count != 1 {
		return false
	}
	if s.LimitOffset == nil {
		return true
	}
	offset, err := l.limitValue(s.LimitOffset, "OFFSET")
	return err == nil && offset <= 0
}

// allConstant: every output is a literal.
func allConstant(outs []output) bool {
	for _, o := range outs {
		if _, ok := literalOf(o.e); !ok {
			return false
		}
	}
	return len(outs) > 0
}

// sortOutputs sorts rel by keys that name its fields.
func (l *lowerer) sortOutputs(rel plan.Rel, keys []sortKey) (plan.Rel, error) {
	if len(keys) == 0 {
		return rel, nil
	}
	fields := make([]expr.SortField, len(keys))
	for i, k := range keys {
		ref, err := l.b.RootFieldRef(rel, int32(k.out))
		if err != nil {
			return nil, fmt.Errorf("%w: sort: %w", ErrInvalid, err)
		}
		fields[i] = expr.SortField{Expr: ref, Kind: k.kind}
	}
	sorted, err := l.b.Sort(rel, fields...)
	if err != nil {
		return nil, fmt.Errorf("%w: sort: %w", ErrInvalid, err)
	}
	return sorted, nil
}

// setOps maps UNION/INTERSECT/EXCEPT [ALL] to SetRel operations.
var setOps = map[pg_query.SetOperation][2]plan.SetOp{ // [distinct, ALL]
	pg_query.SetOperation_SETOP_UNION:     {plan.SetOpUnionDistinct, plan.SetOpUnionAll},
	pg_query.SetOperation_SETOP_INTERSECT: {plan.SetOpIntersectionMultiset, substraitpb.SetRel_SET_OP_INTERSECTION_MULTISET_ALL},
	pg_query.SetOperation_SETOP_EXCEPT:    {plan.SetOpMinusPrimary, substraitpb.SetRel_SET_OP_MINUS_PRIMARY_ALL},
}

// setOperation lowers left OP [ALL] right, then the ORDER BY, LIMIT and
// OFFSET that apply to its result. Column names are the left query's; a
// column that is bigint on one side and double precision on the other
// becomes double precision, as PostgreSQL resolves it; other mismatches are
// an error. The right side's untyped values (NULL, string literals) take
// the left side's types.
func (l *lowerer) setOperation(s *pg_query.SelectStmt, want []kind) (plan.Rel, []string, error) {
	switch {
	case len(s.LockingClause) > 0:
		return nil, nil, fmt.Errorf("%w: FOR UPDATE/SHARE", ErrUnsupported)
	case s.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES:
		return nil, nil, fmt.Errorf("%w: FETCH ... WITH TIES", ErrUnsupported)
	}
	ops, ok := setOps[s.Op]
	if !ok || s.Larg == nil || s.Rarg == nil {
		return nil, nil, fmt.Errorf("%w: set operation %s", ErrUnsupported, s.Op)
	}
	// WITH ... q1 UNION q2: the WITH queries are in scope for both sides
	// (and for the ORDER BY's subqueries), as in PostgreSQL.
	pop, err := l.with(s.WithClause) // cte.go
	defer pop()
	if err != nil {
		return nil, nil, err
	}
	left, names, err := l.selectStmt(s.Larg, want)
	if err != nil {
		return nil, nil, err
	}
	lt := left.RecordType().Types()
	kinds := make([]kind, len(lt))
	for i, t := range lt {
		kinds[i] = kindOf(t)
	}
	right, _, err := l.selectStmt(s.Rarg, kinds)
	if err != nil {
		return nil, nil, err
	}
	rt := right.RecordType().Types()
	what := map[pg_query.SetOperation]string{pg_query.SetOperation_SETOP_UNION: "UNION", pg_query.SetOperation_SETOP_INTERSECT: "INTERSECT", pg_query.SetOperation_SETOP_EXCEPT: "EXCEPT"}[s.Op]
	if len(lt) != len(rt) {
		return nil, nil, fmt.Errorf("%w: each %s query must have the same number of columns", ErrInvalid, what)
	}
	// Each column's type is PostgreSQL's select_common_type: numbers meet
	// at the wider kind of its implicit casts (int2 < int4 < int8 <
	// numeric < real < double precision), strings of different kinds at
	// text (char(n) loses its trailing blanks), date and timestamp at
	// timestamp; nullable if either side is (substrait's SetRel wants one
	// record type).
	target := make([]types.Type, len(lt))
	for i := range lt {
		lk, rk := kindOf(lt[i]), kindOf(rt[i])
		k := lk
		switch {
		case lk == rk:
		case lk.Numeric() && rk.Numeric():
			if (lk.ID == idNumeric || rk.ID == idNumeric) && setopNumeric(lk, rk).ID == idNumeric {
				// PostgreSQL's common type here is numeric without a
				// typmod: each value prints at its own scale (-1.01 beside
				// -2.5250). A decimal128 column has one scale, so the
				// answer would print differently: refused, not approximated.
				return nil, nil, fmt.Errorf("%w: %s of %s and %s (PostgreSQL's result is a numeric of no fixed scale; cast both sides to one numeric(p,s))", ErrUnsupported, what, lk, rk)
			}
			k = setopNumeric(lk, rk)
		case lk.Stringy() && rk.Stringy():
			k = kindString
		case lk.Datetime() && rk.Datetime():
			k = kindTimestamp
		default:
			return nil, nil, fmt.Errorf("%w: %s types %s and %s cannot be matched", ErrType, what, lk, rk)
		}
		target[i] = k.Type(isNullable(lt[i]) || isNullable(rt[i]))
	}
	if left, err = l.conform(left, target); err != nil {
		return nil, nil, err
	}
	if right, err = l.conform(right, target); err != nil {
		return nil, nil, err
	}
	op := ops[0]
	if s.All {
		op = ops[1]
	}
	rel, err := l.b.Set(op, left, right)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrInvalid, what, err)
	}
	return l.orderedResult(rel, names, s, "a "+what+" result")
}

// orderedResult is rel, a set operation's or a VALUES list's result with
// columns names, under the ORDER BY, LIMIT and OFFSET of s: the keys by
// position or column name only (what names the result in the refusal of
// any other key).
func (l *lowerer) orderedResult(rel plan.Rel, names []string, s *pg_query.SelectStmt, what string) (plan.Rel, []string, error) {
	sc := &scope{noAggs: "in ORDER BY"}
	outs := make([]output, len(names))
	for i, t := range rel.RecordType().Types() {
		sc.cols = append(sc.cols, column{name: names[i], typ: t})
	}
	for i := range outs {
		e, err := sc.ref(i)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		outs[i] = output{e: e, name: names[i]}
	}
	keys, err := l.orderKeys(s.SortClause, sc, outs)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range keys {
		if k.out < 0 {
			return nil, nil, fmt.Errorf("%w: ORDER BY on %s must name one of its columns", ErrUnsupported, what)
		}
	}
	if rel, err = l.sortOutputs(rel, keys); err != nil {
		return nil, nil, err
	}
	if rel, err = l.fetch(rel, s); err != nil {
		return nil, nil, err
	}
	return rel, names, nil
}

// conform casts the columns of rel whose type is not target's (bigint to
// double precision, or a required column to its nullable type).
func (l *lowerer) conform(rel plan.Rel, target []types.Type) (plan.Rel, error) {
	ts := rel.RecordType().Types()
	n := int32(len(ts))
	exprs := make([]expr.Expression, n)
	remap := make([]int32, n)
	same := true
	for i := range n {
		ref, err := l.b.RootFieldRef(rel, i)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		exprs[i], remap[i] = ref, n+i
		if !ts[i].Equals(target[i]) {
			exprs[i], same = &expr.Cast{Type: target[i], Input: ref, FailureBehavior: types.BehaviorThrowException}, false
		}
	}
	if same {
		return rel, nil
	}
	p, err := l.b.ProjectRemap(rel, remap, exprs...)
	if err != nil {
		return nil, fmt.Errorf("%w: project: %w", ErrInvalid, err)
	}
	return p, nil
}

// setopNumeric is the common kind of two numeric kinds in a set
// operation: the one of higher rank; two numerics meet at the numeric
// holding both.
func setopNumeric(a, b kind) kind {
	if a.ID == idNumeric && b.ID == idNumeric {
		return promote(a, b)
	}
	if a.Rank() >= b.Rank() {
		if a.ID == idNumeric {
			return promote(a, b) // an integer into numeric: the digits it needs
		}
		return a
	}
	return setopNumeric(b, a)
}
