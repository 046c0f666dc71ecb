package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A VALUES list holding a subquery (VALUES (1, (SELECT max(y) FROM u)),
// an EXISTS, an IN) cannot be a VirtualTable, whose rows are constant
// expressions: each row is a projection of its items over one row of no
// columns, and the rows are their UNION ALL, in order. The optimizer
// decorrelates the projections' subqueries as any project's
// (optimize.Decorrelate), as PostgreSQL runs them as SubPlans of the
// Values Scan's expressions.

// hasSubLink reports a subquery anywhere under n.
func hasSubLink(n *pg_query.List) bool {
	found := false
	walkNodes(n.ProtoReflect(), func(m protoreflect.Message) bool {
		_, found = m.Interface().(*pg_query.SubLink)
		return !found
	})
	return found
}

// valuesRows is the UNION ALL of rows, each a projection over one row.
func (l *lowerer) valuesRows(rows []expr.VirtualTableExpressionValue) (plan.Rel, error) {
	var out plan.Rel
	for _, row := range rows {
		one, err := l.b.VirtualTableFromExpr([]string{}, expr.VirtualTableExpressionValue{})
		if err != nil {
			return nil, err
		}
		remap := make([]int32, len(row))
		es := make([]expr.Expression, len(row))
		for i, e := range row {
			remap[i], es[i] = int32(i), e
		}
		r, err := l.b.ProjectRemap(one, remap, es...)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = r
		} else if out, err = l.b.Set(plan.SetOpUnionAll, out, r); err != nil {
			return nil, err
		}
	}
	return out, nil
}
