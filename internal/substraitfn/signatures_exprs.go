package substraitfn

import (
	"fmt"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/types"
)

// impl is one implementation of a standard function as its YAML declares
// it, in short type names ("any" binds any1).
type impl struct {
	args     []string
	variadic int    // > 0: the last argument repeats, this many arguments at least
	ret      string // result type; "any": the type any1 bound to; "arg0": the first argument's (DECIMAL<P1,S1>)
	// declared: DECLARED_OUTPUT nullability, the result is nullable
	// exactly when retNull; else MIRROR (nullable when an argument is).
	declared, retNull bool
}

// table is the signature of a function with the given implementations:
// the first whose argument types match (nullability aside) wins.
func table(impls ...impl) signature {
	return func(name string, args []types.Type) (string, types.Type, bool) {
		for _, im := range impls {
			if out, ok := im.match(args); ok {
				return name + ":" + strings.Join(im.args, "_"), out, true
			}
		}
		return "", nil, false
	}
}

func (im impl) match(args []types.Type) (types.Type, bool) {
	n := len(im.args)
	if im.variadic > 0 {
		if len(args) < im.variadic {
			return nil, false
		}
	} else if len(args) != n {
		return nil, false
	}
	var any1 types.Type
	for i, a := range args {
		want := im.args[min(i, n-1)]
		if want == "any" {
			if any1 == nil {
				any1 = a
			} else if !sameType(any1, a) {
				return nil, false
			}
			continue
		}
		if shortName(a) != want {
			return nil, false
		}
	}
	var out types.Type
	switch im.ret {
	case "any":
		out = any1
	case "arg0":
		out = args[0]
	case "bool":
		out = boolean
	case "i64":
		out = &types.Int64Type{}
	case "i32":
		out = &types.Int32Type{}
	case "i16":
		out = &types.Int16Type{}
	case "fp32":
		out = &types.Float32Type{}
	case "fp64":
		out = &types.Float64Type{}
	case "str":
		out = &types.StringType{}
	default:
		return nil, false
	}
	if im.declared {
		if im.retNull {
			return out.WithNullability(types.NullabilityNullable), true
		}
		return out.WithNullability(types.NullabilityRequired), true
	}
	return nullableIf(out, args), true
}

// shortName is the YAML's short name of the types the SQL front end
// passes to these functions.
func shortName(t types.Type) string {
	switch t.(type) {
	case *types.Int64Type:
		return "i64"
	case *types.Int32Type:
		return "i32"
	case *types.Int16Type:
		return "i16"
	case *types.Float32Type:
		return "fp32"
	case *types.DecimalType:
		return "dec"
	case *types.Float64Type:
		return "fp64"
	case *types.StringType:
		return "str"
	case *types.BooleanType:
		return "bool"
	}
	return ""
}

// exprScalars are the functions of the scalar expressions (issue 18),
// built by Call. They are kept apart from scalars because some are
// variadic (concat, coalesce), which substrait-go's builder cannot resolve
// by simple name: their oracle test (signatures_exprs_test.go) resolves
// them by compound name instead.
var exprScalars = func() map[extensions.ID]signature {
	str := func(args ...string) impl { return impl{args: args, ret: "str"} }
	return map[extensions.ID]signature{
		{URN: URNString, Name: "concat"}:       table(impl{args: []string{"str"}, variadic: 1, ret: "str"}),
		{URN: URNString, Name: "like"}:         table(impl{args: []string{"str", "str"}, ret: "bool"}),
		{URN: URNString, Name: "contains"}:     table(impl{args: []string{"str", "str"}, ret: "bool"}),
		{URN: URNString, Name: "starts_with"}:  table(impl{args: []string{"str", "str"}, ret: "bool"}),
		{URN: URNString, Name: "ends_with"}:    table(impl{args: []string{"str", "str"}, ret: "bool"}),
		{URN: URNString, Name: "substring"}:    table(str("str", "i32", "i32"), str("str", "i32")),
		{URN: URNString, Name: "strpos"}:       table(impl{args: []string{"str", "str"}, ret: "i64"}),
		{URN: URNString, Name: "replace"}:      table(str("str", "str", "str")),
		{URN: URNString, Name: "lower"}:        table(str("str")),
		{URN: URNString, Name: "upper"}:        table(str("str")),
		{URN: URNString, Name: "reverse"}:      table(str("str")),
		{URN: URNString, Name: "char_length"}:  table(impl{args: []string{"str"}, ret: "i64"}),
		{URN: URNString, Name: "trim"}:         table(str("str", "str")),
		{URN: URNString, Name: "ltrim"}:        table(str("str", "str")),
		{URN: URNString, Name: "rtrim"}:        table(str("str", "str")),
		{URN: URNString, Name: "rpad"}:         table(str("str", "i32", "str")),
		{URN: URNString, Name: "octet_length"}: table(impl{args: []string{"str"}, ret: "i64"}),

		{URN: URNComparison, Name: "is_distinct_from"}:     table(impl{args: []string{"any", "any"}, ret: "bool", declared: true}),
		{URN: URNComparison, Name: "is_not_distinct_from"}: table(impl{args: []string{"any", "any"}, ret: "bool", declared: true}),
		{URN: URNComparison, Name: "nullif"}:               table(impl{args: []string{"any", "any"}, ret: "any", declared: true, retNull: true}),
		{URN: URNComparison, Name: "coalesce"}:             table(impl{args: []string{"any"}, variadic: 2, ret: "any"}),
		{URN: URNComparison, Name: "greatest_skip_null"}:   table(impl{args: []string{"any"}, variadic: 2, ret: "any"}),
		{URN: URNComparison, Name: "least_skip_null"}:      table(impl{args: []string{"any"}, variadic: 2, ret: "any"}),

		{URN: URNRounding, Name: "ceil"}:  table(impl{args: []string{"fp64"}, ret: "fp64"}),
		{URN: URNRounding, Name: "floor"}: table(impl{args: []string{"fp64"}, ret: "fp64"}),
		{URN: URNRounding, Name: "round"}: table(
			impl{args: []string{"i32", "i32"}, ret: "i32", declared: true, retNull: true},
			impl{args: []string{"i64", "i32"}, ret: "i64", declared: true, retNull: true},
			impl{args: []string{"fp64", "i32"}, ret: "fp64", declared: true, retNull: true}),

		{URN: URNArithmetic, Name: "abs"}: table(impl{args: []string{"i16"}, ret: "i16"}, impl{args: []string{"i32"}, ret: "i32"}, impl{args: []string{"i64"}, ret: "i64"},
			impl{args: []string{"fp32"}, ret: "fp32"}, impl{args: []string{"fp64"}, ret: "fp64"}, impl{args: []string{"dec"}, ret: "arg0"}),
		{URN: URNArithmetic, Name: "power"}: table(impl{args: []string{"i64", "i64"}, ret: "i64"}, impl{args: []string{"fp64", "fp64"}, ret: "fp64"}),
		{URN: URNArithmetic, Name: "sqrt"}:  table(impl{args: []string{"i64"}, ret: "fp64"}, impl{args: []string{"fp64"}, ret: "fp64"}),
	}
}()

// Option is one function option of a call (Substrait's FunctionOption):
// a name and the values the producer accepts, in order of preference.
type Option struct {
	Name  string
	Prefs []string
}

// Call builds urn's function name applied to args with options (like's
// case_sensitivity, round's rounding, substring's negative_start): the
// functions of Scalar and those of the scalar expressions.
func Call(reg expr.ExtensionRegistry, urn, name string, opts []Option, args ...expr.Expression) (*expr.ScalarFunction, error) {
	id := extensions.ID{URN: urn, Name: name}
	sig, ok := scalars[id]
	if !ok {
		if sig, ok = exprScalars[id]; !ok {
			return nil, fmt.Errorf("%w: %s is not a function stablerow emits", ErrNoSignature, name)
		}
	}
	ts := argTypes(args)
	compound, out, ok := sig(name, ts)
	if !ok {
		return nil, fmt.Errorf("%w: %s(%s)", ErrNoSignature, name, typeNames(ts))
	}
	var po []*types.FunctionOption
	for _, o := range opts {
		po = append(po, &types.FunctionOption{Name: o.Name, Preference: o.Prefs})
	}
	fa := make([]types.FuncArg, len(args))
	for i, a := range args {
		fa[i] = a
	}
	v := extensions.NewScalarFuncVariant(extensions.ID{URN: urn, Name: placeholder(compound)})
	return expr.NewCustomScalarFunc(reg, v, out, po, fa...)
}
