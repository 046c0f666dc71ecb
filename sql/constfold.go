package sql

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"

	planner "github.com/stablerow/stablerow/plan"
	sqlvalue "github.com/stablerow/stablerow/value"
)

// Constant folding as PostgreSQL's planner does it (eval_const_expressions),
// for the shapes whose run-time evaluation could raise where PostgreSQL's
// plan never evaluates anything: a strict function or operator with a NULL
// constant argument is that NULL (a / 0 = NULL is NULL, and a / 0 is never
// computed), NULL IN (...) is NULL, IS [NOT] NULL of a constant is its
// answer, and AND/OR drop constant TRUE/FALSE operands or are decided by
// one. A HAVING that folds to FALSE or NULL also keeps the aggregates from
// seeing a row (groupby.go), as PostgreSQL's one-time filter does.
//
// Any other call over constants is evaluated here, with the executor's
// kernels (plan.EvalConst), and replaced by its value, as PostgreSQL
// evaluates immutable functions, operators and casts over constants
// while planning. One whose evaluation raises is kept, and the statement
// raises its error while planning (raiseConstants), as PostgreSQL does
// even where no row would reach it (SELECT CAST(-1e19 AS INTEGER) FROM t
// WHERE FALSE raises 22003) — except where PostgreSQL's folding drops
// it first: the arms of a CASE decided by a constant condition,
// COALESCE's arguments after a constant, and AND/OR operands after the
// constant that decides them (PostgreSQL simplifies AND/OR operands left
// to right and stops there: (1/0 = 1) AND FALSE raises, FALSE AND
// (1/0 = 1) does not).

// nonStrict are the functions l.call and l.callOpts build that give a
// value for a NULL argument: everything else the lowering calls is strict
// in PostgreSQL (operators, casts, the math and string functions).
var nonStrict = map[string]bool{
	"and": true, "or": true, "is_null": true, "is_not_null": true,
	"is_distinct_from": true, "is_not_distinct_from": true, "coalesce": true,
	"nullif": true, "greatest_skip_null": true, "least_skip_null": true,
}

// isNullConst: e is a NULL constant (of any type).
func isNullConst(e expr.Expression) bool {
	_, ok := e.(*expr.NullLiteral)
	return ok
}

// boolConst is a boolean constant's value; ok is false for anything else
// (a NULL constant too).
func boolConst(e expr.Expression) (v, ok bool) {
	l, ok := e.(*expr.PrimitiveLiteral[bool])
	if !ok {
		return false, false
	}
	return l.Value, true
}

// nullOf is the NULL constant of e's type.
func nullOf(e expr.Expression) expr.Expression {
	return expr.NewNullLiteral(kindOf(e.GetType()).Type(true))
}

// foldCall folds the call f = name(args...) where its arguments decide
// it, or to its value when they are all constants; f itself otherwise.
func foldCall(name string, f expr.Expression, args []expr.Expression) expr.Expression {
	out := foldByArgs(name, f, args)
	if out == f && constantArgs(f) {
		if lit, ok, err := evalConst(f); ok && err == nil {
			return lit
		}
	}
	return out
}

// foldByArgs is foldCall's rules for NULL, boolean and other constant
// arguments that decide a call without evaluating it.
func foldByArgs(name string, f expr.Expression, args []expr.Expression) expr.Expression {
	if !nonStrict[name] {
		for _, a := range args {
			if isNullConst(a) && kindOf(f.GetType()) != kindUnknown && !slices.ContainsFunc(args, unfoldedConstant) {
				return nullOf(f)
			}
		}
		if name == "not" && len(args) == 1 {
			if v, ok := boolConst(args[0]); ok {
				return expr.NewPrimitiveLiteral(!v, false)
			}
		}
		return f
	}
	switch name {
	case "nullif":
		if len(args) == 2 && isNullConst(args[0]) && !unfoldedConstant(args[1]) {
			// NULLIF(NULL, x) is NULL; but PostgreSQL simplifies x
			// first, so a constant x that raises raises (seed 20261206
			// cases 64719, 69572).
			return nullOf(f)
		}
	case "coalesce":
		// NULL constants drop out; a non-NULL constant ends the list.
		for _, a := range args {
			if isNullConst(a) {
				continue
			}
			if lit, ok := literalOf(a); ok && lit != nil && kindOf(a.GetType()) == kindOf(f.GetType()) {
				return a
			}
			return f
		}
		if kindOf(f.GetType()) != kindUnknown {
			return nullOf(f)
		}
	case "is_null", "is_not_null":
		if len(args) == 1 {
			if lit, ok := literalOf(args[0]); ok {
				return expr.NewPrimitiveLiteral((lit == nil) == (name == "is_null"), false)
			}
		}
	}
	return f
}

// coalesceArgs is COALESCE's arguments es (lowered and of their common
// type) as PostgreSQL's eval_const_expressions leaves them: NULL
// constants drop out, and a non-NULL constant ends the list, the
// arguments after it dropped without being simplified, so a constant
// call in them that would raise never raises (coalesce(c, 1, 1 / 0)
// divides nothing; coalesce(NULL, 1 / 0) still raises). A list of NULL
// constants only stays, for foldByArgs to fold to the NULL of its type.
func coalesceArgs(es []expr.Expression) []expr.Expression {
	var out []expr.Expression
	for _, a := range es {
		if isNullConst(a) {
			continue
		}
		out = append(out, a)
		if lit, ok := literalOf(a); ok && lit != nil {
			break
		}
	}
	if len(out) == 0 {
		return es
	}
	return out
}

// pruneBool drops the constant operands of AND (TRUE) and OR (FALSE);
// decided is set when one decides it (FALSE, TRUE) or none is left. NULL
// constants stay (NULL AND x is NULL or FALSE). The operands before the
// deciding one were simplified by PostgreSQL before it met it, so a
// constant in one that raises is err (simplify_and_arguments).
func pruneBool(name string, args []expr.Expression) (decided expr.Expression, rest []expr.Expression, err error) {
	if name != "and" && name != "or" {
		return nil, args, nil
	}
	decide := name == "or"
	for i, a := range args {
		v, ok := boolConst(a)
		switch {
		case ok && v == decide:
			for _, b := range args[:i] {
				if err := raisingConstant(b); err != nil {
					return nil, nil, err
				}
			}
			return expr.NewPrimitiveLiteral(decide, false), nil, nil
		case !ok:
			rest = append(rest, a)
		}
	}
	switch len(rest) {
	case 0:
		return expr.NewPrimitiveLiteral(!decide, false), nil, nil
	case 1:
		return rest[0], nil, nil
	}
	return nil, rest, nil
}

// nullInList folds value IN (options) with a NULL constant value: NULL,
// as PostgreSQL's NULL = a OR NULL = b folds, unless an option is a
// constant call that raises (NULL IN (sqrt(-1e300), ...)): PostgreSQL
// simplifies it first and raises while planning, so it is left to raise.
//
// Nor when two or more options read no column and one of them is not a
// constant (a stable cast: text to bigint of a date's text): the parser
// puts those options in one array (transformAExprIn), a
// ScalarArrayOpExpr that eval_const_expressions folds only when every
// argument is constant, so its array is evaluated when the qual runs and
// a cast in it raises though the value is NULL (seed 20261222 case
// 25282). Options that read a column are each NULL = x, a strict
// operator PostgreSQL folds to NULL, and so is a lone option without
// columns. A column of an enclosing query (an outer reference in a
// LATERAL or correlated subquery) is no column here: PostgreSQL puts
// such an option in the array too, evaluated at run time (NULL IN (-0 /
// a.k, 1 - 42, ...) raises division by zero per row; seed 20261233 case
// 120222).
func nullInList(value expr.Expression, options []expr.Expression) (expr.Expression, bool) {
	if !isNullConst(value) {
		return nil, false
	}
	arrayed, varying := 0, false
	for _, o := range options {
		if readsOwnColumn(o) {
			continue
		}
		arrayed++
		if _, ok := literalOf(o); !ok {
			varying = true
		}
	}
	if arrayed >= 2 && varying {
		return nil, false
	}
	if !slices.ContainsFunc(options, unfoldedConstant) {
		return expr.NewNullLiteral(kindBool.Type(true)), true
	}
	return nil, false
}

// nullInSplit is NULL [NOT] IN (options) when some options read a column
// and the others stay an array nullInList leaves unfolded: PostgreSQL's
// parser takes the options that hold Vars out of the array as separate
// clauses (transformAExprIn: NULL = x OR NULL = ANY (ARRAY[...]), and
// NULL <> x AND NULL <> ALL (ARRAY[...]) for NOT IN), and
// eval_const_expressions folds each of those strict operators over the
// NULL constant to NULL. So NOT IN is (NULL <> ALL (array)) AND NULL,
// whose NULL conjunct in a WHERE is a gating qual that reads no row
// (gatingqual.go), and IN is (NULL = ANY (array)) OR NULL; the options
// with columns are never evaluated (difftest seed 20261224: NULL NOT IN
// (a stable cast, c1 / 0.1, another) overflowed on c1 where PostgreSQL's
// plan was a One-Time Filter: false). ok is false when nullInList's
// conditions for the array do not hold or no option reads a column.
//
// Nor when an option with a column holds a constant call that raises
// (power(-2.25, -548.2) / g): eval_const_expressions simplifies the
// operator's arguments bottom-up before it folds the strict operator
// over the NULL, so the constant is evaluated and raises while planning
// (difftest seed 20261229 case 157247); the list is then kept whole and
// raiseConstants raises its error.
func (l *lowerer) nullInSplit(value expr.Expression, options []expr.Expression, negate bool, loc int32) (expr.Expression, bool, error) {
	if !isNullConst(value) {
		return nil, false, nil
	}
	var arrayed []expr.Expression
	columns := false
	for _, o := range options {
		if readsOwnColumn(o) {
			if unfoldedConstant(o) {
				return nil, false, nil
			}
			columns = true
			continue
		}
		arrayed = append(arrayed, o)
	}
	if !columns || len(arrayed) < 2 {
		return nil, false, nil
	}
	null := expr.NewNullLiteral(kindBool.Type(true))
	var e expr.Expression = &expr.SingularOrList{Value: value, Options: arrayed}
	var err error
	if negate {
		if e, err = l.call(urnBoolean, "not", loc, e); err != nil {
			return nil, false, err
		}
		e, err = l.call(urnBoolean, "and", loc, e, null)
	} else {
		e, err = l.call(urnBoolean, "or", loc, e, null)
	}
	return e, err == nil, err
}

// nullSingleton folds x [NOT] IN (NULL), a list of one NULL constant, to
// NULL: PostgreSQL's parser writes a list of one item without columns as
// x = item (x <> item for NOT IN; transformAExprIn builds an array only
// for two or more), a strict operator that eval_const_expressions folds
// to NULL over a NULL constant, so a CASE arm it decides drops out while
// planning (difftest seed 20261221 case 46747). x is simplified first: a
// constant in it that raises is left to raise.
func nullSingleton(value expr.Expression, options []expr.Expression) (expr.Expression, bool) {
	if len(options) == 1 && isNullConst(options[0]) && !unfoldedConstant(value) {
		return expr.NewNullLiteral(kindBool.Type(true)), true
	}
	return nil, false
}

// constantInList is x IN (a, b, ...) of constants evaluated (plan.EvalConst):
// PostgreSQL folds the ScalarArrayOpExpr over a constant array to its
// value while planning, so a CASE arm it decides drops out before the
// arm's result is evaluated (CASE WHEN 'abcd' IN ('x', ' ') THEN 1/0 ...
// never divides; seed 20261208 case 497). ok is false when an operand is
// not a constant or the evaluation fails (then it runs per row).
func constantInList(in *expr.SingularOrList) (expr.Expression, bool) {
	if _, ok := literalOf(in.Value); !ok {
		return nil, false
	}
	for _, o := range in.Options {
		if _, ok := literalOf(o); !ok {
			return nil, false
		}
	}
	lit, ok, err := evalConst(in)
	return lit, ok && err == nil
}

// constFalse: e is a constant that keeps no row as a filter (FALSE or
// NULL).
func constFalse(e expr.Expression) bool {
	if isNullConst(e) {
		return true
	}
	v, ok := boolConst(e)
	return ok && !v
}

// unfoldedConstant: e holds a call or cast over constants that raises
// when evaluated (32767::int2 * 2::int2 overflows): PostgreSQL simplifies
// arguments first and raises there while planning, even beside a NULL,
// so such a call is not folded to NULL but left to raise.
func unfoldedConstant(e expr.Expression) bool {
	return raisingConstant(e) != nil
}

// raisingConstant is the error of the first call or cast over constants
// in e that raises when evaluated (the lowering folded most of the others
// to their values: foldCall); nil when there is none. A call over calls
// over constants is one too (division by round(0.00, 2)). Casts between
// text and date or timestamp are not constants: their input and output
// functions are stable in PostgreSQL, which evaluates them per row, not
// while planning.
func raisingConstant(e expr.Expression) error {
	var err error
	var constant func(expr.Expression) bool
	constant = func(e expr.Expression) bool {
		if _, ok := literalOf(e); ok {
			return true
		}
		all := true
		e.Visit(func(c expr.Expression) expr.Expression {
			if err == nil && !constant(c) {
				all = false
			}
			return c
		})
		switch e.(type) {
		case *expr.ScalarFunction, *expr.Cast:
		default:
			return false
		}
		if err != nil || !all || stableCast(e) {
			return false
		}
		_, ok, eerr := evalConst(e)
		if eerr != nil {
			err = eerr
		}
		return ok && eerr == nil
	}
	constant(e)
	return err
}

// raiseConstants is the error PostgreSQL raises planning the statement
// whose plan is root: that of a constant in any of its expressions that
// raises (raisingConstant), in every part of the plan, also one no row
// reaches. nil when there is none.
func raiseConstants(root plan.Rel) error {
	seen := map[plan.Rel]bool{}
	var walk func(r plan.Rel) error
	walk = func(r plan.Rel) error {
		if r == nil || seen[r] {
			return nil
		}
		seen[r] = true
		for _, in := range r.GetInputs() {
			if err := walk(in); err != nil {
				return err
			}
		}
		_, err := r.CopyWithExpressionRewrite(func(e expr.Expression) (expr.Expression, error) {
			if e == nil { // a read's absent filter
				return e, nil
			}
			if err := raisingConstant(e); err != nil {
				return e, err
			}
			// An EXISTS or IN subquery's relations are planned with
			// the statement (subqueryRels).
			for _, s := range subqueryRels(e) {
				if err := walk(s); err != nil {
					return e, err
				}
			}
			return e, nil
		}, r.GetInputs()...)
		return err
	}
	return walk(root)
}

// constantArgs: e is a call or cast whose arguments are all constants.
func constantArgs(e expr.Expression) bool {
	if _, ok := literalOf(e); ok {
		return false // a literal, also one spelled as a cast (newLiteral)
	}
	switch x := e.(type) {
	case *expr.ScalarFunction:
		for i := 0; i < x.NArgs(); i++ {
			if a, ok := x.Arg(i).(expr.Expression); ok {
				if _, ok := literalOf(a); !ok {
					return false
				}
			}
		}
		return true
	case *expr.Cast:
		_, ok := literalOf(x.Input)
		return ok
	}
	return false
}

// stableCast: e is a cast between text and a date or timestamp.
func stableCast(e expr.Expression) bool {
	c, ok := e.(*expr.Cast)
	if !ok {
		return false
	}
	from, to := kindOf(c.Input.GetType()), kindOf(c.Type)
	return from.Stringy() && to.Datetime() || from.Datetime() && to.Stringy()
}

// evalConst evaluates e, a call or cast over constants, with the
// executor (plan.EvalConst). ok is false when it cannot be evaluated
// here or its value has no literal of e's type; else lit is its value or
// err the error evaluating it raised.
func evalConst(e expr.Expression) (lit expr.Expression, ok bool, err error) {
	v, ok, err := planner.EvalConst(context.Background(), memory.DefaultAllocator, e)
	if !ok || err != nil {
		return nil, ok, err
	}
	defer v.Release()
	lit, ok = arrowLiteral(v, e.GetType())
	return lit, ok, nil
}

// arrowLiteral is the literal of type t holding a's one value; ok is
// false for a type the front end has no literal of. A character(n) value
// is padded to n characters, the literal's own form (newLiteral), so
// that a call over char(n) constants folds as PostgreSQL folds it:
// CAST(CAST(nullif(CAST('abc ' AS CHAR(4)), ...) AS TEXT) AS DOUBLE
// PRECISION) raises while planning (difftest seed 20261228 case 113155).
func arrowLiteral(a arrow.Array, t types.Type) (expr.Expression, bool) {
	k := kindOf(t)
	if k == kindUnknown || a.Len() != 1 {
		return nil, false
	}
	if a.IsNull(0) {
		return expr.NewNullLiteral(k.Type(true)), true
	}
	var v any
	switch x := a.(type) {
	case *array.Int16, *array.Int32, *array.Int64, *array.Float32, *array.Float64,
		*array.Boolean, *array.String, *array.LargeString:
		// The Go value a literal holds as is (int16 ... string).
		v = x.(interface{ ValueAsAny(int) any }).ValueAsAny(0)
	case *array.Date32:
		v = dateLit(x.Value(0))
	case *array.Timestamp:
		if x.DataType().(*arrow.TimestampType).Unit != arrow.Microsecond {
			return nil, false
		}
		v = tsLit(x.Value(0))
	case *array.Decimal128:
		// The plan's type is the call's, which may be wider than the
		// kernel's result (round of numeric(8,2) is numeric(9,2)): the
		// same number, at the same scale.
		if dt := x.DataType().(*arrow.Decimal128Type); dt.Scale != k.S || !x.Value(0).FitsInPrecision(k.N) {
			return nil, false
		}
		v = decLit{v: x.Value(0), p: k.N, s: k.S}
	default:
		return nil, false
	}
	if s, isStr := v.(string); isStr && k.ID == idVarchar && k.N > 0 {
		v = varcharLit{s: s, n: k.N}
	}
	if s, isStr := v.(string); isStr && k.ID == idChar {
		v = charLit{s: sqlvalue.CharCast{Len: int(k.N), Pad: true}.Truncate(s), n: k.N}
	}
	lit := newLiteral(v, isNullable(t))
	if lit == nil || kindOf(lit.GetType()) != k {
		return nil, false
	}
	return lit, true
}
