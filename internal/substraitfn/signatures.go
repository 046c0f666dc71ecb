package substraitfn

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// ErrNoSignature: no declared implementation of the function takes these
// argument types (the message names the function and the types, as
// substrait-go's own lookup does).
var ErrNoSignature = errors.New("substraitfn: no matching function signature")

// signature resolves one standard function for argument types: its
// compound name ("add:i64_i64") and output type, exactly as the standard
// YAML declares them (signatures_test.go checks each against substrait-go's
// default collection for every argument combination the SQL front end can
// produce).
type signature func(name string, args []types.Type) (compound string, out types.Type, ok bool)

// scalars are the scalar functions the SQL front end emits, by URN and
// name. A function missing here is an error for the front end, never a
// silent load of the full collection.
var scalars = map[extensions.ID]signature{
	{URN: URNComparison, Name: "equal"}:       compare,
	{URN: URNComparison, Name: "not_equal"}:   compare,
	{URN: URNComparison, Name: "lt"}:          compare,
	{URN: URNComparison, Name: "lte"}:         compare,
	{URN: URNComparison, Name: "gt"}:          compare,
	{URN: URNComparison, Name: "gte"}:         compare,
	{URN: URNComparison, Name: "is_null"}:     nullTest,
	{URN: URNComparison, Name: "is_not_null"}: nullTest,
	{URN: URNBoolean, Name: "and"}:            logic(-1),
	{URN: URNBoolean, Name: "or"}:             logic(-1),
	{URN: URNBoolean, Name: "not"}:            logic(1),
	{URN: URNArithmetic, Name: "add"}:         arith(2, true),
	{URN: URNArithmetic, Name: "subtract"}:    arith(2, true),
	{URN: URNArithmetic, Name: "multiply"}:    arith(2, true),
	{URN: URNArithmetic, Name: "divide"}:      arith(2, true),
	{URN: URNArithmetic, Name: "modulus"}:     arith(2, false),
	{URN: URNArithmetic, Name: "negate"}:      arith(1, true),
}

// nullableIf is t, nullable when any arg is (the YAML's default MIRROR
// nullability).
func nullableIf(t types.Type, args []types.Type) types.Type {
	for _, a := range args {
		if a.GetNullability() == types.NullabilityNullable {
			return t.WithNullability(types.NullabilityNullable)
		}
	}
	return t.WithNullability(types.NullabilityRequired)
}

// sameType reports a and b are one type but for nullability (an any1
// binding).
func sameType(a, b types.Type) bool {
	return a.WithNullability(types.NullabilityRequired).Equals(b.WithNullability(types.NullabilityRequired))
}

var boolean types.Type = &types.BooleanType{Nullability: types.NullabilityRequired}

// compare: (any1, any1) -> boolean, MIRROR.
func compare(name string, args []types.Type) (string, types.Type, bool) {
	if len(args) != 2 || !sameType(args[0], args[1]) {
		return "", nil, false
	}
	return name + ":any_any", nullableIf(boolean, args), true
}

// nullTest: (any1) -> boolean, DECLARED_OUTPUT (never NULL).
func nullTest(name string, args []types.Type) (string, types.Type, bool) {
	if len(args) != 1 {
		return "", nil, false
	}
	return name + ":any", boolean, true
}

// logic: (boolean?...) -> boolean?, variadic (n < 0) or of arity n; MIRROR
// makes the result required when every argument is.
func logic(n int) signature {
	return func(name string, args []types.Type) (string, types.Type, bool) {
		if n >= 0 && len(args) != n {
			return "", nil, false
		}
		for _, a := range args {
			if _, ok := a.(*types.BooleanType); !ok {
				return "", nil, false
			}
		}
		return name + ":bool", nullableIf(boolean, args), true
	}
}

// arith: (T, T) -> T or (T) -> T for T in i16, i32, i64 (and fp32, fp64
// when floats), MIRROR, as the YAML declares them; plus the date
// arithmetic PostgreSQL has, which the standard YAML spells with
// intervals: add(date, i32) -> date, subtract(date, i32) -> date and
// subtract(date, date) -> i32 (days).
func arith(n int, floats bool) signature {
	return func(name string, args []types.Type) (string, types.Type, bool) {
		if len(args) != n {
			return "", nil, false
		}
		if c, out, ok := dateArith(name, args); ok {
			return c, out, true
		}
		if c, out, ok := decimalArith(name, args); ok {
			return c, out, true
		}
		var short string
		switch args[0].(type) {
		case *types.Int16Type:
			short = "i16"
		case *types.Int32Type:
			short = "i32"
		case *types.Int64Type:
			short = "i64"
		case *types.Float32Type, *types.Float64Type:
			if !floats {
				return "", nil, false
			}
			short = "fp32"
			if _, ok := args[0].(*types.Float64Type); ok {
				short = "fp64"
			}
		default:
			return "", nil, false
		}
		sig := make([]string, n)
		for i, a := range args {
			if !sameType(a, args[0]) {
				return "", nil, false
			}
			sig[i] = short
		}
		return name + ":" + strings.Join(sig, "_"), nullableIf(args[0], args), true
	}
}

// decimalArith is add, subtract, multiply, divide and modulus over two decimals of any
// precision and scale: the YAML's add:dec_dec and friends, whose output
// precision and scale physexpr.DecimalResult computes (the exact result).
func decimalArith(name string, args []types.Type) (string, types.Type, bool) {
	if len(args) != 2 {
		return "", nil, false
	}
	a, ok1 := args[0].(*types.DecimalType)
	b, ok2 := args[1].(*types.DecimalType)
	op := map[string]physexpr.Op{"add": physexpr.OpAdd, "subtract": physexpr.OpSub, "multiply": physexpr.OpMul, "divide": physexpr.OpDiv, "modulus": physexpr.OpMod}
	o, ok3 := op[name]
	if !ok1 || !ok2 || !ok3 {
		return "", nil, false
	}
	p, s, ok := physexpr.DecimalResult(o, a.Precision, a.Scale, b.Precision, b.Scale)
	if !ok {
		return "", nil, false
	}
	return name + ":dec_dec", nullableIf(&types.DecimalType{Precision: p, Scale: s}, args), true
}

// dateArith is add/subtract over (date, i32) and subtract over (date, date).
func dateArith(name string, args []types.Type) (string, types.Type, bool) {
	if len(args) != 2 {
		return "", nil, false
	}
	if _, ok := args[0].(*types.DateType); !ok {
		return "", nil, false
	}
	switch args[1].(type) {
	case *types.Int32Type:
		if name == "add" || name == "subtract" {
			return name + ":date_i32", nullableIf(args[0], args), true
		}
	case *types.DateType:
		if name == "subtract" {
			return name + ":date_date", nullableIf(&types.Int32Type{}, args), true
		}
	}
	return "", nil, false
}

// placeholder is the name a call is registered under while a plan is
// built: the compound name with '@' for ':' ("add@i64_i64"). substrait-go
// parses the argument types of any name holding ':' with an ANTLR grammar
// (milliseconds on first use, and it panics on "bool", the short name of
// boolean), so the calls carry this name and Finish writes the standard
// one into the plan's declarations.
func placeholder(compound string) string { return strings.Replace(compound, ":", "@", 1) }

// Finish replaces the placeholder declarations of a plan built with Scalar
// and Count by the standard compound names. Every plan those calls went
// into must pass through it before anyone else reads it.
func Finish(p *substraitpb.Plan) {
	for _, d := range p.GetExtensions() {
		f := d.GetExtensionFunction()
		if f == nil {
			continue
		}
		if name, ok := strings.CutSuffix(f.Name, ":"); ok && strings.Contains(name, "@") {
			f.Name = strings.Replace(name, "@", ":", 1)
		}
	}
}

func argTypes(args []expr.Expression) []types.Type {
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.GetType()
	}
	return ts
}

func typeNames(ts []types.Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

// Scalar builds urn's function name applied to args, registering it in
// reg (the plan's extension set), as substrait-go's builder would with the
// default collection.
func Scalar(reg expr.ExtensionRegistry, urn, name string, args ...expr.Expression) (*expr.ScalarFunction, error) {
	sig, ok := scalars[extensions.ID{URN: urn, Name: name}]
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a function stablerow emits", ErrNoSignature, name)
	}
	ts := argTypes(args)
	compound, out, ok := sig(name, ts)
	if !ok {
		return nil, fmt.Errorf("%w: %s(%s)", ErrNoSignature, name, typeNames(ts))
	}
	fa := make([]types.FuncArg, len(args))
	for i, a := range args {
		fa[i] = a
	}
	v := extensions.NewScalarFuncVariant(extensions.ID{URN: urn, Name: placeholder(compound)})
	return expr.NewCustomScalarFunc(reg, v, out, nil, fa...)
}

// ScalarOutput is the result type of the standard scalar function name
// (any of the URNs the front end emits it under: the names are distinct)
// over argument types ts, as Scalar types the call: false when no
// declared implementation takes them. For a plan that leaves a call's
// output_type out (plan/ingest's outputtype.go), whose function may be
// declared under an unknown URN (DataFusion's u32::MAX anchor).
func ScalarOutput(name string, ts []types.Type) (types.Type, bool) {
	for id, sig := range scalars {
		if id.Name != name {
			continue
		}
		if _, out, ok := sig(name, ts); ok {
			return out, true
		}
	}
	// A predicate's every declared implementation returns boolean: its
	// result type does not depend on which one the arguments select
	// (equal(i32, i64) is the planner's to accept or refuse, as it is
	// when the producer writes the output_type).
	if n, ok := predicates[name]; ok {
		if n == types.NullabilityRequired {
			return boolean, true
		}
		return nullableIf(boolean, ts), true
	}
	return nil, false
}

// predicates are the scalar functions whose every implementation in the
// standard YAML returns boolean, with its nullability: MIRROR
// (NullabilityNullable here: nullable when an argument is) or
// DECLARED_OUTPUT boolean (NullabilityRequired: never NULL).
var predicates = map[string]types.Nullability{
	"equal": types.NullabilityNullable, "not_equal": types.NullabilityNullable,
	"lt": types.NullabilityNullable, "lte": types.NullabilityNullable,
	"gt": types.NullabilityNullable, "gte": types.NullabilityNullable,
	"and": types.NullabilityNullable, "or": types.NullabilityNullable, "not": types.NullabilityNullable,
	"like": types.NullabilityNullable, "contains": types.NullabilityNullable,
	"starts_with": types.NullabilityNullable, "ends_with": types.NullabilityNullable,
	"is_null": types.NullabilityRequired, "is_not_null": types.NullabilityRequired,
	"is_distinct_from": types.NullabilityRequired, "is_not_distinct_from": types.NullabilityRequired,
}

// Count builds count(*) (no args) or count(x), the one aggregate the SQL
// front end emits: functions_aggregate_generic's "count:" and "count:any",
// i64 and never NULL.
func Count(reg expr.ExtensionRegistry, args ...expr.Expression) (*expr.AggregateFunction, error) {
	compound := "count:"
	switch len(args) {
	case 0:
	case 1:
		compound = "count:any"
	default:
		return nil, fmt.Errorf("%w: count(%s)", ErrNoSignature, typeNames(argTypes(args)))
	}
	fa := make([]types.FuncArg, len(args))
	for i, a := range args {
		fa[i] = a
	}
	out := &types.Int64Type{Nullability: types.NullabilityRequired}
	v := extensions.NewAggFuncVariant(extensions.ID{URN: URNAggregate, Name: placeholder(compound)})
	return expr.NewCustomAggregateFunc(reg, v, out, nil, types.AggInvocationAll, types.AggPhaseInitialToResult, nil, fa...)
}
