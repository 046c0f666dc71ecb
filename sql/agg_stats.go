package sql

// PostgreSQL's statistical aggregates stablerow lowers, by name: the
// standard deviation (sqrt) or variance of the sample or the population.
// stddev and variance are PostgreSQL's aliases of the sample forms
// (pg_aggregate: stddev is int8_accum/numeric_stddev_samp as stddev_samp
// is). They lower to Substrait's std_dev and variance with the
// distribution option (substraitfn.StatsAggregate); the result types are
// PostgreSQL's (double precision of a float, numeric of an integer or
// numeric: exec/acc_stddev.go).
var statsAggregates = map[string]struct{ sqrt, sample bool }{
	"stddev_samp": {true, true},
	"stddev":      {true, true},
	"stddev_pop":  {true, false},
	"var_samp":    {false, true},
	"variance":    {false, true},
	"var_pop":     {false, false},
}

// unknownArgKind is the type PostgreSQL's func_select_candidate gives an
// untyped argument (NULL or a string literal: type unknown) of aggregate
// name, where one candidate wins: bool_and, bool_or and every have one
// (boolean); the statistics take their category's preferred type, double
// precision. ok false for the others (the caller's default).
func unknownArgKind(name string, v value) (kind, bool) {
	if v.how != untypedNull && v.how != untypedString {
		return kind{}, false
	}
	switch _, stats := statsAggregates[name]; {
	case name == "bool_and" || name == "bool_or" || name == "every":
		return kindBool, true
	case stats:
		return kindF64, true
	}
	return kind{}, false
}
