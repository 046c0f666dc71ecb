package plan

import (
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// The scalar-expression functions of the standard extensions (strings,
// NULL handling, rounding, the rest of arithmetic) and CASE (IfThen),
// planned onto exec's expressions. One table, exprFuncs, keyed by the
// Substrait function name; each entry checks its arguments and options
// and builds the exec expression. A function option the engine does not
// implement (like's CASE_INSENSITIVE_ASCII, substring's WRAP_FROM_END) is
// an unsupported-function error naming the option, never a silent other
// semantics.

// exprFn plans one call: f for its options, args already planned.
type exprFn func(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error)

var exprFuncs = map[string]exprFn{
	"like":                 planLike,
	"concat":               planConcat,
	"substring":            planSubstring,
	"strpos":               strFunc("strpos", 2, 2),
	"replace":              strFunc("replace", 3, 3),
	"lower":                caseMap("lower"),
	"upper":                caseMap("upper"),
	"char_length":          strFunc("char_length", 1, 1),
	"trim":                 strFunc("btrim", 1, 2),
	"ltrim":                strFunc("ltrim", 1, 2),
	"rtrim":                strFunc("rtrim", 1, 2),
	"rpad":                 strFunc("rpad", 3, 3),
	"octet_length":         strFunc("octet_length", 1, 1),
	"is_distinct_from":     planDistinct(false),
	"is_not_distinct_from": planDistinct(true),
	"nullif":               planNullIf,
	"coalesce":             planCoalesce,
	"greatest_skip_null":   planMinMax(true),
	"least_skip_null":      planMinMax(false),
	"between":              planBetween,
	"ceil":                 decimalOr(physexpr.RoundCeil, floatFunc("ceil")),
	"floor":                decimalOr(physexpr.RoundFloor, floatFunc("floor")),
	"round":                planRound,
	"abs":                  planAbs,
	"power":                planPower,
	"sqrt":                 floatFunc("sqrt"),
}

// isExprFunc: the planner has name, in exprFuncs or as a plain function
// of physexpr's registry (plainFunc).
func isExprFunc(name string) bool {
	_, ok := exprFuncs[name]
	return ok || physexpr.HasFunc(name)
}

// plainFunc plans a call of a function physexpr registers under its
// Substrait name that needs nothing of the planner: no options, its
// arguments as they are (the kernel's type rule checks their number and
// types). A new function of that kind is added in three places (the
// kernel, its Substrait declaration, its SQL name) and none here: see
// docs/architecture.md, "Add a scalar function".
func plainFunc(name string) exprFn {
	return func(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
		if opts := f.GetOptions(); len(opts) > 0 {
			return nil, fmt.Errorf("%w: %s with option %s", errUnsupported("function"), funcName(f), opts[0].Name)
		}
		return checked(physexpr.Func{Name: name, Args: args}, sc)
	}
}

func nargs(f *expr.ScalarFunction, args []physexpr.Expr, lo, hi int) error {
	if len(args) < lo || len(args) > hi {
		return fmt.Errorf("%w: %s takes %d to %d arguments, got %d", ErrInvalidPlan, funcName(f), lo, hi, len(args))
	}
	return nil
}

// option is the first preference of f's option name ("" when absent).
func option(f *expr.ScalarFunction, name string) string {
	if v := f.GetOption(name); len(v) > 0 {
		return v[0]
	}
	return ""
}

// onlyOptions refuses option values other than allowed ("" is absent).
func onlyOptions(f *expr.ScalarFunction, name string, allowed ...string) error {
	v := option(f, name)
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%w: %s with %s %s", errUnsupported("function"), funcName(f), name, v)
}

func strFunc(name string, lo, hi int) exprFn {
	return func(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
		if err := nargs(f, args, lo, hi); err != nil {
			return nil, err
		}
		return checked(physexpr.Func{Name: name, Args: args}, sc)
	}
}

func caseMap(name string) exprFn {
	return func(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
		if err := onlyOptions(f, "char_set", "", "UTF8"); err != nil {
			return nil, err
		}
		return strFunc(name, 1, 1)(p, f, args, sc)
	}
}

// floatFunc is a double precision function; integer arguments are
// converted as PostgreSQL's implicit cast to double precision does.
func floatFunc(name string) exprFn {
	return func(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
		if err := nargs(f, args, 1, 1); err != nil {
			return nil, err
		}
		if err := onlyOptions(f, "on_domain_error", "", "ERROR"); err != nil {
			return nil, err
		}
		x, err := asFloat(args[0], sc)
		if err != nil {
			return nil, err
		}
		return checked(physexpr.Func{Name: name, Args: []physexpr.Expr{x}}, sc)
	}
}

func asFloat(e physexpr.Expr, sc scope) (physexpr.Expr, error) {
	t, err := typeOf(e, sc)
	if err != nil {
		return nil, err
	}
	if isSignedInt(t) || t.ID() == arrow.UINT64 || t.ID() == arrow.FLOAT32 {
		return castTo(e, t, arrow.PrimitiveTypes.Float64), nil
	}
	return e, nil
}

// checked binds e once to report a type error as a bad plan. It returns e
// as an physexpr.Memo that keeps that binding for the node above (see expr).
func checked(e physexpr.Expr, sc scope) (physexpr.Expr, error) {
	m := physexpr.NewMemo(e)
	if _, err := m.DataType(sc.schema()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	return m, nil
}

// planLike: like(input, match), CASE_INSENSITIVE for ILIKE. The pattern
// reads '\' as its escape, as PostgreSQL's LIKE without ESCAPE.
func planLike(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
	if err := nargs(f, args, 2, 2); err != nil {
		return nil, err
	}
	if err := onlyOptions(f, "case_sensitivity", "", "CASE_SENSITIVE", "CASE_INSENSITIVE"); err != nil {
		return nil, err
	}
	return checked(physexpr.Like{E: args[0], Pattern: args[1], CaseInsensitive: option(f, "case_sensitivity") == "CASE_INSENSITIVE"}, sc)
}

// planConcat: concat is strict (NULL in, NULL out) unless IGNORE_NULLS,
// which the engine does not implement.
func planConcat(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
	if err := onlyOptions(f, "null_handling", "", "ACCEPT_NULLS"); err != nil {
		return nil, err
	}
	if len(args) == 1 {
		return checked(args[0], sc)
	}
	return checked(physexpr.Func{Name: "textcat", Args: args}, sc)
}

// planSubstring: positions before the first character count, as in
// PostgreSQL (LEFT_OF_BEGINNING).
func planSubstring(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
	if err := nargs(f, args, 2, 3); err != nil {
		return nil, err
	}
	if err := onlyOptions(f, "negative_start", "", "LEFT_OF_BEGINNING"); err != nil {
		return nil, err
	}
	return checked(physexpr.Func{Name: "substr", Args: args}, sc)
}

// unifyAll brings args to one type: each argument in turn is unified
// with every one before it, in order.
//
// While the arguments before i all have one type (known, so nothing is
// bound again), an argument of that type changes nothing and is passed
// in constant time; only one of another type runs the pairwise loop. A
// list of one type (a CASE of 25,000 integer arms) is linear, and a
// mixed one costs a pass per change of the common type, which can only
// widen a few times. The result is the pairwise loop's, node for node.
func unifyAll(args []physexpr.Expr, sc scope) ([]physexpr.Expr, error) {
	out := append([]physexpr.Expr(nil), args...)
	var common arrow.DataType // the type of all of out[:i], nil when not known to be one
	if len(out) > 1 {
		common = sameType(out[:1], sc)
	}
	for i := 1; i < len(out); i++ {
		if common != nil {
			t, err := typeOf(out[i], sc)
			if err != nil {
				return nil, err
			}
			if arrow.TypeEqual(common, t) {
				continue
			}
		}
		for j := 0; j < i; j++ {
			lt, err := typeOf(out[j], sc)
			if err != nil {
				return nil, err
			}
			rt, err := typeOf(out[i], sc)
			if err != nil {
				return nil, err
			}
			if arrow.TypeEqual(lt, rt) {
				continue
			}
			if out[j], out[i], _, err = unify(out[j], out[i], lt, rt); err != nil {
				return nil, err
			}
		}
		common = sameType(out[:i+1], sc)
	}
	return out, nil
}

// sameType is the type all of es have, or nil when they differ or one has
// none (the pairwise loop then reports that error where it always has).
func sameType(es []physexpr.Expr, sc scope) arrow.DataType {
	var t arrow.DataType
	for _, e := range es {
		et, err := typeOf(e, sc)
		if err != nil || t != nil && !arrow.TypeEqual(t, et) {
			return nil
		}
		t = et
	}
	return t
}

func planDistinct(not bool) exprFn {
	return func(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
		if err := nargs(f, args, 2, 2); err != nil {
			return nil, err
		}
		u, err := unifyAll(args, sc)
		if err != nil {
			return nil, err
		}
		return checked(physexpr.Distinct{A: u[0], B: u[1], Not: not}, sc)
	}
}

func planNullIf(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
	if err := nargs(f, args, 2, 2); err != nil {
		return nil, err
	}
	u, err := unifyAll(args, sc)
	if err != nil {
		return nil, err
	}
	return checked(physexpr.NullIf{A: u[0], B: u[1]}, sc)
}

func planCoalesce(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
	if err := nargs(f, args, 1, 1<<16); err != nil {
		return nil, err
	}
	u, err := unifyAll(args, sc)
	if err != nil {
		return nil, err
	}
	return checked(physexpr.Coalesce{Args: u}, sc)
}

// planMinMax: greatest_skip_null and least_skip_null, PostgreSQL's
// GREATEST and LEAST (NULLs skipped); the strict greatest and least of
// the YAML are not planned.
func planMinMax(greatest bool) exprFn {
	return func(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
		if err := nargs(f, args, 1, 1<<16); err != nil {
			return nil, err
		}
		u, err := unifyAll(args, sc)
		if err != nil {
			return nil, err
		}
		return checked(physexpr.MinMax{Greatest: greatest, Args: u}, sc)
	}
}

// planBetween: x >= lo AND x <= hi.
func planBetween(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
	if err := nargs(f, args, 3, 3); err != nil {
		return nil, err
	}
	lo, err := p.binary(physexpr.OpGe, args[0], args[1], sc)
	if err != nil {
		return nil, err
	}
	hi, err := p.binary(physexpr.OpLe, args[0], args[2], sc)
	if err != nil {
		return nil, err
	}
	return physexpr.Binary{Op: physexpr.OpAnd, L: lo, R: hi}, nil
}

// planRound: round(x, s). A decimal x is rounded exactly (TIE_AWAY_FROM_ZERO
// is PostgreSQL's numeric_round, TRUNCATE its numeric_trunc) to the
// literal s places; a float x rounds to 0 places only, half to even
// (PostgreSQL's round(double precision), rint) or toward zero (TRUNCATE,
// its trunc); an integer x with 0 places is returned as it is.
func planRound(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
	if err := nargs(f, args, 1, 2); err != nil {
		return nil, err
	}
	t, err := typeOf(args[0], sc)
	if err != nil {
		return nil, err
	}
	if t.ID() == arrow.DECIMAL128 {
		if err := onlyOptions(f, "rounding", "TIE_AWAY_FROM_ZERO", "TRUNCATE"); err != nil {
			return nil, err
		}
		mode := physexpr.RoundHalfAway
		if option(f, "rounding") == "TRUNCATE" {
			mode = physexpr.RoundTrunc
		}
		digits := int64(0)
		if len(args) == 2 {
			l, ok := args[1].(physexpr.Lit)
			n, isInt := intValue(l.Value)
			if !ok || !isInt {
				return nil, fmt.Errorf("%w: round of a decimal to %s places (the places must be a literal)", errUnsupported("function"), args[1])
			}
			digits = n
		}
		return planDecimalRound(f, args[0], t, digits, mode, sc)
	}
	if err := onlyOptions(f, "rounding", "", "TIE_TO_EVEN", "TRUNCATE"); err != nil {
		return nil, err
	}
	if len(args) == 2 {
		l, ok := args[1].(physexpr.Lit)
		if !ok || !isZero(l.Value) {
			return nil, fmt.Errorf("%w: round to %s decimal places", errUnsupported("function"), args[1])
		}
	}
	if isSignedInt(t) {
		return args[0], nil
	}
	name := "round"
	if option(f, "rounding") == "TRUNCATE" {
		name = "trunc"
	}
	return checked(physexpr.Func{Name: name, Args: args[:1]}, sc)
}

// decimalOr plans floor and ceil: exact for a decimal (PostgreSQL's
// numeric_floor and numeric_ceil, scale 0), else float's.
func decimalOr(mode physexpr.RoundMode, float exprFn) exprFn {
	return func(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
		if len(args) == 1 {
			t, err := typeOf(args[0], sc)
			if err != nil {
				return nil, err
			}
			if t.ID() == arrow.DECIMAL128 {
				return planDecimalRound(f, args[0], t, 0, mode, sc)
			}
		}
		return float(p, f, args, sc)
	}
}

// planDecimalRound rounds x of decimal type t to digits places. The
// result has scale max(digits, 0), PostgreSQL's; a declared output type
// of another scale or precision (the YAML keeps the input's scale) gets
// the value by a cast, exact or "numeric field overflow".
func planDecimalRound(f *expr.ScalarFunction, x physexpr.Expr, t arrow.DataType, digits int64, mode physexpr.RoundMode, sc scope) (physexpr.Expr, error) {
	if digits > physexpr.MaxDecimalPrecision || digits < -1000 {
		return nil, fmt.Errorf("%w: rounding a decimal to %d places", errUnsupported("function"), digits)
	}
	in := t.(*arrow.Decimal128Type)
	scale := physexpr.DecimalRoundScale(int32(digits))
	to := &arrow.Decimal128Type{Precision: min(max(in.Precision-in.Scale+1+scale, 1), physexpr.MaxDecimalPrecision), Scale: scale}
	e, err := checked(physexpr.DecimalRound{E: x, Digits: int32(digits), Mode: mode, To: to}, sc)
	if err != nil {
		return nil, err
	}
	out, err := arrowType(f.GetType())
	if err != nil {
		return nil, err
	}
	if out.ID() != arrow.DECIMAL128 {
		return nil, fmt.Errorf("%w: %s of a decimal returning %s", ErrInvalidPlan, funcName(f), out)
	}
	return castTo(e, to, out), nil
}

// intValue reads an integer literal's value.
func intValue(v any) (int64, bool) {
	switch v := v.(type) {
	case int8:
		return int64(v), true
	case int16:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

func isZero(v any) bool {
	switch v := v.(type) {
	case int8:
		return v == 0
	case int16:
		return v == 0
	case int32:
		return v == 0
	case int64:
		return v == 0
	}
	return false
}

func planAbs(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
	if err := nargs(f, args, 1, 1); err != nil {
		return nil, err
	}
	if err := onlyOptions(f, "overflow", "", "ERROR"); err != nil {
		return nil, err
	}
	return checked(physexpr.Func{Name: "abs", Args: args}, sc)
}

// planPower: power of doubles (integer powers of integers, which
// PostgreSQL lacks, are refused).
func planPower(p *planner, f *expr.ScalarFunction, args []physexpr.Expr, sc scope) (physexpr.Expr, error) {
	if err := nargs(f, args, 2, 2); err != nil {
		return nil, err
	}
	for _, a := range args {
		t, err := typeOf(a, sc)
		if err != nil {
			return nil, err
		}
		if !isFloat(t) {
			return nil, fmt.Errorf("%w: power of %s", errUnsupported("function"), t)
		}
	}
	return checked(physexpr.Func{Name: "power", Args: args}, sc)
}

// ifThen plans CASE: IfThen's clauses in order, its else last.
func (p *planner) ifThen(e *expr.IfThen, sc scope) (physexpr.Expr, error) {
	c := physexpr.Case{}
	var vals []physexpr.Expr
	for i := 0; i < e.NIfs(); i++ {
		pair := e.IfPair(i)
		cond, err := p.expr(pair.If, sc)
		if err != nil {
			return nil, err
		}
		then, err := p.expr(pair.Then, sc)
		if err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, physexpr.When{Cond: cond})
		vals = append(vals, then)
	}
	if e.Else() != nil {
		els, err := p.expr(e.Else(), sc)
		if err != nil {
			return nil, err
		}
		vals = append(vals, els)
	}
	u, err := unifyAll(vals, sc)
	if err != nil {
		return nil, err
	}
	for i := range c.Whens {
		c.Whens[i].Then = u[i]
	}
	if len(u) > len(c.Whens) {
		c.Else = u[len(c.Whens)]
	}
	return checked(c, sc)
}
