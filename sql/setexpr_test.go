package sql

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// protoCensus counts, over a plan's proto, the join relations, the
// subquery expressions by kind and the outer references by steps_out.
type protoCensus struct {
	joins    int
	subs     map[string]int // "set_predicate", "in_predicate", ...
	outerRef map[uint32]int
}

func census(p *substraitpb.Plan) protoCensus {
	c := protoCensus{subs: map[string]int{}, outerRef: map[uint32]int{}}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *substraitpb.JoinRel:
			c.joins++
		case *substraitpb.Expression_Subquery:
			switch x.GetSubqueryType().(type) {
			case *substraitpb.Expression_Subquery_SetPredicate_:
				c.subs["set_predicate"]++
			case *substraitpb.Expression_Subquery_InPredicate_:
				c.subs["in_predicate"]++
			case *substraitpb.Expression_Subquery_Scalar_:
				c.subs["scalar"]++
			case *substraitpb.Expression_Subquery_SetComparison_:
				c.subs["set_comparison"]++
			}
		case *substraitpb.Expression_FieldReference:
			if o := x.GetOuterReference(); o != nil {
				c.outerRef[o.GetStepsOut()]++
			}
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return true })
	}
	walk(proto.Clone(p).ProtoReflect())
	return c
}

// TestSetSubqueriesAreSubqueryExpressions: the front end writes EXISTS,
// IN and scalar subqueries as Substrait subquery expressions and leaves their decorrelation to
// the optimizer (optimize.Decorrelate): a correlated EXISTS is a
// SetPredicate whose filter reaches the outer row through an outer
// reference (steps_out 1), NOT IN is not() over an InPredicate, and no
// join is written for either.
func TestSetSubqueriesAreSubqueryExpressions(t *testing.T) {
	for _, tc := range []struct {
		sql   string
		kind  string
		outer int
	}{
		{"SELECT id FROM t AS a WHERE EXISTS (SELECT 1 FROM u WHERE u.id = a.id AND u.flag)", "set_predicate", 1},
		{"SELECT id FROM t AS a WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.id = a.id)", "set_predicate", 1},
		{"SELECT id FROM t WHERE id IN (SELECT id FROM u WHERE flag)", "in_predicate", 0},
		{"SELECT id FROM t WHERE id NOT IN (SELECT id FROM u)", "in_predicate", 0},
		{"SELECT id FROM t WHERE id <> ALL (SELECT id FROM u)", "in_predicate", 0},
		// FROM lists: the subquery sits in the filter over the cross
		// product, where Decorrelate may push it to one item.
		{"SELECT t.id FROM t, u WHERE t.id = u.id AND EXISTS (SELECT 1 FROM u AS v WHERE v.id = t.id)", "set_predicate", 1},
		// Scalar subqueries too (scalarExpr), in every place the SELECT
		// takes one: the WHERE, the SELECT list, ORDER BY; correlated
		// when plain or over an ungrouped aggregate.
		{"SELECT id FROM t WHERE score < (SELECT avg(t2.score) FROM t AS t2 WHERE t2.id = t.id)", "scalar", 1},
		{"SELECT id, (SELECT u.flag FROM u WHERE u.id = t.id) FROM t", "scalar", 1},
		{"SELECT id FROM t ORDER BY (SELECT count(*) FROM u WHERE u.id = t.id)", "scalar", 1},
		{"SELECT id, (SELECT max(id) FROM u) FROM t", "scalar", 0},
		// EXISTS, IN and op ANY/ALL as values (subquery_value.go): the
		// same expressions, wherever an expression may be; the optimizer
		// makes each a mark join.
		{"SELECT id, id IN (SELECT id FROM u) FROM t", "in_predicate", 0},
		{"SELECT id, EXISTS (SELECT 1 FROM u WHERE u.id = t.id) FROM t", "set_predicate", 1},
		{"SELECT id FROM t WHERE id = 1 OR id IN (SELECT id FROM u)", "in_predicate", 0},
		{"SELECT id FROM t WHERE id > ANY (SELECT id FROM u)", "set_comparison", 0},
		{"SELECT CASE WHEN id <= ALL (SELECT id FROM u WHERE u.id > t.id) THEN 1 END FROM t", "set_comparison", 1},
	} {
		q, ok := parseOne(t, tc.sql).(*Query)
		require.True(t, ok, tc.sql)
		c := census(q.Plan)
		require.Equal(t, 0, c.joins, "%s: the front end writes no join for it", tc.sql)
		require.Equal(t, map[string]int{tc.kind: 1}, c.subs, tc.sql)
		if tc.outer > 0 {
			require.Equal(t, map[uint32]int{1: tc.outer}, c.outerRef, tc.sql)
		} else {
			require.Empty(t, c.outerRef, tc.sql)
		}
		_, _, err := readPlan(q.Plan)
		require.NoError(t, err, "substrait-go reads it back: %s", tc.sql)
	}
}

// TestSetSubqueryRefusals: an aggregate's argument or FILTER naming an
// enclosing query (whose aggregate PostgreSQL makes the outer query's)
// is refused here, with the SQL position; a name ambiguous in the enclosing query is
// PostgreSQL's ambiguity error, not a correlation.
func TestSetSubqueryRefusals(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"SELECT id FROM t AS a WHERE EXISTS (SELECT 1 FROM u WHERE EXISTS (SELECT max(a.id) FROM u AS c))", `correlated reference "a.id"`},
		{"SELECT id FROM t AS a WHERE EXISTS (SELECT count(a.id) FROM u WHERE u.id = a.id)", "correlated reference"},
		{"SELECT id FROM t AS a WHERE EXISTS (SELECT 1 FROM u WHERE u.id = a.id GROUP BY u.id HAVING count(*) FILTER (WHERE a.id > 0) > 1)", "correlated reference"},
		{"SELECT a.id FROM t AS a, t AS b WHERE EXISTS (SELECT 1 FROM u WHERE u.flag AND score > 1)", "ambiguous"},
	} {
		_, err := Parse(tc.sql, testCatalog)
		require.ErrorContains(t, err, tc.want, tc.sql)
		require.ErrorContains(t, err, "at line 1, column", tc.sql)
		if tc.want != "ambiguous" {
			require.ErrorIs(t, err, ErrUnsupported, tc.sql)
		}
	}
}

// TestScalarSubqueryIsNullable: a scalar subquery is NULL when it returns
// no row, so its value is nullable even over a NOT NULL column (u.id): a
// UNION with it types its column nullable, as with any other nullable
// input, instead of refusing the set operation's mismatched types.
func TestScalarSubqueryIsNullable(t *testing.T) {
	for _, q := range []string{
		"SELECT (SELECT id FROM u WHERE flag) AS x UNION ALL SELECT 1",
		"SELECT t.id, (SELECT u.id FROM u WHERE u.id = t.id AND flag) FROM t UNION ALL SELECT 1, 2",
	} {
		_, err := Parse(q, testCatalog)
		require.NoError(t, err, q)
	}
}
