package sql

import (
	"slices"

	"github.com/substrait-io/substrait-go/v8/expr"
)

// Constant folding as PostgreSQL's planner does it (eval_const_expressions),
// for the shapes whose run-time evaluation could raise where PostgreSQL's
// plan never evaluates anything: a strict function or operator with a NULL
// constant argument is that NULL (a / 0 = NULL is NULL, and a / 0 is never
// computed), NULL IN (...) is NULL, IS [NOT] NULL of a constant is its
// answer, and AND/OR drop constant TRUE/FALSE operands or are decided by
// one. A HAVING that folds to FALSE or NULL also keeps the aggregates from
// seeing a row (groupby.go), as PostgreSQL's one-time filter does.

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
	return expr.NewNullLiteral(kindOf(e.GetType()).typ(true))
}

// foldCall folds the call f = name(args...) where its arguments decide
// it; f itself otherwise.
func foldCall(name string, f expr.Expression, args []expr.Expression) expr.Expression {
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
		if len(args) == 2 && isNullConst(args[0]) {
			return nullOf(f) // NULLIF(NULL, x) is NULL
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

// pruneBool drops the constant operands of AND (TRUE) and OR (FALSE);
// decided is set when one decides it (FALSE, TRUE) or none is left. NULL
// constants stay (NULL AND x is NULL or FALSE).
func pruneBool(name string, args []expr.Expression) (decided expr.Expression, rest []expr.Expression) {
	if name != "and" && name != "or" {
		return nil, args
	}
	decide := name == "or"
	for _, a := range args {
		v, ok := boolConst(a)
		switch {
		case ok && v == decide:
			return expr.NewPrimitiveLiteral(decide, false), nil
		case !ok:
			rest = append(rest, a)
		}
	}
	switch len(rest) {
	case 0:
		return expr.NewPrimitiveLiteral(!decide, false), nil
	case 1:
		return rest[0], nil
	}
	return nil, rest
}

// nullInList folds value IN (options) with a NULL constant value: NULL,
// as PostgreSQL's NULL = a OR NULL = b folds, unless an option is a
// constant call that raises (NULL IN (sqrt(-1e300), ...)): PostgreSQL
// simplifies it first and raises while planning, so it is left to raise.
func nullInList(value expr.Expression, options []expr.Expression) (expr.Expression, bool) {
	if isNullConst(value) && !slices.ContainsFunc(options, unfoldedConstant) {
		return expr.NewNullLiteral(kindBool.typ(true)), true
	}
	return nil, false
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

// unfoldedConstant: e holds a call or cast over constants only that the
// lowering did not fold, which is one that raises (32767::int2 *
// 2::int2 overflows): PostgreSQL simplifies arguments first and raises
// there while planning, even beside a NULL, so such a call is not folded
// to NULL but left to raise at run time as it did.
func unfoldedConstant(e expr.Expression) bool {
	if _, ok := literalOf(e); ok {
		return false // a literal, also one spelled as a cast (newLiteral)
	}
	var args []expr.Expression
	switch x := e.(type) {
	case *expr.ScalarFunction:
		for i := 0; i < x.NArgs(); i++ {
			if a, ok := x.Arg(i).(expr.Expression); ok {
				args = append(args, a)
			}
		}
	case *expr.Cast:
		args = []expr.Expression{x.Input}
	case *expr.IfThen, *expr.SingularOrList:
		return false
	default:
		return false
	}
	allConst := true
	for _, a := range args {
		if unfoldedConstant(a) {
			return true
		}
		if _, ok := literalOf(a); !ok {
			allConst = false
		}
	}
	return allConst && len(args) > 0
}
