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
