package engine

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// bind maps the query's parameters to exec params by anchor.
func bind(q *sql.Query, params map[string]any) (map[int]any, error) {
	out := map[int]any{}
	for i, name := range q.ParamNames {
		k := i + 1
		key := name
		if key == "" {
			key = strconv.Itoa(k)
		}
		v, ok := params[key]
		if !ok && name != "" {
			// A client that binds by position (Flight SQL, ADBC) names
			// :ids by its place among the statement's parameters.
			v, ok = params[strconv.Itoa(k)]
		}
		if !ok {
			return nil, fmt.Errorf("%w: no value bound for parameter %s", ErrParam, paramLabel(name, k))
		}
		nv, err := normalizeParam(v)
		if err != nil {
			return nil, fmt.Errorf("%w: parameter %s: %w", ErrParam, paramLabel(name, k), err)
		}
		out[k] = nv
	}
	return out, nil
}

// normalizeParam checks a bound value is there. Values go to the planner
// as the caller gave them: plan converts Go integers (and row ids) in one
// place (plan/rowid.go), so nothing is widened or reinterpreted here.
func normalizeParam(v any) (any, error) {
	if v == nil {
		return nil, errors.New("nil value")
	}
	return v, nil
}

// paramLabel is how the SQL text wrote parameter k: ":name" or "$k".
func paramLabel(name string, k int) string {
	if name != "" {
		return ":" + name
	}
	return "$" + strconv.Itoa(k)
}

// nameParam names the parameter of a plan.ParamError by what the SQL text
// called it (":ids" rather than "$1").
func nameParam(q *sql.Query, err error) error {
	var pe *plan.ParamError
	if !errors.As(err, &pe) {
		return err
	}
	name := ""
	if pe.Ref >= 1 && pe.Ref <= len(q.ParamNames) {
		name = q.ParamNames[pe.Ref-1]
	}
	return fmt.Errorf("%w: parameter %s: %w", ErrParam, paramLabel(name, pe.Ref), err)
}
