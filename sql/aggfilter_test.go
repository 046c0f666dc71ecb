package sql

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// TestAggregateFilterLowersToMeasureFilter: FILTER (WHERE cond) is the
// Measure's filter, a boolean over the aggregate's input; a call without
// FILTER has none.
func TestAggregateFilterLowersToMeasureFilter(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT count(*) FILTER (WHERE score > 1), sum(id) FILTER (WHERE name = 'b'), max(id) FROM t")
	agg, ok := root.(*plan.ProjectRel).Input().(*plan.AggregateRel)
	require.True(t, ok)
	ms := agg.Measures()
	require.Len(t, ms, 3)
	fn(t, ms[0].Filter(), "gt")
	fn(t, ms[1].Filter(), "equal")
	// substrait-go reads an absent filter as the literal true.
	if f := ms[2].Filter(); f != nil {
		assert.Equal(t, "boolean(true)", f.String())
	}
}

// TestAggregateFilterErrors: PostgreSQL's refusals, typed.
func TestAggregateFilterErrors(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want error
	}{
		{"SELECT count(*) FILTER (WHERE sum(id) > 1) FROM t", ErrInvalid},
		{"SELECT count(*) FILTER (WHERE row_number() OVER () > 1) FROM t", ErrInvalid},
		{"SELECT count(*) FILTER (WHERE id) FROM t", ErrType},
		{"SELECT row_number() FILTER (WHERE id > 1) OVER () FROM t", ErrInvalid},
		{"SELECT sum(id) FILTER (WHERE row_number() OVER () > 1) OVER () FROM t", ErrInvalid},
	} {
		_, err := Parse(c.sql, testCatalog)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.sql, err, c.want)
		}
	}
}

// TestWindowAggregateFilter: FILTER on a window aggregate gates its
// argument, CASE WHEN cond THEN x END (count(*): of true).
func TestWindowAggregateFilter(t *testing.T) {
	for _, q := range []string{
		"SELECT sum(id) FILTER (WHERE score > 1) OVER (ORDER BY id) FROM t",
		"SELECT count(*) FILTER (WHERE score > 1) OVER () FROM t",
	} {
		_, root, _ := parseQuery(t, q)
		found := false
		walkRel(root, func(r plan.Rel) {
			if p, ok := r.(*plan.ProjectRel); ok {
				for _, e := range p.Expressions() {
					if w, ok := e.(*expr.WindowFunction); ok {
						_, isCase := w.Arg(0).(*expr.IfThen)
						assert.True(t, isCase, "%s: argument %s", q, w.Arg(0))
						found = true
					}
				}
			}
		})
		assert.True(t, found, q)
	}
}

func walkRel(r plan.Rel, f func(plan.Rel)) {
	f(r)
	for _, in := range r.GetInputs() {
		walkRel(in, f)
	}
}
