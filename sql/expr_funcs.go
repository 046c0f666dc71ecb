package sql

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/stablerow/stablerow/internal/suggest"
	sqlvalue "github.com/stablerow/stablerow/value"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
)

// The scalar expressions of issue 18 in the SQL front end: CASE,
// COALESCE, NULLIF, IS [NOT] DISTINCT FROM, LIKE/ILIKE [ESCAPE], ||, and
// the string and math functions, lowered to the standard Substrait
// functions with PostgreSQL's argument types: text functions take text
// (lower(5) is an error, as in PostgreSQL), the float functions convert
// bigint to double precision as PostgreSQL's implicit cast does
// (round(5::bigint) is a double precision 5), and substring's positions
// are integers (i32 in Substrait).

const (
	urnString   = substraitfn.URNString
	urnRounding = substraitfn.URNRounding
)

// callOpts is call with function options.
func (l *lowerer) callOpts(urn, name string, loc int32, opts []substraitfn.Option, args ...expr.Expression) (expr.Expression, error) {
	f, err := substraitfn.Call(l.b.GetExprBuilder().Reg, urn, name, opts, args...)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w%s", ErrType, name, err, l.src.at(loc))
	}
	return foldCall(name, f, args), nil // constfold.go
}

// scalarFn is one SQL function: its argument count and its lowering.
type scalarFn struct {
	min, max int
	lower    func(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error)
}

// scalarFns are the functions by PostgreSQL name (pg_catalog. stripped;
// the SQL-standard forms TRIM(BOTH ... FROM ...), POSITION(a IN b) and
// SUBSTRING(s FROM a FOR b) arrive as btrim, position and substring).
var scalarFns = map[string]scalarFn{
	"lower":                 {1, 1, textFn(urnString, "lower")},
	"upper":                 {1, 1, textFn(urnString, "upper")},
	"reverse":               {1, 1, textFn(urnString, "reverse")},
	"starts_with":           {2, 2, textFn(urnString, "starts_with")},
	"length":                {1, 1, integerResult(textFn(urnString, "char_length"))},
	"char_length":           {1, 1, integerResult(textFn(urnString, "char_length"))},
	"character_length":      {1, 1, integerResult(textFn(urnString, "char_length"))},
	"octet_length":          {1, 1, integerResult(lowerOctetLength)},
	"rpad":                  {2, 3, lowerRpad},
	"concat":                {1, 100, lowerConcat},   // concat.go
	"concat_ws":             {2, 100, lowerConcatWS}, // concat.go
	"replace":               {3, 3, textFn(urnString, "replace")},
	"strpos":                {2, 2, integerResult(textFn(urnString, "strpos"))},
	"position":              {2, 2, integerResult(textFn(urnString, "strpos"))}, // position(sub IN s) arrives as position(s, sub)
	"btrim":                 {1, 2, trimFn("trim")},
	"ltrim":                 {1, 2, trimFn("ltrim")},
	"rtrim":                 {1, 2, trimFn("rtrim")},
	"substr":                {2, 3, lowerSubstring},
	"substring":             {2, 3, lowerSubstring},
	"abs":                   {1, 1, lowerAbs},
	"round":                 {1, 2, roundingFn("round", lowerRound)},
	"trunc":                 {1, 2, roundingFn("trunc", lowerTrunc)},
	"floor":                 {1, 1, roundingFn("floor", floatFn(urnRounding, "floor"))},
	"ceil":                  {1, 1, roundingFn("ceil", floatFn(urnRounding, "ceil"))},
	"ceiling":               {1, 1, roundingFn("ceil", floatFn(urnRounding, "ceil"))},
	"sqrt":                  {1, 1, floatFn(urnArithmetic, "sqrt")},
	"power":                 {2, 2, floatFn(urnArithmetic, "power")},
	"pow":                   {2, 2, floatFn(urnArithmetic, "power")},
	"mod":                   {2, 2, lowerMod},
	"extract":               {2, 2, lowerExtract(true)},
	"date_part":             {2, 2, lowerExtract(false)},
	"now":                   {0, 0, lowerNow}, // now.go
	"transaction_timestamp": {0, 0, lowerNow},
}

// functionNames lists the functions a call may name (scalar and
// aggregate), sorted, for a "did you mean" hint.
func functionNames() []string {
	names := make([]string, 0, len(scalarFns)+len(aggregateNames))
	for n := range scalarFns {
		names = append(names, n)
	}
	for n := range aggregateNames {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// scalarCall lowers a call of a non-aggregate function.
func (l *lowerer) scalarCall(f *pg_query.FuncCall, s *scope) (value, error) {
	name := funcName(f)
	fn, ok := scalarFns[name]
	if !ok {
		return value{}, fmt.Errorf("%w: function %s%s%s", ErrUnsupported, name, l.src.at(f.Location), suggest.Hint(name, functionNames()))
	}
	if f.AggStar || f.AggDistinct || len(f.AggOrder) > 0 || f.AggFilter != nil || f.Over != nil || f.FuncVariadic {
		return value{}, fmt.Errorf("%w: %s is not an aggregate or window function%s", ErrInvalid, name, l.src.at(f.Location))
	}
	if len(f.Args) < fn.min || len(f.Args) > fn.max {
		return value{}, fmt.Errorf("%w: function %s does not take %d arguments%s", ErrType, name, len(f.Args), l.src.at(f.Location))
	}
	args := make([]value, len(f.Args))
	for i, a := range f.Args {
		v, err := l.expr(a, s)
		if err != nil {
			return value{}, err
		}
		args[i] = v
	}
	e, err := fn.lower(l, f, args)
	return value{e: e, loc: f.Location, name: name}, err
}

// texts coerces every argument to text.
func (l *lowerer) texts(args []value) ([]expr.Expression, error) {
	out := make([]expr.Expression, len(args))
	for i, a := range args {
		e, err := l.coerce(a, kindString)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func textFn(urn, name string) func(*lowerer, *pg_query.FuncCall, []value) (expr.Expression, error) {
	return func(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
		es, err := l.texts(args)
		if err != nil {
			return nil, err
		}
		return l.callOpts(urn, name, f.Location, nil, es...)
	}
}

// integerResult is a function whose Substrait declaration returns i64
// where PostgreSQL's returns integer (length, char_length, octet_length,
// strpos, position: int4 in pg_proc), cast to i32, so that the arithmetic
// over it is integer arithmetic and overflows as PostgreSQL's does:
// x + coalesce(x, strpos(...)) of an integer x is integer, and
// -2147483648 + -2147483648 is "integer out of range" (difftest seed
// 20261228 case 6736). The value always fits: PostgreSQL's strings are
// under 1 GB.
func integerResult(lower func(*lowerer, *pg_query.FuncCall, []value) (expr.Expression, error)) func(*lowerer, *pg_query.FuncCall, []value) (expr.Expression, error) {
	return func(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
		e, err := lower(l, f, args)
		if err != nil {
			return nil, err
		}
		return l.cast(e, kindI32, true, f.Location)
	}
}

// trimFn: btrim/ltrim/rtrim(s [, chars]); Substrait's trim always takes
// the characters, ' ' by default.
func trimFn(name string) func(*lowerer, *pg_query.FuncCall, []value) (expr.Expression, error) {
	return func(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
		es, err := l.texts(args)
		if err != nil {
			return nil, err
		}
		if len(es) == 1 {
			es = append(es, expr.NewPrimitiveLiteral(" ", false))
		}
		return l.callOpts(urnString, name, f.Location, nil, es...)
	}
}

// int32Arg converts an integer argument to i32, PostgreSQL's integer: a
// literal at plan time, anything else by a checked cast ("integer out of
// range" at run time).
func (l *lowerer) int32Arg(v value) (expr.Expression, error) {
	e, err := l.coerce(v, kindI64)
	if err != nil {
		return nil, err
	}
	if lit, ok := literalOf(e); ok {
		if lit == nil {
			return expr.NewNullLiteral(&types.Int32Type{Nullability: types.NullabilityNullable}), nil
		}
		if n := lit.(int64); n >= math.MinInt32 && n <= math.MaxInt32 {
			return expr.NewPrimitiveLiteral(int32(n), false), nil
		}
		return nil, fmt.Errorf("%w: integer out of range%s", ErrType, l.src.at(v.loc))
	}
	return &expr.Cast{Type: &types.Int32Type{Nullability: nullability(isNullable(e.GetType()))}, Input: e, FailureBehavior: types.BehaviorThrowException}, nil
}

// lowerSubstring: substr(s, from [, count]) with PostgreSQL's positions
// (before the first character they count but take nothing).
func lowerSubstring(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
	s, err := l.coerce(args[0], kindString)
	if err != nil {
		return nil, err
	}
	es := []expr.Expression{s}
	for _, a := range args[1:] {
		e, err := l.int32Arg(a)
		if err != nil {
			return nil, err
		}
		es = append(es, e)
	}
	return l.callOpts(urnString, "substring", f.Location, []substraitfn.Option{{Name: "negative_start", Prefs: []string{"LEFT_OF_BEGINNING"}}}, es...)
}

// numeric settles a math argument: bigint or double precision.
func (l *lowerer) numeric(v value, loc int32) (expr.Expression, kind, error) {
	e, err := l.settleNumber(v)
	if err != nil {
		return nil, kind{}, err
	}
	k := kindOf(e.GetType())
	if !k.Numeric() {
		return nil, kind{}, fmt.Errorf("%w: function needs a number, not %s%s", ErrType, k, l.src.at(loc))
	}
	return e, k, nil
}

func lowerAbs(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
	e, _, err := l.numeric(args[0], f.Location)
	if err != nil {
		return nil, err
	}
	return l.callOpts(urnArithmetic, "abs", f.Location, nil, e)
}

// floatFn is a double precision function of double precision arguments
// (bigint converts, as in PostgreSQL: floor(5::bigint) is a double).
func floatFn(urn, name string) func(*lowerer, *pg_query.FuncCall, []value) (expr.Expression, error) {
	return func(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
		es := make([]expr.Expression, len(args))
		// power(double precision, 0.5) is float8's power: PostgreSQL
		// prefers it once an argument is double precision (numeric
		// converts to it implicitly, not back).
		anyFloat := slices.ContainsFunc(args, func(a value) bool { return a.how == typed && a.kind().Float() })
		for i, a := range args {
			if err := l.notNumeric(name, a, f.Location); err != nil && !anyFloat {
				return nil, err
			}
			e, err := l.coerce(a, kindF64)
			if err != nil {
				return nil, err
			}
			es[i] = e
		}
		return l.callOpts(urn, name, f.Location, nil, es...)
	}
}

// notNumeric refuses a numeric argument of the double precision math
// functions: PostgreSQL's floor, ceil, round, sqrt and power of numeric
// are numeric functions, exact and with their own result scale, which a
// double precision answer would silently differ from (sqrt(2::numeric)
// has 16 decimals, ceil(-0.5::numeric) is 0, not -0).
//
// A decimal constant (power(x, 0.5)) is let through as its double
// precision, as before constants were typed numeric: refusing it would
// turn away the common power(x, 0.5) and sqrt(2.0).
func (l *lowerer) notNumeric(name string, v value, loc int32) error {
	if v.how == typed && v.kind().ID == idNumeric && v.num == "" {
		return fmt.Errorf("%w: %s(numeric) (it returns numeric; cast the argument to double precision)%s", ErrUnsupported, name, l.src.at(loc))
	}
	return nil
}

// lowerRound: round(x) is rint, half to even, on double precision.
// round(x, n) of a double precision x is round(x::numeric, n) in
// PostgreSQL (numeric's round, the only one with places).
func lowerRound(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
	if len(args) == 2 {
		return nil, fmt.Errorf("%w: function round(%s, integer) does not exist (cast the argument to numeric)%s", ErrType, l.defaultKind(args[0]), l.src.at(f.Location))
	}
	if err := l.notNumeric("round", args[0], f.Location); err != nil {
		return nil, err
	}
	x, err := l.coerce(args[0], kindF64)
	if err != nil {
		return nil, err
	}
	return l.callOpts(urnRounding, "round", f.Location, []substraitfn.Option{{Name: "rounding", Prefs: []string{"TIE_TO_EVEN"}}},
		x, expr.NewPrimitiveLiteral(int32(0), false))
}

// lowerTrunc: trunc(x) of double precision is toward zero (dtrunc),
// lowered as Substrait's round with TRUNCATE; trunc(x, n) exists for
// numeric only.
func lowerTrunc(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
	if len(args) == 2 {
		return nil, fmt.Errorf("%w: function trunc(%s, integer) does not exist (cast the argument to numeric)%s", ErrType, l.defaultKind(args[0]), l.src.at(f.Location))
	}
	x, err := l.coerce(args[0], kindF64)
	if err != nil {
		return nil, err
	}
	return l.callOpts(urnRounding, "round", f.Location, []substraitfn.Option{{Name: "rounding", Prefs: []string{"TRUNCATE"}}},
		x, expr.NewPrimitiveLiteral(int32(0), false))
}

// lowerMod: mod of integers is %; of double precision PostgreSQL returns
// numeric.
func lowerMod(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
	if v, ok, err := l.numericArith("%", args[0], args[1], f.Location); ok || err != nil {
		return v.e, err // mod of numeric: numeric_mod, as x % y
	}
	es, k, err := l.unifyNumbers(args...)
	if err != nil {
		return nil, err
	}
	if !k.Integer() {
		return nil, fmt.Errorf("%w: mod of %s (it returns numeric)%s", ErrUnsupported, k, l.src.at(f.Location))
	}
	return l.call(urnArithmetic, "modulus", f.Location, es...)
}

// concatOp lowers a || b: text || text, and text || any other value as
// text (PostgreSQL's anytextcat: 'a' || 1.5 is 'a1.5'). Either side NULL
// gives NULL.
func (l *lowerer) concatOp(a *pg_query.A_Expr, lv, rv value) (value, error) {
	// varchar(n) and char(n) are text here (char(n) without its trailing
	// blanks): PostgreSQL's textcat through their implicit casts.
	isText := func(v value) bool { return v.how == untypedString || (v.how == typed && v.kind().Stringy()) }
	if !isText(lv) && !isText(rv) {
		return value{}, fmt.Errorf("%w: operator does not exist: %s || %s%s", ErrType, l.defaultKind(lv), l.defaultKind(rv), l.src.at(a.Location))
	}
	es := make([]expr.Expression, 2)
	for i, v := range []value{lv, rv} {
		e, err := l.settle(v)
		if err != nil {
			return value{}, err
		}
		if kindOf(e.GetType()) == kindUnknown {
			return value{}, fmt.Errorf("%w: || of %s%s", ErrType, e.GetType(), l.src.at(a.Location))
		}
		if es[i], err = l.cast(e, kindString, false, a.Location); err != nil {
			return value{}, err
		}
	}
	e, err := l.callOpts(urnString, "concat", a.Location, nil, es...)
	return value{e: e, loc: a.Location}, err
}

// like lowers [NOT] LIKE / ILIKE. An ESCAPE clause arrives as
// like_escape(pattern, escape); with both literal the pattern is rewritten
// for the '\' escape at plan time (sqlvalue.LikeEscape, PostgreSQL's
// like_escape), otherwise it is refused.
func (l *lowerer) like(a *pg_query.A_Expr, s *scope) (value, error) {
	op := opName(a)
	lv, err := l.expr(a.Lexpr, s)
	if err != nil {
		return value{}, err
	}
	x, err := l.likeOperand(lv)
	if err != nil {
		return value{}, err
	}
	var pat expr.Expression
	if fc := a.Rexpr.GetFuncCall(); fc != nil && funcName(fc) == "like_escape" && len(fc.Args) == 2 {
		var lits [2]string
		null := false // like_escape is strict: a NULL pattern or escape is a NULL pattern
		for i, n := range fc.Args {
			v, err := l.expr(n, s)
			if err != nil {
				return value{}, err
			}
			e, err := l.coerce(v, kindString)
			if err != nil {
				return value{}, err
			}
			lit, ok := literalOf(e)
			str, isStr := lit.(string)
			switch {
			case ok && lit == nil:
				null = true
			case !ok || !isStr:
				return value{}, fmt.Errorf("%w: LIKE ... ESCAPE with a pattern or escape that is not a string literal%s", ErrUnsupported, l.src.at(a.Location))
			}
			lits[i] = str
		}
		if null {
			pat = expr.NewNullLiteral(kindString.Type(true))
		} else {
			p, err := sqlvalue.LikeEscape(lits[0], lits[1])
			if err != nil {
				return value{}, fmt.Errorf("%w: %w%s", ErrInvalid, err, l.src.at(a.Location))
			}
			pat = expr.NewPrimitiveLiteral(p, false)
		}
	} else {
		pv, err := l.expr(a.Rexpr, s)
		if err != nil {
			return value{}, err
		}
		if pat, err = l.coerce(pv, kindString); err != nil {
			return value{}, err
		}
	}
	var opts []substraitfn.Option
	if a.Kind == pg_query.A_Expr_Kind_AEXPR_ILIKE {
		opts = []substraitfn.Option{{Name: "case_sensitivity", Prefs: []string{"CASE_INSENSITIVE"}}}
	}
	e, err := l.callOpts(urnString, "like", a.Location, opts, x, pat)
	if err == nil && (op == "!~~" || op == "!~~*") {
		e, err = l.call(urnBoolean, "not", a.Location, e)
	}
	return value{e: e, loc: a.Location}, err
}

// isDistinctFrom lowers a IS [NOT] DISTINCT FROM b.
func (l *lowerer) isDistinctFrom(a *pg_query.A_Expr, s *scope) (value, error) {
	vs, err := l.exprs(s, a.Lexpr, a.Rexpr)
	if err != nil {
		return value{}, err
	}
	es, _, err := l.unify(vs...)
	if err != nil {
		return value{}, err
	}
	name := "is_distinct_from"
	if a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT {
		name = "is_not_distinct_from"
	}
	e, err := l.callOpts(urnComparison, name, a.Location, nil, es...)
	return value{e: e, loc: a.Location}, err
}

// nullIf lowers NULLIF(a, b): its type is a and b's common type (PostgreSQL
// returns the first argument of the = it builds, promoted). A numeric
// result keeps a's scale: every value it returns is a's, and PostgreSQL's
// numeric = takes untypmodded numerics, so a's value comes back with its
// own digits (NULLIF(0.13::numeric(8,2), x::numeric(8,4)) is 0.13, not
// 0.1300); an integer a promoted to numeric comes back with scale 0.
func (l *lowerer) nullIf(a *pg_query.A_Expr, s *scope) (value, error) {
	vs, err := l.exprs(s, a.Lexpr, a.Rexpr)
	if err != nil {
		return value{}, err
	}
	es, common, err := l.unifyResults(vs)
	if err != nil {
		return value{}, err
	}
	e, err := l.callOpts(urnComparison, "nullif", a.Location, nil, es...)
	if err != nil {
		return value{}, err
	}
	first := vs[0].kind()
	if vs[0].how == typed && sameFamilyOperator(first, common) {
		// PostgreSQL resolves NULLIF's = with the operands as they are
		// when a cross-type operator exists (int48eq, float48eq, ...), so
		// its result keeps the first operand's type (transformAExprNullIf:
		// opresulttype is the first argument's type after make_op):
		// -nullif(int4 x, int8 y) negates an integer and overflows at
		// -2147483648 (difftest seed 20261224). The value is the first
		// operand or NULL, so the cast back never fails.
		e, err = l.cast(e, first, false, a.Location)
		return value{e: e, loc: a.Location, name: "nullif"}, err
	}
	if common.ID != idNumeric {
		return value{e: e, loc: a.Location, name: "nullif"}, nil
	}
	switch {
	case first.ID == idNumeric && first.S < common.S:
	case first.ID == idI16 || first.ID == idI32 || first.ID == idI64:
		first = kindNumeric(common.N, 0)
	default:
		return value{e: e, loc: a.Location, name: "nullif"}, nil
	}
	e, err = l.cast(e, first, false, a.Location)
	return value{e: e, loc: a.Location, name: "nullif"}, err
}

// sameFamilyOperator: first differs from common and both are integers or
// both are floats, the families whose every pair PostgreSQL compares
// with a cross-type = of its own (int24eq ... int84eq, float48eq,
// float84eq), coercing neither operand.
func sameFamilyOperator(first, common kind) bool {
	if first == common {
		return false
	}
	integer := func(k kind) bool { return k.ID == idI16 || k.ID == idI32 || k.ID == idI64 }
	float := func(k kind) bool { return k.ID == idF32 || k.ID == idF64 }
	return integer(first) && integer(common) || float(first) && float(common)
}

func (l *lowerer) exprs(s *scope, ns ...*pg_query.Node) ([]value, error) {
	out := make([]value, len(ns))
	for i, n := range ns {
		v, err := l.expr(n, s)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// unifyResults is unify for values that become a result (CASE, COALESCE,
// NULLIF): only NULLs and parameters untyped make text, as PostgreSQL
// resolves unknown to text.
func (l *lowerer) unifyResults(vs []value) ([]expr.Expression, kind, error) {
	return l.commonResults(vs, -1)
}

// commonResults is unifyResults for results meeting at a common type
// (CASE, COALESCE, GREATEST, LEAST: select_common_type), whose first
// input in select_common_type's order is vs[first] (a CASE's ELSE:
// transformCaseExpr puts the default result first). first < 0 is
// NULLIF's operands, which PostgreSQL reads as an operator's (make_op:
// varchar = text is text = text), so they skip varcharCommon.
func (l *lowerer) commonResults(vs []value, first int) ([]expr.Expression, kind, error) {
	allNull := true
	for _, v := range vs {
		allNull = allNull && v.how == untypedNull
	}
	if allNull {
		out := make([]expr.Expression, len(vs))
		for i := range vs {
			out[i] = expr.NewNullLiteral(kindString.Type(true))
		}
		return out, kindString, nil
	}
	if first >= 0 {
		if k, ok := varcharCommon(vs); ok {
			return l.coerceAll(vs, k)
		}
	}
	// Results all character(n) of one n (NULLs and string literals aside)
	// stay character(n), blanks and all, as PostgreSQL's common type of
	// bpchar inputs is bpchar (unify, for comparisons, meets strings at
	// text): select_common_type skips the unknown-typed literals, which
	// then take that type, so CASE ... THEN c4 ELSE 'ab ' END = 'ab'
	// compares as bpchar. PostgreSQL's result has no length (the arms'
	// typmods differ), so a literal longer than n keeps its length there;
	// a character(n) column cannot, and such a literal makes the result
	// text, as before.
	k := kindUnknown
	for _, v := range vs {
		switch {
		case v.how == untypedNull, v.how == untypedString:
		case v.how == typed && v.kind().ID == idChar && (k == kindUnknown || k == v.kind()):
			k = v.kind()
		default:
			return l.unifyAs(false, vs...)
		}
	}
	for _, v := range vs {
		if k == kindUnknown || v.how == untypedString && int32(utf8.RuneCountInString(strings.TrimRight(v.str, " "))) > k.N {
			return l.unifyAs(false, vs...)
		}
	}
	return l.coerceAll(vs, k)
}

// coerceAll is each of vs coerced to k.
func (l *lowerer) coerceAll(vs []value, k kind) ([]expr.Expression, kind, error) {
	out := make([]expr.Expression, len(vs))
	for i, v := range vs {
		e, err := l.coerce(v, k)
		if err != nil {
			return nil, kindUnknown, err
		}
		out[i] = e
	}
	return out, k, nil
}

// varcharCommon is PostgreSQL's common type of results whose typed ones
// are all character varying(n) of one n: varchar(n) (select_common_type
// keeps their type, select_common_typmod their n), where the older rule
// below met them at text. A CASE of varchar results compared with a
// character(n) then resolves as bpchar (bpcharOperands): char(4) 'ab' >=
// a CASE's varchar(6) 'ab    ' is true, as in PostgreSQL, where text's
// 'ab' >= 'ab    ' is false (difftest seed 20261224).
//
// Left as text (a known difference): varchar results of different n,
// beside an untyped string or parameter (which PostgreSQL coerces to
// varchar without a length, never truncating it to n), or beside text
// where the first typed result is varchar. PostgreSQL's
// common type is then varchar without a length (text, varchar and bpchar
// each convert to the others implicitly, so select_common_type keeps the
// first input's type unless that is the preferred text), which the
// engine writes as text and so compares with a character(n) as text.
func varcharCommon(vs []value) (kind, bool) {
	k := kindUnknown
	for _, v := range vs {
		switch {
		case v.how == untypedNull:
		case v.how == typed && v.kind().ID == idVarchar && v.kind().N > 0 && (k == kindUnknown || k == v.kind()):
			k = v.kind()
		default:
			return kindUnknown, false
		}
	}
	return k, k != kindUnknown
}

// coalesce lowers COALESCE(a, ...).
func (l *lowerer) coalesce(c *pg_query.CoalesceExpr, s *scope) (value, error) {
	vs, err := l.exprs(s, c.Args...)
	if err != nil {
		return value{}, err
	}
	es, _, err := l.commonResults(vs, 0)
	if err != nil {
		return value{}, err
	}
	es = coalesceArgs(es) // constfold.go
	if len(es) == 1 {
		return value{e: es[0], loc: c.Location, name: "coalesce"}, nil
	}
	e, err := l.callOpts(urnComparison, "coalesce", c.Location, nil, es...)
	return value{e: e, loc: c.Location, name: "coalesce"}, err
}

// minMax lowers GREATEST(a, ...) and LEAST(a, ...): the arguments meet at
// their common type as COALESCE's do (PostgreSQL resolves both with
// select_common_type), and NULLs are skipped (greatest_skip_null: NULL
// only when every argument is).
func (l *lowerer) minMax(m *pg_query.MinMaxExpr, s *scope) (value, error) {
	name, fn := "greatest", "greatest_skip_null"
	if m.Op == pg_query.MinMaxOp_IS_LEAST {
		name, fn = "least", "least_skip_null"
	}
	vs, err := l.exprs(s, m.Args...)
	if err != nil {
		return value{}, err
	}
	es, k, err := l.commonResults(vs, 0)
	if err != nil {
		return value{}, err
	}
	if !k.Ordered() {
		return value{}, fmt.Errorf("%w: %s of %s%s", ErrType, name, k, l.src.at(m.Location))
	}
	if len(es) == 1 {
		return value{e: es[0], loc: m.Location, name: name}, nil
	}
	e, err := l.callOpts(urnComparison, fn, m.Location, nil, es...)
	return value{e: e, loc: m.Location, name: name}, err
}

// caseExpr lowers CASE [x] WHEN ... THEN ... [ELSE ...] END to IfThen
// (ELSE NULL when absent). The simple form compares x = each WHEN value.
func (l *lowerer) caseExpr(c *pg_query.CaseExpr, s *scope) (value, error) {
	var arg value
	if c.Arg != nil {
		var err error
		if arg, err = l.expr(c.Arg, s); err != nil {
			return value{}, err
		}
	}
	var conds []expr.Expression
	var results []value
	for _, n := range c.Args {
		w := n.GetCaseWhen()
		if w == nil {
			return value{}, fmt.Errorf("%w: CASE arm %s%s", ErrUnsupported, nodeName(n), l.src.at(c.Location))
		}
		cv, err := l.expr(w.Expr, s)
		if err != nil {
			return value{}, err
		}
		var cond expr.Expression
		if c.Arg != nil {
			es, _, err := l.unify(arg, cv)
			if err != nil {
				return value{}, err
			}
			if cond, err = l.call(urnComparison, "equal", w.Location, es...); err != nil {
				return value{}, err
			}
		} else if cond, err = l.coerce(cv, kindBool); err != nil {
			return value{}, err
		}
		rv, err := l.expr(w.Result, s)
		if err != nil {
			return value{}, err
		}
		conds, results = append(conds, cond), append(results, rv)
	}
	if len(conds) == 0 {
		return value{}, fmt.Errorf("%w: CASE without WHEN%s", ErrSyntax, l.src.at(c.Location))
	}
	els := value{how: untypedNull, loc: c.Location}
	if c.Defresult != nil {
		var err error
		if els, err = l.expr(c.Defresult, s); err != nil {
			return value{}, err
		}
	}
	es, _, err := l.commonResults(append(results, els), len(results))
	if err != nil {
		return value{}, err
	}
	// IfThen wants one result type, nullability included: every arm is
	// made nullable (the planner drops such a cast).
	for i, e := range es {
		if !isNullable(e.GetType()) {
			if lit, ok := literalOf(e); ok && lit != nil {
				es[i] = newLiteral(lit, true)
			} else {
				es[i] = &expr.Cast{Type: kindOf(e.GetType()).Type(true), Input: e, FailureBehavior: types.BehaviorThrowException}
			}
		}
	}
	// Constant conditions fold as in PostgreSQL: a FALSE or NULL arm
	// drops out, a TRUE one is the result and the arms after it go
	// (constfold.go); their results are never evaluated.
	var pairs []expr.IfThenPair
	result := es[len(es)-1]
	for i := range conds {
		if v, ok := boolConst(conds[i]); ok && v {
			result = es[i]
			break
		} else if ok || isNullConst(conds[i]) {
			continue
		}
		pairs = append(pairs, expr.IfThenPair{If: conds[i], Then: es[i]})
	}
	if len(pairs) == 0 {
		return value{e: result, loc: c.Location, name: "case"}, nil
	}
	e, err := expr.NewIfThen(pairs[0], result, pairs[1:]...)
	if err != nil {
		return value{}, fmt.Errorf("%w: CASE: %w%s", ErrType, err, l.src.at(c.Location))
	}
	return value{e: e, loc: c.Location, name: "case"}, nil
}
