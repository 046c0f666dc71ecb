package sql

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stablerow/stablerow/internal/substraitfn"
	sqlvalue "github.com/stablerow/stablerow/value"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// numericArith lowers + - * with a numeric operand (and no float, which
// makes the whole double precision): integers become the numeric that
// holds them exactly, an untyped string the numeric of its digits, and
// each operand keeps its own scale; the result is exact (numeric(p1, s1)
// + numeric(p2, s2) has scale max(s1, s2), * has s1 + s2, as PostgreSQL
// computes them; % has max(s1, s2), numeric_mod's). / is
// numeric(38, max(s1, s2, 20)), each value rounded where PostgreSQL's
// select_div_scale rounds it (exec/physexpr/numdiv.go). ok is false when no
// operand is numeric.
func (l *lowerer) numericArith(op string, lv, rv value, loc int32) (value, bool, error) {
	lk, rk := lv.kind(), rv.kind()
	if lk.ID != idNumeric && rk.ID != idNumeric || lk.Float() && lv.num == "" || rk.Float() && rv.num == "" {
		return value{}, false, nil
	}
	operand := func(v, other value) (expr.Expression, error) {
		k := v.kind()
		switch {
		case v.num != "":
			return l.parseLiteral(v.num, numericLiteralKind(v.num), v.loc) // 1.5 is numeric(2,1)
		case v.how == untypedString:
			k = numericLiteralKind(v.str)
		case v.how != typed:
			k = other.kind()
		case k.Integer():
			k = k.AsNumeric()
		case k.ID != idNumeric:
			return nil, fmt.Errorf("%w: operator does not exist: %s %s %s%s", ErrType, l.describeKind(lv), op, l.describeKind(rv), l.src.at(loc))
		}
		if v.how != typed {
			return l.coerce(v, k)
		}
		return l.cast(v.e, k, false, v.loc)
	}
	a, err := operand(lv, rv)
	if err != nil {
		return value{}, true, err
	}
	b, err := operand(rv, lv)
	if err != nil {
		return value{}, true, err
	}
	e, err := l.call(urnArithmetic, arithmetic[op], loc, a, b)
	return value{e: e, loc: loc}, true, err
}

// negateNumeric is -x for a numeric x: x * -1, which keeps x's scale.
func (l *lowerer) negateNumeric(e expr.Expression, loc int32) (expr.Expression, error) {
	return l.call(urnArithmetic, "multiply", loc, e, newLiteral(decLit{v: decimal128.FromI64(-1), p: 1, s: 0}, false))
}

// numericLiteralKind is the numeric an untyped string like '12.50' reads
// as beside a numeric: exactly its digits.
func numericLiteralKind(s string) kind {
	t := strings.TrimLeft(strings.Trim(s, " \t\n\r"), "+-")
	intPart, frac, _ := strings.Cut(t, ".")
	intPart = strings.TrimLeft(intPart, "0")
	return kindNumeric(max(int32(len(intPart)+len(frac)), 1), int32(len(frac)))
}

// numericRounding lowers round(x [, n]), trunc(x [, n]), floor(x) and
// ceil(x) of a numeric x (a numeric column or expression, or a decimal
// constant such as 2.5, which PostgreSQL reads as numeric: round(2.5) is
// 3, half away from zero, where round of double precision gives 2):
// PostgreSQL's numeric_round, numeric_trunc, numeric_floor and
// numeric_ceil, exact, with result scale max(n, 0) (0 for floor and
// ceil). n must be a constant, since it is the result's scale. ok is
// false when x is not numeric.
func (l *lowerer) numericRounding(name string, f *pg_query.FuncCall, args []value) (expr.Expression, bool, error) {
	v := args[0]
	var x expr.Expression
	var k kind
	switch {
	case v.num != "":
		k = numericLiteralKind(v.num)
		e, err := l.parseLiteral(v.num, k, v.loc)
		if err != nil {
			return nil, true, err
		}
		x = e
	case v.how == typed && v.kind().ID == idNumeric:
		x, k = v.e, v.kind()
	case v.how == typed && v.kind().Integer() && len(args) == 2:
		// round(5, 1): only numeric's round takes places, and an
		// integer converts to numeric implicitly (5.0).
		k = v.kind().AsNumeric()
		e, err := l.cast(v.e, k, false, v.loc)
		if err != nil {
			return nil, true, err
		}
		x = e
	default:
		return nil, false, nil
	}
	n := int64(0)
	if len(args) == 2 {
		e, err := l.coerce(args[1], kindI64)
		if err != nil {
			return nil, true, err
		}
		lit, ok := literalOf(e)
		if !ok {
			return nil, true, fmt.Errorf("%w: %s(numeric, n) with n not a constant (n is the result's scale)%s", ErrUnsupported, name, l.src.at(f.Location))
		}
		if lit == nil {
			return expr.NewNullLiteral(kindNumeric(k.N, 0).Type(true)), true, nil // strict: NULL places, NULL result
		}
		n = lit.(int64)
	}
	if n > sqlvalue.MaxDecimalPrecision || n < -1000 {
		return nil, true, fmt.Errorf("%w: %s to %d places (the scale of a numeric here is at most %d)%s", ErrUnsupported, name, n, sqlvalue.MaxDecimalPrecision, l.src.at(f.Location))
	}
	// Integer digits: the input's, one more where rounding away from
	// zero can carry into a new digit (9.95 to 10.0).
	scale := sqlvalue.DecimalRoundScale(int32(n))
	grow := int32(1)
	if name == "trunc" {
		grow = 0
	}
	out := kindNumeric(min(max(k.N-k.S+grow+scale, 1), sqlvalue.MaxDecimalPrecision), scale).Type(false)
	var opts []substraitfn.Option
	fargs := []expr.Expression{x}
	fn := name
	switch name {
	case "round", "trunc":
		mode := "TIE_AWAY_FROM_ZERO"
		if name == "trunc" {
			mode = "TRUNCATE"
		}
		fn, opts = "round", []substraitfn.Option{{Name: "rounding", Prefs: []string{mode}}}
		fargs = append(fargs, expr.NewPrimitiveLiteral(int32(n), false))
	}
	e, err := substraitfn.DecimalRounding(l.b.GetExprBuilder().Reg, fn, opts, out, fargs...)
	if err != nil {
		return nil, true, fmt.Errorf("%w: %s: %w%s", ErrType, name, err, l.src.at(f.Location))
	}
	// numeric_round and the others are immutable: PostgreSQL's
	// eval_const_expressions replaces a call over constants by its value,
	// so round(123456.78, 2) - 2147483647 is a constant, and an
	// assignment cast over it folds too (constfold.go).
	return foldCall(fn, e, fargs), true, nil
}

// roundingFn is round, trunc, floor or ceil: numeric's when the argument
// is numeric, else float's (float, when non-nil, lowers that case).
func roundingFn(name string, float func(*lowerer, *pg_query.FuncCall, []value) (expr.Expression, error)) func(*lowerer, *pg_query.FuncCall, []value) (expr.Expression, error) {
	return func(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
		e, ok, err := l.numericRounding(name, f, args)
		if ok || err != nil {
			return e, err
		}
		return float(l, f, args)
	}
}
