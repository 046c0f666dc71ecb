package substraitfn

import (
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/stablerow/stablerow/errkind"

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
//	sum(i16|i32|i64)        functions_arithmetic         i64?        (PostgreSQL's bigint; for sum(bigint)
//	                                                                  its numeric: bigint out of range on overflow)
//	sum(fp32|fp64)          functions_arithmetic         the argument's type, nullable
//	sum(dec<P,S>)           functions_arithmetic         dec<38,S>?
//	avg(i16|i32|i64|fp32|fp64) functions_arithmetic      fp64?       (the YAML's avg:i64 returns i64?;
//	                                                                  PostgreSQL's avg of an integer is
//	                                                                  numeric, stablerow's double precision)
//	avg(dec<P,S>)           functions_arithmetic         dec<38,max(S,20)>? (PostgreSQL's sum / count,
//	                                                                  rounded per value: exec/physexpr/numdiv.go)
//	min/max(any ordered)    functions_arithmetic         the argument's type, nullable (beyond the YAML,
//	                                                     which declares numbers only)
//	bool_and/bool_or(bool)  functions_boolean            boolean?
//	string_agg(str, str)    functions_string             string?
//	bit_and/bit_or(i16|i32|i64) functions_arithmetic     the argument's type, nullable (PostgreSQL's
//	                                                                  int2and ...; Substrait has no aggregate)
//	std_dev/variance(fp32|fp64) functions_arithmetic     fp64?       (option distribution SAMPLE or
//	                                                                  POPULATION: stats.go)
//	std_dev/variance(i16|i32|i64|dec<P,S>)               dec<38,max(S,20)>?  (beyond the YAML: PostgreSQL's
//	                                                                  numeric result, exec/acc_stddev.go)
func Aggregate(reg expr.ExtensionRegistry, name string, distinct bool, args ...expr.Expression) (*expr.AggregateFunction, error) {
	urn, compound, out, err := aggregateSignature(name, argTypes(args))
	if err != nil {
		return nil, err
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

// OrderedSetAggregate builds name(direct...) WITHIN GROUP (ORDER BY
// value [DESC]): the direct arguments then the value, and one sort by the
// value (percentile_cont, percentile_disc, mode; their types as
// aggregateSignature's table).
func OrderedSetAggregate(reg expr.ExtensionRegistry, name string, direct []expr.Expression, value expr.Expression, desc bool) (*expr.AggregateFunction, error) {
	args := append(append([]expr.Expression{}, direct...), value)
	urn, compound, out, err := aggregateSignature(name, argTypes(args))
	if err != nil {
		return nil, err
	}
	fa := make([]types.FuncArg, len(args))
	for i, a := range args {
		fa[i] = a
	}
	dir := types.SortAscNullsLast
	if desc {
		dir = types.SortDescNullsFirst
	}
	v := extensions.NewAggFuncVariant(extensions.ID{URN: urn, Name: placeholder(compound)})
	return expr.NewCustomAggregateFunc(reg, v, out, nil, types.AggInvocationAll, types.AggPhaseInitialToResult,
		[]expr.SortField{{Expr: value, Kind: dir}}, fa...)
}

// AggregateOutput is the result type of the aggregate name over argument
// types ts, as Aggregate types the call (ErrNoSignature when no
// implementation takes them): for a plan that leaves a call's
// output_type out (plan/ingest's outputtype.go).
func AggregateOutput(name string, ts []types.Type) (types.Type, error) {
	_, _, out, err := aggregateSignature(name, ts)
	return out, err
}

// aggregateSignature resolves name over ts: its URN, compound name and
// result type (the table in Aggregate's comment).
func aggregateSignature(name string, ts []types.Type) (urn, compound string, out types.Type, err error) {
	short := make([]string, len(ts))
	for i, t := range ts {
		short[i] = aggShortName(t)
		if short[i] == "" {
			return "", "", nil, fmt.Errorf("%w: %s(%s)", ErrNoSignature, name, typeNames(ts))
		}
	}
	nullable := func(t types.Type) types.Type { return t.WithNullability(types.NullabilityNullable) }
	bad := fmt.Errorf("%w: %s(%s)", ErrNoSignature, name, typeNames(ts))
	switch name {
	case "count":
		if len(ts) > 1 {
			return "", "", nil, bad
		}
		urn, out = URNAggregate, &types.Int64Type{Nullability: types.NullabilityRequired}
		if len(ts) == 1 {
			short[0] = "any"
		}
	case "sum", "avg":
		if len(ts) != 1 {
			return "", "", nil, bad
		}
		urn = URNArithmetic
		switch short[0] {
		case "i16", "i32", "i64":
			// PostgreSQL: sum(int2) and sum(int4) are bigint (sum(int8) is
			// numeric, stablerow's bigint with an overflow error).
			out = &types.Int64Type{Nullability: types.NullabilityNullable}
		case "fp32", "fp64":
			out = nullable(ts[0])
		case "dec":
			// The YAML's sum:dec is DECIMAL<38,S>: PostgreSQL's numeric sum
			// keeps the scale; avg divides it by the count.
			s := ts[0].(*types.DecimalType).Scale
			if name == "avg" {
				s = physexpr.DecimalAvgScale(s)
			}
			out = &types.DecimalType{Nullability: types.NullabilityNullable, Precision: 38, Scale: s}
		default:
			return "", "", nil, bad
		}
		if name == "avg" && short[0] != "dec" {
			out = &types.Float64Type{Nullability: types.NullabilityNullable}
		}
	case "min", "max":
		// PostgreSQL has no min/max of boolean (bool_and and bool_or are).
		if len(ts) != 1 || short[0] == "bool" {
			return "", "", nil, bad
		}
		urn, out = URNArithmetic, nullable(ts[0])
	case "bool_and", "bool_or":
		if len(ts) != 1 || short[0] != "bool" {
			return "", "", nil, bad
		}
		urn, out = URNBoolean, nullable(ts[0])
	case "bit_and", "bit_or":
		if len(ts) != 1 || (short[0] != "i16" && short[0] != "i32" && short[0] != "i64") {
			return "", "", nil, bad
		}
		urn, out = URNArithmetic, nullable(ts[0])
	case "string_agg":
		if len(ts) != 2 || short[0] != "str" || short[1] != "str" {
			return "", "", nil, bad
		}
		urn, out = URNString, nullable(ts[0])
	case "percentile_cont":
		// PostgreSQL's percentile_cont(float8) WITHIN GROUP (ORDER BY
		// float8): the fraction then the value.
		if len(ts) != 2 || short[0] != "fp64" || short[1] != "fp64" {
			return "", "", nil, bad
		}
		urn, out = URNArithmetic, nullable(ts[1])
	case "percentile_disc":
		// percentile_disc(float8) WITHIN GROUP (ORDER BY anyelement).
		if len(ts) != 2 || short[0] != "fp64" {
			return "", "", nil, bad
		}
		urn, out = URNArithmetic, nullable(ts[1])
	case "std_dev", "variance":
		if len(ts) != 1 {
			return "", "", nil, bad
		}
		if out, err = statsOutput(short[0], ts[0]); err != nil {
			return "", "", nil, bad
		}
		urn = URNArithmetic
	case "mode":
		// mode() WITHIN GROUP (ORDER BY anyelement).
		if len(ts) != 1 {
			return "", "", nil, bad
		}
		urn, out = URNArithmetic, nullable(ts[0])
	default:
		return "", "", nil, fmt.Errorf("%w: %s is not an aggregate stablerow emits", ErrNoSignature, name)
	}
	compound = name + ":"
	for i, s := range short {
		if i > 0 {
			compound += "_"
		}
		compound += s
	}
	return urn, compound, out, nil
}

// ErrUnsupportedAggregate: an aggregate PostgreSQL has over types whose
// result rule stablerow does not implement (errkind.Unsupported).
var ErrUnsupportedAggregate = errkind.New(errkind.Unsupported, "substraitfn: unsupported aggregate")

// aggShortName is the YAML's short name of an aggregate argument's type,
// "" for a type no aggregate takes.
func aggShortName(t types.Type) string {
	switch t.(type) {
	case *types.Int16Type:
		return "i16"
	case *types.Int32Type:
		return "i32"
	case *types.Int64Type:
		return "i64"
	case *types.Float32Type:
		return "fp32"
	case *types.Float64Type:
		return "fp64"
	case *types.DecimalType:
		return "dec"
	case *types.StringType:
		return "str"
	case *types.VarCharType:
		return "vchar"
	case *types.FixedCharType:
		return "fchar"
	case *types.DateType:
		return "date"
	case *types.PrecisionTimestampType:
		return "pts"
	case *types.BooleanType:
		return "bool"
	}
	return ""
}
