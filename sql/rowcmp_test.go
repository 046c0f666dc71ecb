package sql

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// Row comparisons lower as PostgreSQL's make_row_comparison_op expands
// them: = an AND, <> an OR, the ordering operators lexicographic, the
// strict operator on every pair but the last, which takes the operator
// itself.
func TestRowComparisonExpands(t *testing.T) {
	f := ".field(0) => i64?"
	for _, c := range []struct{ sql, want string }{
		{"(id, id) < (1, 2)", "or(lt(" + f + ", i64(1)) => boolean?, and(equal(" + f + ", i64(1)) => boolean?, lt(" + f + ", i64(2)) => boolean?) => boolean?) => boolean?"},
		{"(id, id) >= (1, 2)", "or(gt(" + f + ", i64(1)) => boolean?, and(equal(" + f + ", i64(1)) => boolean?, gte(" + f + ", i64(2)) => boolean?) => boolean?) => boolean?"},
		{"(id, id) = (1, 2)", "and(equal(" + f + ", i64(1)) => boolean?, equal(" + f + ", i64(2)) => boolean?) => boolean?"},
		{"(id, id) <> (1, 2)", "or(not_equal(" + f + ", i64(1)) => boolean?, not_equal(" + f + ", i64(2)) => boolean?) => boolean?"},
		{"ROW(id) <= ROW(1)", "lte(" + f + ", i64(1)) => boolean?"},
	} {
		_, root, _ := parseQuery(t, "SELECT "+c.sql+" FROM t")
		assert.Equal(t, c.want, root.(*plan.ProjectRel).Expressions()[0].String(), c.sql)
	}
}

// A row compared with a subquery reads one scalar subquery per column;
// with ANY or ALL, the subquery's rows are projected to the comparison,
// the operands read as outer references, under true = ANY / ALL.
func TestRowComparisonWithSubquery(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT (id, id) < (SELECT 1, 2) FROM t")
	e := root.(*plan.ProjectRel).Expressions()[0]
	require.True(t, strings.HasPrefix(e.String(), "or(lt("), e.String())
	assert.Equal(t, 3, strings.Count(e.String(), "SCALAR_SUBQUERY"), "one scalar subquery per use of a column: %s", e)

	_, root, _ = parseQuery(t, "SELECT (id + 1, id) < ALL (SELECT id, id FROM u) FROM t")
	e = root.(*plan.ProjectRel).Expressions()[0]
	sc, ok := e.(*plan.SetComparisonSubquery)
	require.True(t, ok, "want a set comparison, got %T %s", e, e)
	assert.Equal(t, plan.SetComparisonReductionOpAll, sc.ReductionOp)
	assert.Equal(t, plan.SetComparisonComparisonOpEq, sc.ComparisonOp)
	assert.Equal(t, "boolean(true)", sc.Left.String())
	p, ok := sc.Right.(*plan.ProjectRel)
	require.True(t, ok, "want the comparison projected, got %T", sc.Right)
	c := p.Expressions()[0].String()
	assert.True(t, strings.HasPrefix(c, "or(lt(add([outerRef:1].field(0)"), "the operands are outer references: %s", c)
}

// A WHERE with a constant FALSE conjunct analyses its scalar subqueries
// (subquery.go): a row comparison's subquery is no scalar one, and its
// two columns are no error (difftest seed 2 case 2414).
func TestRowSubqueryUnderFalseWhere(t *testing.T) {
	_, err := Parse("SELECT id FROM t WHERE (id, id) > (SELECT id, id FROM u) AND 1 = 0", testCatalog)
	require.NoError(t, err)
}

// An untyped literal in a row compared with ANY has no expression to
// move into the subquery (difftest seed 3 case 1181: it panicked).
func TestRowAnyUntypedLiteral(t *testing.T) {
	_, err := Parse("SELECT (id, 'a') > ANY (SELECT id, name FROM t) FROM t", testCatalog)
	require.NoError(t, err)
}
