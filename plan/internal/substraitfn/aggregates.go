package substraitfn

import (
	"fmt"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/types"
)

// Aggregate builds the aggregate call name(args), DISTINCT when distinct,
// for the aggregates the SQL front end emits, with the compound names of
// the standard YAML and stablerow's result types (the PostgreSQL ones the
// SQL surface can hold):
//
//	count()/count(any)      functions_aggregate_generic  i64
//	sum(i64) sum(fp64)      functions_arithmetic         i64? fp64?  (bigint out of range on overflow)
//	avg(i64) avg(fp64)      functions_arithmetic         fp64?       (the YAML's avg:i64 returns i64?;
//	                                                                  PostgreSQL's avg of an integer is
//	                                                                  numeric, stablerow's double precision)
//	min/max(i64|fp64)       functions_arithmetic         the argument's type, nullable
//	min/max(str)            functions_arithmetic         (beyond the YAML, which declares numbers only)
//	bool_and/bool_or(bool)  functions_boolean            boolean?
//	string_agg(str, str)    functions_string             string?
func Aggregate(reg expr.ExtensionRegistry, name string, distinct bool, args ...expr.Expression) (*expr.AggregateFunction, error) {
	ts := argTypes(args)
	short := make([]string, len(ts))
	for i, t := range ts {
		switch t.(type) {
		case *types.Int64Type:
			short[i] = "i64"
		case *types.Float64Type:
			short[i] = "fp64"
		case *types.StringType:
			short[i] = "str"
		case *types.BooleanType:
			short[i] = "bool"
		default:
			return nil, fmt.Errorf("%w: %s(%s)", ErrNoSignature, name, typeNames(ts))
		}
	}
	nullable := func(t types.Type) types.Type { return t.WithNullability(types.NullabilityNullable) }
	bad := fmt.Errorf("%w: %s(%s)", ErrNoSignature, name, typeNames(ts))
	var urn string
	var out types.Type
	switch name {
	case "count":
		if len(args) > 1 {
			return nil, bad
		}
		urn, out = URNAggregate, &types.Int64Type{Nullability: types.NullabilityRequired}
		if len(args) == 1 {
			short[0] = "any"
		}
	case "sum", "avg":
		if len(args) != 1 || (short[0] != "i64" && short[0] != "fp64") {
			return nil, bad
		}
		urn, out = URNArithmetic, nullable(ts[0])
		if name == "avg" {
			out = &types.Float64Type{Nullability: types.NullabilityNullable}
		}
	case "min", "max":
		// PostgreSQL has no min/max of boolean (bool_and and bool_or are).
		if len(args) != 1 || short[0] == "bool" {
			return nil, bad
		}
		urn, out = URNArithmetic, nullable(ts[0])
	case "bool_and", "bool_or":
		if len(args) != 1 || short[0] != "bool" {
			return nil, bad
		}
		urn, out = URNBoolean, nullable(ts[0])
	case "string_agg":
		if len(args) != 2 || short[0] != "str" || short[1] != "str" {
			return nil, bad
		}
		urn, out = URNString, nullable(ts[0])
	default:
		return nil, fmt.Errorf("%w: %s is not an aggregate stablerow emits", ErrNoSignature, name)
	}
	compound := name + ":"
	for i, s := range short {
		if i > 0 {
			compound += "_"
		}
		compound += s
	}
	inv := types.AggInvocationAll
	if distinct {
		inv = types.AggInvocationDistinct
	}
	fa := make([]types.FuncArg, len(args))
	for i, a := range args {
		fa[i] = a
	}
	v := extensions.NewAggFuncVariant(extensions.ID{URN: urn, Name: placeholder(compound)})
	return expr.NewCustomAggregateFunc(reg, v, out, nil, inv, types.AggPhaseInitialToResult, nil, fa...)
}
