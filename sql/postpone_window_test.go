package sql

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// TestWindowSelectListUnderLimit: with window functions, ORDER BY and
// LIMIT, a cheap select item (id * 3) is evaluated below the sort, on
// every row, unless the window's own order already serves the ORDER BY
// (PostgreSQL's plan then has no sort above the WindowAgg, which
// evaluates each row as the Limit pulls it): then it is evaluated above
// the sort, on the rows the LIMIT reads (postpone_window.go; difftest
// seed 20261226 cases 9829 and 14605, regressions/window_limit_projection.slt).
func TestWindowSelectListUnderLimit(t *testing.T) {
	for _, c := range []struct {
		sql   string
		below bool
	}{
		{"SELECT rank() OVER (ORDER BY id), id * 3 FROM t ORDER BY CAST(1 AS SMALLINT), id LIMIT 2", false},
		{"SELECT rank() OVER (PARTITION BY name ORDER BY id DESC), id * 3 FROM t ORDER BY name LIMIT 2", false},
		{"SELECT rank() OVER (PARTITION BY name ORDER BY id DESC), id * 3 FROM t ORDER BY name, id DESC LIMIT 2", false},
		{"SELECT rank() OVER (PARTITION BY name ORDER BY name, id), id * 3 FROM t ORDER BY name, id LIMIT 2", false},
		{"SELECT rank() OVER (ORDER BY id), id * 3 FROM t ORDER BY id DESC LIMIT 2", true},
		{"SELECT rank() OVER (ORDER BY id), id * 3 FROM t ORDER BY id, name LIMIT 2", true},
		{"SELECT rank() OVER (PARTITION BY name ORDER BY id), id * 3 FROM t ORDER BY id LIMIT 2", true},
		{"SELECT rank() OVER (ORDER BY id), count(*) OVER (ORDER BY name), id * 3 FROM t ORDER BY id LIMIT 2", true},
		{"SELECT count(*) OVER (), id * 3 FROM t ORDER BY id LIMIT 2", true},
	} {
		_, root, _ := parseQuery(t, c.sql)
		assert.Equal(t, c.below, multiplyBelowSort(root, false), c.sql)
	}
}

// multiplyBelowSort: a projection under the plan's sort computes a
// multiplication.
func multiplyBelowSort(r plan.Rel, underSort bool) bool {
	if _, ok := r.(*plan.SortRel); ok {
		underSort = true
	}
	if p, ok := r.(*plan.ProjectRel); ok && underSort {
		for _, e := range p.Expressions() {
			if f, ok := e.(*expr.ScalarFunction); ok && strings.HasPrefix(f.Name(), "multiply") {
				return true
			}
		}
	}
	for _, in := range r.GetInputs() {
		if multiplyBelowSort(in, underSort) {
			return true
		}
	}
	return false
}
