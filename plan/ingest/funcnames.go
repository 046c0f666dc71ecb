package ingest

import (
	"strings"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// Function names as producers write them.
//
// A plan declares each function by name, with or without a signature
// ("equal", "equal:any_any", "add:i64_i64"), and producers spell some
// names their own way: DuckDB's Substrait extension wrote "lessthanequal"
// and "count_star" before it adopted the standard names, DataFusion and
// others write operator-like aliases, some upper-case. The planner knows
// each function by its standard Substrait name (the name in the standard
// extension YAML: "lte", "count"), so every declaration is renamed to it
// before substrait-go reads the plan (normalize), keeping its signature.
// The planner then has one name per function, and a name no alias covers
// reaches it as written (lower-cased), so its error names the function
// ("plan: unsupported function: levenshtein").
//
// A function the planner learns is mapped here by adding its spellings to
// funcAliases (its standard name needs no entry).

// funcAliases maps a lower-case spelling to the standard name.
var funcAliases = map[string]string{
	// comparison (functions_comparison)
	"eq": "equal", "equals": "equal", "=": "equal", "==": "equal",
	"ne": "not_equal", "neq": "not_equal", "notequal": "not_equal", "not_equals": "not_equal", "<>": "not_equal", "!=": "not_equal",
	"less_than": "lt", "lessthan": "lt", "<": "lt",
	"le": "lte", "lt_eq": "lte", "less_than_or_equal": "lte", "lessthanequal": "lte", "lessthanorequalto": "lte", "<=": "lte",
	"greater_than": "gt", "greaterthan": "gt", ">": "gt",
	"ge": "gte", "gt_eq": "gte", "greater_than_or_equal": "gte", "greaterthanequal": "gte", "greaterthanorequalto": "gte", ">=": "gte",
	"isnull": "is_null", "isnotnull": "is_not_null",
	// boolean (functions_boolean)
	"boolean_and": "and", "&&": "and", "boolean_or": "or", "||": "or", "boolean_not": "not", "!": "not",
	// arithmetic (functions_arithmetic)
	"plus": "add", "+": "add",
	"minus": "subtract", "sub": "subtract",
	"mul": "multiply", "times": "multiply", "*": "multiply",
	"div": "divide", "/": "divide",
	"mod": "modulus", "modulo": "modulus", "%": "modulus",
	"negative": "negate", "neg": "negate", "unary_minus": "negate",
	// string (functions_string)
	"~~": "like", "substr": "substring",
	// aggregates (functions_aggregate_generic, functions_arithmetic)
	"count_star": "count", "mean": "avg", "average": "avg",
}

// canonicalFuncName returns the declared name ("lessThan:i64_i64") with
// its name part replaced by the standard name it spells ("lt:i64_i64"),
// and whether that changed anything. Standard names are lower-case, so
// a name without an alias is only lower-cased ("EQUAL" is "equal").
func canonicalFuncName(declared string) (string, bool) {
	name, sig, hasSig := strings.Cut(declared, ":")
	std, ok := funcAliases[strings.ToLower(name)]
	if !ok {
		std = strings.ToLower(name)
	}
	if hasSig {
		std += ":" + sig
	}
	return std, std != declared
}

// renameFuncs renames every function declaration to its standard name
// (see canonicalFuncName); it reports whether any needs it.
func renameFuncs(p *substraitpb.Plan, apply bool) bool {
	changed := false
	for _, d := range p.GetExtensions() {
		f := d.GetExtensionFunction()
		if f == nil {
			continue
		}
		if name, ok := canonicalFuncName(f.GetName()); ok {
			changed = true
			if apply {
				f.Name = name
			}
		}
	}
	return changed
}
