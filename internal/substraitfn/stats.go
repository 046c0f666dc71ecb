package substraitfn

import (
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/types"
)

// PostgreSQL's stddev_samp, stddev_pop, var_samp and var_pop (stddev and
// variance are the sample forms) are Substrait's std_dev and variance of
// functions_arithmetic with the option distribution: SAMPLE or
// POPULATION.

// DistributionOption is the name of the std_dev/variance option.
const DistributionOption = "distribution"

// StatsAggregate builds std_dev (sqrt) or variance of arg, DISTINCT when
// distinct, over the sample or the population.
func StatsAggregate(reg expr.ExtensionRegistry, sqrt, sample, distinct bool, arg expr.Expression) (*expr.AggregateFunction, error) {
	name := "variance"
	if sqrt {
		name = "std_dev"
	}
	urn, compound, out, err := aggregateSignature(name, argTypes([]expr.Expression{arg}))
	if err != nil {
		return nil, err
	}
	inv := types.AggInvocationAll
	if distinct {
		inv = types.AggInvocationDistinct
	}
	v := extensions.NewAggFuncVariant(extensions.ID{URN: urn, Name: placeholder(compound)})
	return expr.NewCustomAggregateFunc(reg, v, out, distribution(sample), inv, types.AggPhaseInitialToResult, nil, arg)
}

// distribution is the option of the sample or the population form.
func distribution(sample bool) []*types.FunctionOption {
	dist := "POPULATION"
	if sample {
		dist = "SAMPLE"
	}
	return []*types.FunctionOption{{Name: DistributionOption, Preference: []string{dist}}}
}

// statsNames are PostgreSQL's names of the four, as Substrait's function
// (sqrt: std_dev, else variance) and distribution (sample): stddev and
// variance are the sample forms (pg_aggregate: stddev is
// numeric_stddev_samp's as stddev_samp is).
var statsNames = map[string]struct{ sqrt, sample bool }{
	"stddev_samp": {true, true},
	"stddev":      {true, true},
	"stddev_pop":  {true, false},
	"var_samp":    {false, true},
	"variance":    {false, true},
	"var_pop":     {false, false},
}

// StatsForm is PostgreSQL's statistical aggregate name as Substrait's
// function (sqrt: std_dev, else variance) and distribution (sample); ok
// is false for any other name.
func StatsForm(name string) (sqrt, sample, ok bool) {
	st, ok := statsNames[name]
	return st.sqrt, st.sample, ok
}

// StatsSample reads a std_dev/variance call's distribution option: true
// for SAMPLE, false for POPULATION; without the option, SAMPLE (SQL's
// stddev and variance). Another value is an error.
// f is an aggregate call or a window function call (std_dev OVER (...)).
func StatsSample(f interface {
	GetOptions() []*types.FunctionOption
}) (bool, error) {
	var prefs []string
	for _, o := range f.GetOptions() {
		if o.Name == DistributionOption {
			prefs = o.GetPreference()
		}
	}
	if len(prefs) == 0 {
		return true, nil
	}
	// The preferences in order; the first one stablerow has wins.
	for _, p := range prefs {
		switch p {
		case "SAMPLE":
			return true, nil
		case "POPULATION":
			return false, nil
		}
	}
	// Not f.Name(): a decoded call's declaration may be a bare variant
	// whose Name dereferences nil.
	return false, fmt.Errorf("%w: std_dev/variance option %s = %v", ErrNoSignature, DistributionOption, prefs)
}

// statsOutput is std_dev's and variance's result type over an argument of
// short type name short: double precision of a float (float8_var_samp
// ...), numeric of an integer or numeric (numeric_stddev_internal), at
// the scale exec gives it.
func statsOutput(short string, t types.Type) (types.Type, error) {
	switch short {
	case "fp32", "fp64":
		return &types.Float64Type{Nullability: types.NullabilityNullable}, nil
	case "i16", "i32", "i64":
		return &types.DecimalType{Nullability: types.NullabilityNullable, Precision: 38, Scale: physexpr.DecimalDivScale(0, 0)}, nil
	case "dec":
		s := t.(*types.DecimalType).Scale
		return &types.DecimalType{Nullability: types.NullabilityNullable, Precision: 38, Scale: physexpr.DecimalDivScale(s, 0)}, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrNoSignature, short)
}
