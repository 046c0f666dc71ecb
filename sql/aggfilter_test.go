package sql

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		{"SELECT sum(id) FILTER (WHERE id > 1) OVER () FROM t", ErrUnsupported},
	} {
		_, err := Parse(c.sql, testCatalog)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.sql, err, c.want)
		}
	}
}
