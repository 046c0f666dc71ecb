package substraitfn

import (
	"fmt"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/types"
)

// Extract builds functions_datetime's extract(component [, indexing], x)
// for x a date or a microsecond timestamp, with the output type out. The
// YAML declares i64; stablerow also writes PostgreSQL's extract (a
// decimal output: numeric, the second with its fraction) and date_part
// (fp64), and its planner reads the output type to tell them apart (see
// plan's extract). indexing is "" for the components that take none.
func Extract(reg expr.ExtensionRegistry, component, indexing string, x expr.Expression, out types.Type) (*expr.ScalarFunction, error) {
	var short string
	switch t := x.GetType().(type) {
	case *types.DateType:
		short = "date"
	case *types.PrecisionTimestampType:
		if t.Precision != types.PrecisionMicroSeconds {
			return nil, fmt.Errorf("%w: extract(%s)", ErrNoSignature, typeNames(argTypes([]expr.Expression{x})))
		}
		short = "pts"
	default:
		return nil, fmt.Errorf("%w: extract(%s)", ErrNoSignature, typeNames(argTypes([]expr.Expression{x})))
	}
	args := []types.FuncArg{types.Enum(component)}
	compound := "extract:req_" + short
	if indexing != "" {
		args = append(args, types.Enum(indexing))
		compound = "extract:req_req_" + short
	}
	args = append(args, x)
	out = nullableIf(out, []types.Type{x.GetType()})
	v := extensions.NewScalarFuncVariant(extensions.ID{URN: URNDatetime, Name: placeholder(compound)})
	return expr.NewCustomScalarFunc(reg, v, out, nil, args...)
}

// DecimalRounding builds functions_rounding_decimal's name (round, floor,
// ceil) over a decimal x (and, for round, the places n as an i32) with
// the output type out: the YAML keeps the input's scale, PostgreSQL's
// numeric_round answers at scale max(n, 0) (round(2.567, 1) is 2.6), and
// the SQL front end declares that; the planner reads n and the output
// type.
func DecimalRounding(reg expr.ExtensionRegistry, name string, opts []Option, out types.Type, args ...expr.Expression) (*expr.ScalarFunction, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("%w: %s()", ErrNoSignature, name)
	}
	if _, ok := args[0].GetType().(*types.DecimalType); !ok {
		return nil, fmt.Errorf("%w: %s(%s)", ErrNoSignature, name, typeNames(argTypes(args)))
	}
	compound := name + ":dec"
	switch {
	case name == "round" && len(args) == 2:
		if _, ok := args[1].GetType().(*types.Int32Type); !ok {
			return nil, fmt.Errorf("%w: %s(%s)", ErrNoSignature, name, typeNames(argTypes(args)))
		}
		compound = "round:dec_i32"
	case (name == "floor" || name == "ceil") && len(args) == 1:
	default:
		return nil, fmt.Errorf("%w: %s(%s)", ErrNoSignature, name, typeNames(argTypes(args)))
	}
	var po []*types.FunctionOption
	for _, o := range opts {
		po = append(po, &types.FunctionOption{Name: o.Name, Preference: o.Prefs})
	}
	fa := make([]types.FuncArg, len(args))
	for i, a := range args {
		fa[i] = a
	}
	out = nullableIf(out, []types.Type{args[0].GetType()})
	v := extensions.NewScalarFuncVariant(extensions.ID{URN: URNRoundingDecimal, Name: placeholder(compound)})
	return expr.NewCustomScalarFunc(reg, v, out, po, fa...)
}
