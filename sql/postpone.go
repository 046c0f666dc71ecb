package sql

import (
	"fmt"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// Where a SELECT with ORDER BY and LIMIT evaluates its select list, as
// PostgreSQL 15 does (planner.c, make_sort_input_target): an item that is
// not a sort key and is "expensive" (its cost_qual_eval is more than 10
// cpu_operator_cost, about 11 operator calls or more) is postponed past
// the sort and evaluated by a projection above it, on the rows the Limit
// pulls (offset + count); every other item is evaluated below the sort,
// on every row. Which it is shows when an item raises on a row the LIMIT
// discards: a postponed one does not raise, an early one does.
//
// PostgreSQL plans no sort at all when its input comes ordered: FROM one
// UNNEST(...) WITH ORDINALITY ordered by the ordinality column ascending
// (sort keys that are constants drop out). Then the function scan
// projects each row as the Limit pulls it, and every item is evaluated
// on the pulled rows only (seed 20261206 case 50198). The planner owns
// that decision (plan/ordering.go): it elides the sort and gives the
// LIMIT's row count to the projection of the early items below it.
//
// The lowering (splitProjectAndSort):
//
//	Project[early refs, postponed items] <- Sort <- Project[input, early items]
//
// and the planner's fetch projects the top Project on the rows the LIMIT
// reads only (plan/filter.go). Without LIMIT every row is evaluated
// anyway and the shapes of projectAndSort stay.

// expensiveItem is the postponement test for a select-list item that is
// not a sort key: PostgreSQL's cost over more than 10 operator calls.
// The sum is PostgreSQL's float arithmetic, in its order, so ten calls
// are not expensive (0.0025 ten times is just below 0.025).
func expensiveItem(e expr.Expression) bool {
	const cpuOperatorCost = 0.0025
	return pgCost(e, 0, cpuOperatorCost) > 10*cpuOperatorCost
}

// pgCost adds to total the per-row cost cost_qual_eval_walker charges for
// e, in units of op (cpu_operator_cost), walking as it does (the node,
// then its arguments). What the lowering spells differently from
// PostgreSQL's tree is charged as PostgreSQL's tree is: AND, OR, NOT, IS
// [NOT] NULL, COALESCE and CASE are free (BoolExpr, NullTest, CoalesceExpr,
// CaseExpr), every operator and function call is one (procost 1), an IN
// list is half a call per element (ScalarArrayOpExpr), a cast between
// integer kinds or between float kinds is free (PostgreSQL has the
// cross-type operators int48pl, float48mul, ... and needs no cast), a cast
// to or from text costs an output and an input function (CoerceViaIO),
// any other cast one call.
func pgCost(e expr.Expression, total, op float64) float64 {
	switch x := e.(type) {
	case *expr.ScalarFunction:
		name, _, _ := strings.Cut(x.Name(), ":")
		switch name {
		case "and", "or", "not", "is_null", "is_not_null", "coalesce":
		default:
			total += op
		}
	case *expr.Cast:
		from, to := kindOf(x.Input.GetType()), kindOf(x.Type)
		switch {
		case from == to, from.Integer() && to.Integer(), from.Float() && to.Float():
		case from.Stringy() && to.Stringy():
			if from.ID == idChar {
				total += op // text(bpchar): rtrim
			}
		case from.Stringy() || to.Stringy():
			total += op
			total += op
		default:
			total += op
		}
	case *expr.SingularOrList:
		total += op * float64(len(x.Options)) * 0.5
	}
	e.Visit(func(c expr.Expression) expr.Expression {
		total = pgCost(c, total, op)
		return c
	})
	return total
}

// splitProjectAndSort lowers the select list and ORDER BY of a SELECT
// with LIMIT when PostgreSQL evaluates some item after the sort (see
// above): the early items are computed below the sort beside the input
// columns (which keep their indexes, so the sort keys and the postponed
// items read them unchanged), the postponed ones above it. ok is false
// when nothing is postponed and every sort key is an output: then
// projectAndSort's Sort <- Project is PostgreSQL's plan already.
func (l *lowerer) splitProjectAndSort(rel plan.Rel, outs []output, keys []sortKey) (plan.Rel, bool, error) {
	// No sort above the select list in PostgreSQL's plan: every item is
	// evaluated on the rows the Limit pulls (postpone_window.go). Where
	// the input comes ordered (one UNNEST ... WITH ORDINALITY), the
	// planner elides the sort and the rows the LIMIT reads reach the
	// early items' projection (plan/ordering.go), so that order is not
	// decided here too.
	_, elided, _ := windowOrder(rel, keys)
	isKey := make([]bool, len(outs))
	below := false
	for _, k := range keys {
		if k.out >= 0 {
			isKey[k.out] = true
		}
		below = below || k.out < 0
	}
	// A column of the input is computed nowhere (and raises nothing):
	// it is read above the sort.
	late := make([]bool, len(outs))
	lateCalc, earlyCalc := false, false
	for i, o := range outs {
		_, column := o.e.(*expr.FieldReference)
		late[i] = column || elided || !isKey[i] && expensiveItem(o.e)
		lateCalc = lateCalc || late[i] && !column
		earlyCalc = earlyCalc || !late[i]
	}
	if !lateCalc && !(below && earlyCalc) {
		return nil, false, nil // projectAndSort's shapes are PostgreSQL's
	}
	n := int32(rel.RecordType().FieldCount())
	pre := rel
	col := make([]int32, len(outs)) // an early item's column below the sort
	var early []expr.Expression
	for i, o := range outs {
		if !late[i] {
			col[i] = n + int32(len(early))
			early = append(early, o.e)
		}
	}
	if len(early) > 0 {
		remap := make([]int32, int(n)+len(early))
		for i := range remap {
			remap[i] = int32(i)
		}
		var err error
		if pre, err = l.b.ProjectRemap(rel, remap, early...); err != nil {
			return nil, false, fmt.Errorf("%w: project: %w", ErrInvalid, err)
		}
	}
	fields := make([]expr.SortField, len(keys))
	for i, k := range keys {
		fields[i] = expr.SortField{Expr: k.e, Kind: k.kind}
		if k.out >= 0 && !late[k.out] {
			ref, err := l.b.RootFieldRef(pre, col[k.out])
			if err != nil {
				return nil, false, fmt.Errorf("%w: sort: %w", ErrInvalid, err)
			}
			fields[i].Expr = ref
		}
	}
	sorted, err := l.b.Sort(pre, fields...)
	if err != nil {
		return nil, false, fmt.Errorf("%w: sort: %w", ErrInvalid, err)
	}
	w := int(n) + len(early)
	exprs := make([]expr.Expression, len(outs))
	remap := make([]int32, len(outs))
	for i, o := range outs {
		exprs[i], remap[i] = o.e, int32(w+i)
		if !late[i] {
			if exprs[i], err = l.b.RootFieldRef(sorted, col[i]); err != nil {
				return nil, false, fmt.Errorf("%w: project: %w", ErrInvalid, err)
			}
		}
	}
	proj, err := l.b.ProjectRemap(sorted, remap, exprs...)
	if err != nil {
		return nil, false, fmt.Errorf("%w: project: %w", ErrInvalid, err)
	}
	return proj, true, nil
}
