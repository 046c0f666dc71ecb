package sql

import "github.com/stablerow/stablerow/internal/substraitfn"

// PostgreSQL's statistical aggregates (stddev_samp, stddev, stddev_pop,
// var_samp, variance, var_pop) lower to Substrait's std_dev and variance
// with the distribution option; substraitfn owns the names
// (substraitfn.StatsForm, StatsAggregate); the result types are
// PostgreSQL's (double precision of a float, numeric of an integer or
// numeric: exec/acc_stddev.go).

// unknownArgKind is the type PostgreSQL's func_select_candidate gives an
// untyped argument (NULL or a string literal: type unknown) of aggregate
// name, where one candidate wins: bool_and, bool_or and every have one
// (boolean); the statistics take their category's preferred type, double
// precision. ok false for the others (the caller's default).
func unknownArgKind(name string, v value) (kind, bool) {
	if v.how != untypedNull && v.how != untypedString {
		return kind{}, false
	}
	switch _, _, stats := substraitfn.StatsForm(name); {
	case name == "bool_and" || name == "bool_or" || name == "every":
		return kindBool, true
	case stats:
		return kindF64, true
	}
	return kind{}, false
}
