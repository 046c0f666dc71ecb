package sql

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// planCalls is the names of the scalar functions anywhere in the plan
// under root (filters, join conditions, projections).
func planCalls(t *testing.T, root plan.Rel) []string {
	t.Helper()
	var names []string
	var visit func(e expr.Expression) expr.Expression
	visit = func(e expr.Expression) expr.Expression {
		if f, ok := e.(*expr.ScalarFunction); ok {
			names = append(names, f.Name())
		}
		if e != nil {
			e.Visit(visit)
		}
		return e
	}
	seen := map[plan.Rel]bool{}
	var walk func(r plan.Rel)
	walk = func(r plan.Rel) {
		if r == nil || seen[r] {
			return
		}
		seen[r] = true
		for _, in := range r.GetInputs() {
			walk(in)
		}
		_, err := r.CopyWithExpressionRewrite(func(e expr.Expression) (expr.Expression, error) {
			return visit(e), nil
		}, r.GetInputs()...)
		require.NoError(t, err)
	}
	walk(root)
	return names
}

// falseFilters counts the filters of the plan under root whose condition
// is a constant FALSE or NULL.
func falseFilters(root plan.Rel) int {
	n := 0
	var walk func(r plan.Rel)
	walk = func(r plan.Rel) {
		if f, ok := r.(*plan.FilterRel); ok && constFalse(f.Condition()) {
			n++
		}
		for _, in := range r.GetInputs() {
			walk(in)
		}
	}
	walk(root)
	return n
}

func hasCall(names []string, prefix string) bool {
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// canonicalize_qual: a NULL arm of a qual's top-level AND makes it
// FALSE, so the other arms leave the plan and never divide (difftest
// seed 20261207 case 9048), in a WHERE over one item or several, a
// HAVING, a JOIN ON; in an OR a NULL arm drops and the others stay.
func TestNullConjunctMakesQualFalse(t *testing.T) {
	for _, sql := range []string{
		"SELECT id FROM t WHERE id / score > 1 AND CAST(NULL AS BOOLEAN)",
		"SELECT id FROM t WHERE CAST(NULL AS INTEGER) > 1 AND id / score > 1",
		"SELECT a.id FROM t AS a, u AS b WHERE a.id / b.id > 1 AND a.id = b.id AND CAST(NULL AS BOOLEAN)",
		"SELECT count(*) FROM t HAVING count(*) / sum(score) > 1 AND CAST(NULL AS BOOLEAN)",
		"SELECT a.id FROM t AS a JOIN u AS b ON a.id / b.id > 1 AND CAST(NULL AS BOOLEAN)",
		"SELECT a.id FROM t AS a LEFT JOIN u AS b ON a.id / b.id > 1 AND CAST(NULL AS BOOLEAN)",
		"SELECT id FROM t WHERE (id / score > 1 AND CAST(NULL AS BOOLEAN)) OR CAST(NULL AS BOOLEAN)",
		// NOT over OR is an AND of NOTs (negate_clause) before
		// canonicalize_qual sees it.
		"SELECT id FROM t WHERE NOT (id / score > 1 OR CAST(NULL AS BOOLEAN))",
		"SELECT id FROM t WHERE NOT NOT (id / score > 1 AND CAST(NULL AS BOOLEAN))",
	} {
		_, root, _ := parseQuery(t, sql)
		calls := planCalls(t, root)
		assert.False(t, hasCall(calls, "divide"), "%s: %v", sql, calls)
		if !strings.Contains(sql, " JOIN ") {
			assert.GreaterOrEqual(t, falseFilters(root), 1, sql)
		}
	}
	_, root, _ := parseQuery(t, "SELECT id FROM t WHERE id = 1 OR (id / score > 1 AND CAST(NULL AS BOOLEAN))")
	calls := planCalls(t, root)
	assert.False(t, hasCall(calls, "divide"), calls)
	assert.True(t, hasCall(calls, "equal"), calls)
	assert.Zero(t, falseFilters(root))
	// NOT over AND is an OR of NOTs: the NULL arm drops, NOT x stays.
	_, root, _ = parseQuery(t, "SELECT id FROM t WHERE NOT (id / score > 1 AND CAST(NULL AS BOOLEAN))")
	assert.True(t, hasCall(planCalls(t, root), "divide"))
	assert.Zero(t, falseFilters(root))
	// Not the qual's arm: under a call it is evaluated per row.
	_, root, _ = parseQuery(t, "SELECT id FROM t WHERE coalesce(id / score > 1 AND CAST(NULL AS BOOLEAN), false)")
	assert.True(t, hasCall(planCalls(t, root), "divide"))
}

// Before canonicalize_qual drops an arm, eval_const_expressions has
// folded it: a constant in it that raises raises, unless a FALSE arm
// before it ended the folding; the left operand of a NOT IN (subquery)
// is folded with the qual (seed 20261207 case 25382), the subquery's own
// constants are not.
func TestDroppedQualArmsRaiseAsFolded(t *testing.T) {
	for _, sql := range []string{
		"SELECT id FROM t WHERE CAST(NULL AS BOOLEAN) AND id > CAST(1e400 AS FLOAT8)",
		"SELECT id FROM t WHERE id > CAST(1e400 AS FLOAT8) AND CAST(NULL AS BOOLEAN)",
		"SELECT id FROM t AS a WHERE (CAST(1e400 AS FLOAT8) > 1) NOT IN (SELECT s.flag FROM u AS s) AND CAST(NULL AS BOOLEAN)",
		"SELECT id FROM t AS a WHERE (CAST(1e400 AS FLOAT8) > 1) NOT IN (SELECT s.flag FROM u AS s) AND FALSE",
	} {
		_, err := Parse(sql, testCatalog)
		assert.ErrorIs(t, err, sqlvalue.ErrOutOfRange, sql)
	}
	for _, sql := range []string{
		"SELECT id FROM t WHERE FALSE AND id > CAST(1e400 AS FLOAT8)",
		"SELECT id FROM t AS a WHERE FALSE AND (CAST(1e400 AS FLOAT8) > 1) NOT IN (SELECT s.flag FROM u AS s)",
		"SELECT id FROM t AS a WHERE (id > 1) NOT IN (SELECT s.flag FROM u AS s WHERE s.id > CAST(1e400 AS FLOAT8)) AND CAST(NULL AS BOOLEAN)",
	} {
		_, err := Parse(sql, testCatalog)
		assert.NoError(t, err, sql)
	}
	// An analysis error in a dropped arm still raises, as PostgreSQL's
	// parser raises it.
	_, err := Parse("SELECT id FROM t WHERE CAST(NULL AS BOOLEAN) AND nosuch > 1", testCatalog)
	assert.ErrorIs(t, err, ErrUnknownColumn)
}

// A [NOT] IN or EXISTS subquery flattened into a semi or anti join has
// its WHERE canonicalized too: a NULL arm beside a correlated one makes
// it FALSE, an OR's arm made FALSE drops, so nothing divides.
func TestFlattenedSubqueryQualIsCanonical(t *testing.T) {
	for _, sql := range []string{
		"SELECT id FROM t AS a WHERE EXISTS (SELECT 1 FROM u AS s WHERE s.id / a.id > 1 AND CAST(NULL AS BOOLEAN))",
		"SELECT id FROM t AS a WHERE a.id IN (SELECT s.id FROM u AS s WHERE s.id / 0 > 1 AND CAST(NULL AS BOOLEAN))",
		"SELECT id FROM t AS a WHERE a.id IN (SELECT s.id FROM u AS s WHERE s.id <> 0 OR (s.id / 0 > 1 AND CAST(NULL AS BOOLEAN)))",
		"SELECT id FROM t AS a WHERE NOT EXISTS (SELECT 1 FROM u AS s WHERE s.id = a.id AND (s.id <> 0 OR (a.id / s.id > 1 AND CAST(NULL AS BOOLEAN))))",
	} {
		_, root, _ := parseQuery(t, sql)
		calls := planCalls(t, root)
		assert.False(t, hasCall(calls, "divide"), "%s: %v", sql, calls)
	}
}

// BETWEEN is the parser's AND of two comparisons (NOT BETWEEN their OR),
// so a NULL bound makes one arm of the qual NULL and the AND FALSE: the
// subquery beside it is never planned and its raising constant never
// raises (seed 20261222 case 82491).
func TestBetweenArmsAreQualArms(t *testing.T) {
	const sub = "a.id NOT IN (SELECT s.id FROM t AS s WHERE CAST(NULL AS BIGINT) < CAST(CAST('1e+300' AS DOUBLE PRECISION) AS BIGINT))"
	for _, sql := range []string{
		"SELECT a.id FROM t AS a WHERE " + sub + " AND a.id BETWEEN 1 AND CAST(NULL AS INTEGER)",
		"SELECT a.id FROM t AS a WHERE " + sub + " AND NOT (a.id NOT BETWEEN CAST(NULL AS BIGINT) AND 5)",
	} {
		_, root, _ := parseQuery(t, sql)
		assert.GreaterOrEqual(t, falseFilters(root), 1, sql)
	}
	_, err := Parse("SELECT a.id FROM t AS a WHERE "+sub+" AND a.id BETWEEN 0 AND 5", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrOutOfRange)
}

// TestDroppedSubqueriesAreAnalysed: a subquery that a folded qual drops,
// however deep in its ANDs and ORs, is analysed as PostgreSQL's parser
// analyses it, so max(boolean) raises (an OR's arm made FALSE, an EXISTS
// under an OR beside a FALSE conjunct: each failed before, found auditing
// seed 20261230 case 302920), while an error of evaluating its constants
// does not, and neither does a subquery that analyses.
func TestDroppedSubqueriesAreAnalysed(t *testing.T) {
	for _, sql := range []string{
		"SELECT a.id FROM t AS a, t AS b WHERE a.id = b.id AND (FALSE AND a.id > 0) AND (((SELECT max(TRUE) FROM u AS s WHERE s.id = b.id) OR TRUE) AND a.id <> b.id)",
		"SELECT a.id FROM t AS a WHERE FALSE AND (((SELECT max(TRUE) FROM u AS s) OR TRUE) AND a.id > 0)",
		"SELECT a.id FROM t AS a WHERE FALSE AND ((EXISTS (SELECT max(TRUE) FROM u AS s WHERE s.id = a.id) OR TRUE) AND a.id > 0)",
		"SELECT a.id FROM t AS a WHERE FALSE AND (((SELECT max(s.nosuch) FROM u AS s) > 0 OR TRUE) AND a.id > 0)",
		"SELECT a.id FROM t AS a WHERE a.id > 0 OR (FALSE AND (SELECT max(TRUE) FROM u AS s))",
		"SELECT a.id FROM t AS a WHERE a.id > 0 OR ((SELECT max(TRUE) FROM u AS s WHERE s.id = a.id) AND NULL)",
		"SELECT a.id FROM t AS a JOIN u AS b ON a.id = b.id AND (FALSE AND EXISTS (SELECT max(TRUE) FROM u AS s))",
	} {
		_, err := Parse(sql, testCatalog)
		assert.True(t, isAnalysisError(err), "%s: %v", sql, err)
	}
	for _, sql := range []string{
		"SELECT a.id FROM t AS a WHERE FALSE AND (((SELECT max(s.id / 0) FROM u AS s WHERE s.id = a.id) > 0 OR TRUE) AND a.id > 0)",
		"SELECT a.id FROM t AS a WHERE FALSE AND (((SELECT max(1 / 0) FROM u AS s) > 0 OR TRUE) AND a.id > 0)",
		"SELECT a.id FROM t AS a WHERE FALSE AND (((SELECT max(s.id) FROM u AS s WHERE s.id = a.id) > 0 OR TRUE) AND a.id > 0)",
	} {
		_, err := Parse(sql, testCatalog)
		assert.NoError(t, err, sql)
	}
}
