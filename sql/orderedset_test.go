package sql

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// TestOrderedSetLowering: an ordered-set aggregate is the fraction then
// the value, with one sort by the value in the WITHIN GROUP direction;
// percentile_cont's integer value is cast to double precision,
// percentile_disc's and mode's keep their type. (substrait-go's default
// collection, which parseQuery re-reads with, cannot parse a text
// argument's compound name "str" for a function it lacks: the text forms
// run in testdata/sql/percentile.slt through the engine's collection.)
func TestOrderedSetLowering(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY id DESC), percentile_disc(0.25) WITHIN GROUP (ORDER BY score), mode() WITHIN GROUP (ORDER BY id) FROM t")
	agg, ok := root.(*plan.ProjectRel).Input().(*plan.AggregateRel)
	require.True(t, ok)
	ms := agg.Measures()
	require.Len(t, ms, 3)
	cont := ms[0].Measure()
	require.Equal(t, 2, cont.NArgs())
	require.Len(t, cont.Sorts, 1)
	assert.Equal(t, types.SortDescNullsFirst, cont.Sorts[0].Kind)
	_, isCast := cont.Arg(1).(*expr.Cast)
	assert.True(t, isCast, "percentile_cont's bigint value is cast: %s", cont.Arg(1))
	disc := ms[1].Measure()
	assert.Equal(t, types.SortAscNullsLast, disc.Sorts[0].Kind)
	_, isDouble := disc.GetType().(*types.Float64Type)
	assert.True(t, isDouble, "percentile_disc keeps its value's type: %s", disc.GetType())
	_, isBigint := ms[2].Measure().GetType().(*types.Int64Type)
	assert.True(t, isBigint, "mode keeps its value's type: %s", ms[2].Measure().GetType())
	assert.Equal(t, 1, ms[2].Measure().NArgs())
}

// TestOrderedSetErrors: PostgreSQL's refusals, and the array form, typed.
func TestOrderedSetErrors(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want error
	}{
		{"SELECT mode() FROM t", ErrInvalid},
		{"SELECT percentile_disc(DISTINCT 0.5) WITHIN GROUP (ORDER BY id) FROM t", ErrSyntax}, // the parser's
		{"SELECT sum(id) WITHIN GROUP (ORDER BY id) FROM t", ErrInvalid},
		{"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY name) FROM t", ErrType},
		{"SELECT percentile_cont(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY id) FROM t", ErrUnsupported},
		{"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY id) OVER () FROM t", ErrUnsupported},
		{"SELECT mode(id) WITHIN GROUP (ORDER BY id) FROM t", ErrType},
		{"SELECT mode() WITHIN GROUP (ORDER BY 'x') FROM t", ErrType},
		{"SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY NULL) FROM t", ErrType},
	} {
		_, err := Parse(c.sql, testCatalog)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.sql, err, c.want)
		}
	}
}
