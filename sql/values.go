package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// A VALUES list used as a query, anywhere a SELECT stands: FROM (VALUES
// (1, 'a'), (2, 'b')) AS v(k, s), a statement of its own, an arm of a
// UNION, a WITH query. It lowers to a Substrait VirtualTable of
// expressions, as INSERT's VALUES does (dml.go values), with its columns
// typed as PostgreSQL's transformValuesClause types them: each column is
// the common type of its items (select_common_type with context
// "VALUES", the rules of CASE: unknown literals alone are text, integers
// meet numerics and floats at the wider kind), each item coerced to it.
// The columns are column1, column2, ... unless an alias names them (the
// FROM item's alias, from.go). ORDER BY and LIMIT apply over the rows, by
// position or column name, as over a set operation's result.

// valuesQuery lowers the VALUES lists of s.
func (l *lowerer) valuesQuery(s *pg_query.SelectStmt) (plan.Rel, []string, error) {
	if len(s.LockingClause) > 0 {
		return nil, nil, fmt.Errorf("%w: FOR UPDATE/SHARE", ErrUnsupported)
	}
	pop, err := l.with(s.WithClause) // cte.go
	defer pop()
	if err != nil {
		return nil, nil, err
	}
	width := len(s.ValuesLists[0].GetList().GetItems())
	subs := false
	for _, vl := range s.ValuesLists {
		// Its scalar subqueries are values of the row (values_sub.go).
		l.markScalars(vl.GetList().GetItems()...)
		subs = subs || hasSubLink(vl.GetList())
	}
	cols := make([][]value, width)
	for _, vl := range s.ValuesLists {
		items := vl.GetList().GetItems()
		if len(items) != width {
			return nil, nil, fmt.Errorf("%w: VALUES lists must all be the same length", ErrInvalid)
		}
		for i, n := range items {
			if d := n.GetSetToDefault(); d != nil {
				return nil, nil, fmt.Errorf("%w: DEFAULT is not allowed in this context%s", ErrInvalid, l.src.at(d.Location))
			}
			v, err := l.expr(n, &scope{noAggs: "in VALUES", outer: l.outer})
			if err != nil {
				return nil, nil, err
			}
			cols[i] = append(cols[i], v)
		}
	}
	rows := make([]expr.VirtualTableExpressionValue, len(s.ValuesLists))
	for r := range rows {
		rows[r] = make(expr.VirtualTableExpressionValue, width)
	}
	names := make([]string, width)
	for i, vs := range cols {
		es, _, err := l.commonResults(vs, 0)
		if err != nil {
			return nil, nil, err
		}
		for r, e := range es {
			// PostgreSQL's planner folds the lists' expressions
			// (preprocess_expression of an RTE_VALUES), so a constant
			// that raises raises, whether or not a row is read.
			if err := raisingConstant(e); err != nil {
				return nil, nil, err
			}
			rows[r][i] = nullable(e)
		}
		names[i] = fmt.Sprintf("column%d", i+1)
	}
	var rel plan.Rel
	if subs {
		rel, err = l.valuesRows(rows) // values_sub.go
	} else {
		rel, err = l.b.VirtualTableFromExpr(names, rows...)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: VALUES: %w", ErrInvalid, err)
	}
	return l.orderedResult(rel, names, s, "VALUES") // setop.go
}
