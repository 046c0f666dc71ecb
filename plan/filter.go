package plan

import (
	"fmt"

	"github.com/stablerow/stablerow/exec"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// filter plans a FilterRel as a FilterExec (which keeps the input order).
func (p *planner) filter(r *splan.FilterRel, need []bool, h hint) (*rel, error) {
	w, err := p.width(r.Input())
	if err != nil {
		return nil, err
	}
	inNeed, err := inputNeed(w, need, r.Condition())
	if err != nil {
		return nil, err
	}
	p.noteKeySet(r)
	p.noteZonePreds(r)
	in, err := p.compile(r.Input(), inNeed, hint{})
	if err != nil {
		return nil, err
	}
	var out *rel
	if _, having := r.Input().(*splan.AggregateRel); having && constFalseOrNull(r.Condition()) {
		// A HAVING never gates its aggregate: PostgreSQL gates only the
		// WHERE's and joins' pseudoconstant quals (create_gating_plan);
		// a constant HAVING it keeps (under grouping sets,
		// subquery_planner) is the Agg's Filter, over every row read and
		// aggregated. The one it moves the front end put in the WHERE
		// too (sql/havingmove.go), which gates the input there.
		out, err = p.plainFilter(in, in, r.Condition())
	} else {
		out, err = p.applyFilter(in, r.Condition())
	}
	if err != nil || !h.rowsSet {
		return out, err
	}
	if f, ok := out.node.(*exec.FilterExec); ok {
		out.node = f.WithRowBudget(h.rows)
	}
	return out, nil
}

// applyFilter puts a FilterExec of cond over in.
func (p *planner) applyFilter(in *rel, cond expr.Expression) (*rel, error) {
	return p.filterIn(in, in, cond)
}

// filterIn is applyFilter with cond's field references resolved by sc.
func (p *planner) filterIn(in *rel, sc scope, cond expr.Expression) (*rel, error) {
	if isTrue(cond) {
		return in, nil
	}
	if _, err := p.expr(cond, sc); err != nil {
		return nil, err
	}
	if constFalseOrNull(cond) {
		// A constant FALSE or NULL condition gates its input: planned
		// (above), never executed, as PostgreSQL's Result with
		// One-Time Filter: false (exec/onetimefilter.go).
		f := exec.NewOneTimeFalseFilterExec(in.node)
		return &rel{node: f, cols: in.cols, names: in.names}, nil
	}
	return p.plainFilter(in, sc, cond)
}

// plainFilter is a FilterExec of cond over in, evaluated on every row of
// in even when cond is constant.
func (p *planner) plainFilter(in *rel, sc scope, cond expr.Expression) (*rel, error) {
	pred, err := p.expr(cond, sc)
	if err != nil {
		return nil, err
	}
	f, err := exec.NewFilterExec(in.node, pred)
	if err != nil {
		return nil, fmt.Errorf("%w: filter: %w", ErrInvalidPlan, err)
	}
	return &rel{node: f, cols: in.cols, names: in.names}, nil
}

// constFalseOrNull: e is the literal FALSE or a NULL literal.
func constFalseOrNull(e expr.Expression) bool {
	if _, ok := e.(*expr.NullLiteral); ok {
		return true
	}
	l, ok := e.(expr.Literal)
	if !ok {
		return false
	}
	b, ok := l.ToProtoLiteral().GetLiteralType().(*substraitpb.Expression_Literal_Boolean)
	return ok && !b.Boolean
}

// fetch plans a FetchRel (OFFSET/LIMIT; count -1 is all rows) as a LimitExec.
// Over a projection, a filter or a sort the planner elides (sort.go)
// with a count, it is told the rows the limit reads (offset + count,
// hint.rows): a projection evaluates its expressions on those only, a
// filter stops where it has them, as
// PostgreSQL's Limit pulls (and its scan or Result projects and
// filters) one row at a time and stops there.
//
//	LimitExec(offset, count) <- ProjectExec <- LimitExec(0, offset+count) <- input
func (p *planner) fetch(r *splan.FetchRel, need []bool) (*rel, error) {
	if r.Offset() < 0 || r.Count() < -1 {
		return nil, fmt.Errorf("%w: fetch offset %d count %d", ErrInvalidPlan, r.Offset(), r.Count())
	}
	h := hint{}
	switch r.Input().(type) {
	case *splan.ProjectRel, *splan.FilterRel, *splan.SortRel:
		if r.Count() >= 0 && !p.shared(r.Input()) {
			h = hint{rows: r.Offset() + r.Count(), rowsSet: true}
		}
	}
	in, err := p.compile(r.Input(), need, h)
	if err != nil {
		return nil, err
	}
	lim := exec.NewLimitExec(in.node, r.Offset(), r.Count())
	return &rel{node: lim, cols: in.cols, names: in.names}, nil
}

// shared: r is planned once for several consumers (a CTE read twice), so
// no one consumer's LIMIT may cut it.
func (p *planner) shared(r splan.Rel) bool {
	if p.share == nil {
		return false
	}
	_, ok := p.share.key[r]
	return ok
}
