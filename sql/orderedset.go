package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
)

// orderedSetNames are the ordered-set aggregates lowered:
// percentile_cont(f), percentile_disc(f) and mode(), each WITHIN GROUP
// (ORDER BY x). The executor keeps each group's values (exec's
// acc_orderedset.go).
var orderedSetNames = map[string]bool{"percentile_cont": true, "percentile_disc": true, "mode": true}

// orderedSetMeasure lowers an ordered-set aggregate call as PostgreSQL
// resolves it (ParseFuncOrColumn with WITHIN GROUP): percentile_cont's
// fraction and value are double precision (a number of another type is
// cast, as PostgreSQL's implicit cast to float8), percentile_disc's value
// and mode's keep their type, the fraction is double precision. The array
// form (a fraction array) is refused, typed.
func (l *lowerer) orderedSetMeasure(fc *pg_query.FuncCall, args *scope) (*expr.AggregateFunction, error) {
	name := funcName(fc)
	at := l.src.at(fc.Location)
	switch {
	case !orderedSetNames[name]:
		return nil, fmt.Errorf("%w: WITHIN GROUP is specified, but %s is not an ordered-set aggregate%s", ErrInvalid, name, at)
	case !fc.AggWithinGroup:
		return nil, fmt.Errorf("%w: WITHIN GROUP is required for ordered-set aggregate %s%s", ErrInvalid, name, at)
	case fc.AggDistinct:
		return nil, fmt.Errorf("%w: cannot use DISTINCT with WITHIN GROUP%s", ErrInvalid, at)
	case fc.Over != nil:
		return nil, fmt.Errorf("%w: OVER is not supported for ordered-set aggregate %s%s", ErrUnsupported, name, at)
	case fc.FuncVariadic:
		return nil, fmt.Errorf("%w: VARIADIC %s%s", ErrUnsupported, name, at)
	case len(fc.AggOrder) != 1:
		return nil, fmt.Errorf("%w: %s WITHIN GROUP takes one ORDER BY expression%s", ErrType, name, at)
	}
	wantDirect := 1
	if name == "mode" {
		wantDirect = 0
	}
	if len(fc.Args) != wantDirect {
		return nil, fmt.Errorf("%w: %s takes %d direct arguments, got %d%s", ErrType, name, wantDirect, len(fc.Args), at)
	}
	var direct []expr.Expression
	for _, a := range fc.Args {
		if a.GetAArrayExpr() != nil {
			return nil, fmt.Errorf("%w: %s of an array of fractions%s", ErrUnsupported, name, at)
		}
		v, err := l.expr(a, args)
		if err != nil {
			return nil, err
		}
		e, err := l.coerce(v, kindF64)
		if err != nil {
			return nil, err
		}
		direct = append(direct, e)
	}
	sb := fc.AggOrder[0].GetSortBy()
	if sb == nil {
		return nil, fmt.Errorf("%w: %s WITHIN GROUP without ORDER BY%s", ErrSyntax, name, at)
	}
	if sb.UseOp != nil {
		return nil, fmt.Errorf("%w: ORDER BY ... USING in %s%s", ErrUnsupported, name, at)
	}
	v, err := l.expr(sb.Node, args)
	if err != nil {
		return nil, err
	}
	if v.how != typed {
		// An unknown-type literal or NULL: percentile_cont's float8
		// takes it; the anyelement of percentile_disc and mode cannot
		// be resolved from it, PostgreSQL's enforce_generic_type_consistency.
		if name != "percentile_cont" {
			return nil, fmt.Errorf("%w: could not determine polymorphic type because input has type unknown%s", ErrType, at)
		}
		e, err := l.coerce(v, kindF64)
		if err != nil {
			return nil, err
		}
		v = value{e: e, loc: v.loc}
	}
	value, err := l.settle(v)
	if err != nil {
		return nil, err
	}
	if name == "percentile_cont" {
		switch kindOf(value.GetType()).ID {
		case idF64:
		case idI16, idI32, idI64, idF32, idNumeric:
			value = &expr.Cast{Type: kindF64.Type(isNullable(value.GetType())), Input: value, FailureBehavior: types.BehaviorThrowException}
		default:
			return nil, fmt.Errorf("%w: function percentile_cont(double precision) within group (%s) does not exist%s", ErrType, kindOf(value.GetType()), at)
		}
	}
	desc := sb.SortbyDir == pg_query.SortByDir_SORTBY_DESC
	f, err := substraitfn.OrderedSetAggregate(l.b.GetExprBuilder().Reg, name, direct, value, desc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w%s", ErrType, err, at)
	}
	return f, nil
}
