package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/table"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/types/known/anypb"
)

// planner holds the state of one Build.
type planner struct {
	ctx context.Context
	cat Catalog
	opt Options
	// reg is the plan's extension registry: function anchors to the
	// names the plan declares.
	reg    expr.ExtensionRegistry
	tables map[string]TableProvider
	widths map[splan.Rel]int
	params map[int]paramUse
	// extended holds the ProjectExecs withExtra made.
	extended map[exec.Node]extension
	// keySets: filters over table reads that an index may answer.
	keySets map[*splan.NamedTableReadRel]*keySet
	// keyCondSets: the conjuncts of those filters a KeyScanner may answer
	// (indexkeys.go).
	keyCondSets map[*splan.NamedTableReadRel][]KeyCond
	// zonePreds: the zone predicates of filters over table reads
	// (zonepreds.go).
	zonePreds map[*splan.NamedTableReadRel][]table.ZonePred
	// share: the repeated relations compiled once (shared.go); nil: none.
	share *sharing
	// packed: the packed list literals decoded so far (invalues.go).
	packed map[*anypb.Any]PackedList
	// takes: the take-by-key nodes take.go built; each keeps its driving
	// side's order (pathkeys, ordering.go).
	takes map[exec.Node]bool
	// subplans: the joins that stand for a SubPlan filter (a sublink
	// PostgreSQL does not pull up), each to its outer input, whose
	// pathkeys it keeps (ordering.go).
	subplans map[exec.Node]exec.Node
	// perOuterRow: the subplans joins that give each outer row one
	// output row or more (ordering.go withRowBudget).
	perOuterRow map[exec.Node]bool
	// rollupLeaf: while rollup.go compiles a grouping-set expansion over
	// the finest groups' partial states, its join relation's compiled
	// form.
	rollupLeaf map[splan.Rel]*rel
}

// rel is a compiled relation. node produces the columns; cols[i] is the node
// column holding the relation's output field i, or -1 when nothing above
// needs that field (column pruning). A node may hold extra columns (join
// keys, sort keys) that no field maps to.
type rel struct {
	node  exec.Node
	cols  []int
	names []string // output field names, for display
}

// hint passes what a parent knows down to its input.
type hint struct {
	// noTake: a Sort above orders by something other than the driving
	// columns, so the join below must not become a take (the take shape
	// would not hold).
	noTake bool
	// rows, when set (rowsSet), is how many rows of its result a LIMIT
	// right above reads: a projection evaluates its expressions only on
	// those (project), as PostgreSQL projects a row only when the Limit
	// pulls it, so an expression that raises on a row the LIMIT discards
	// does not raise (seed 20261206 case 50198), and a filter stops
	// where the LIMIT has its rows (exec.FilterExec.WithRowBudget: seed
	// 20261228 case 27141).
	rows    int64
	rowsSet bool
}

// scope resolves field references of an expression to node columns.
type scope interface {
	field(i int) (physexpr.Col, error)
	schema() *arrow.Schema
}

func (r *rel) schema() *arrow.Schema { return r.node.Schema() }

func (r *rel) field(i int) (physexpr.Col, error) {
	if i < 0 || i >= len(r.cols) {
		return physexpr.Col{}, fmt.Errorf("%w: field reference %d out of range (%d fields)", ErrInvalidPlan, i, len(r.cols))
	}
	c := r.cols[i]
	if c < 0 || c >= r.node.Schema().NumFields() {
		return physexpr.Col{}, fmt.Errorf("%w: field %d was pruned (planner bug)", ErrInvalidPlan, i)
	}
	// EXPLAIN shows a column by its name in the node it comes from.
	return physexpr.Col{Index: c, Name: r.node.Schema().Field(c).Name}, nil
}

// shifted is the scope of the right input of a join: join fields from off on.
type shifted struct {
	r   *rel
	off int
}

func (s shifted) schema() *arrow.Schema { return s.r.schema() }
func (s shifted) field(i int) (physexpr.Col, error) {
	if i < s.off {
		return physexpr.Col{}, fmt.Errorf("%w: field %d is not on the right side of the join", ErrInvalidPlan, i)
	}
	return s.r.field(i - s.off)
}

// relName names a relation type for errors ("CrossRel").
func relName(r splan.Rel) string { return strings.TrimPrefix(fmt.Sprintf("%T", r), "*plan.") }

// width is the number of output fields of r (after its emit mapping).
func (p *planner) width(r splan.Rel) (int, error) {
	if w, ok := p.widths[r]; ok {
		return w, nil
	}
	w, err := p.directWidth(r)
	if err != nil {
		return 0, err
	}
	if m := r.OutputMapping(); m != nil {
		w = len(m)
	}
	p.widths[r] = w
	return w, nil
}

// directWidth is r's width before its emit mapping.
func (p *planner) directWidth(r splan.Rel) (int, error) {
	switch r := r.(type) {
	case splan.ReadRel:
		if m := r.Projection(); m != nil {
			return len(m.Select()), nil
		}
		return len(r.BaseSchema().Struct.Types), nil
	case *splan.FilterRel:
		return p.width(r.Input())
	case *splan.SortRel:
		return p.width(r.Input())
	case *splan.FetchRel:
		return p.width(r.Input())
	case *splan.ProjectRel:
		w, err := p.width(r.Input())
		return w + len(r.Expressions()), err
	case *splan.JoinRel:
		return p.joinWidth(r)
	case *splan.CrossRel:
		l, err := p.width(r.Left())
		if err != nil {
			return 0, err
		}
		rw, err := p.width(r.Right())
		return l + rw, err
	case *splan.AggregateRel:
		n := len(r.Measures())
		for _, g := range r.GroupingReferences() {
			n += len(g)
		}
		return n, nil
	case *splan.SetRel:
		if len(r.Inputs()) == 0 {
			return 0, fmt.Errorf("%w: SetRel without inputs", ErrInvalidPlan)
		}
		return p.width(r.Inputs()[0])
	}
	return 0, fmt.Errorf("%w: %s", errUnsupported("relation"), relName(r))
}

// needs reports whether field i is needed (nil need: all are).
func needs(need []bool, i int) bool { return need == nil || (i < len(need) && need[i]) }

// compile plans r. need marks the output fields a parent uses (nil: all);
// the result may leave the others out.
func (p *planner) compile(r splan.Rel, need []bool, h hint) (*rel, error) {
	if err := p.ctx.Err(); err != nil {
		return nil, err
	}
	if leaf, ok := p.rollupLeaf[r]; ok {
		return leaf, nil // a grouping-set expansion's join over the finest groups (rollup.go)
	}
	if p.share != nil {
		if k, ok := p.share.key[r]; ok {
			return p.compileShared(r, k, need, h)
		}
	}
	return p.compileRel(r, need, h)
}

// compileRel is compile for one occurrence of r.
func (p *planner) compileRel(r splan.Rel, need []bool, h hint) (*rel, error) {
	mapping := r.OutputMapping()
	dneed := need
	if mapping != nil {
		dw, err := p.directWidth(r)
		if err != nil {
			return nil, err
		}
		for _, m := range mapping {
			if m < 0 || int(m) >= dw {
				return nil, fmt.Errorf("%w: %s emits field %d of %d", ErrInvalidPlan, relName(r), m, dw)
			}
		}
		dneed = make([]bool, dw)
		for o, m := range mapping {
			if needs(need, o) {
				dneed[m] = true
			}
		}
	}
	out, err := p.compileDirect(r, dneed, h)
	if err == nil {
		p.noteEstimate(r, out.node)
	}
	if err != nil || mapping == nil {
		return out, err
	}
	cols := make([]int, len(mapping))
	names := make([]string, len(mapping))
	for o, m := range mapping {
		cols[o], names[o] = out.cols[m], out.names[m]
		if !needs(need, o) {
			cols[o] = -1
		}
	}
	return &rel{node: out.node, cols: cols, names: names}, nil
}

func (p *planner) compileDirect(r splan.Rel, need []bool, h hint) (*rel, error) {
	switch r := r.(type) {
	case *splan.NamedTableReadRel:
		return p.namedRead(r, need)
	case *splan.VirtualTableReadRel:
		return p.virtualTable(r)
	case *splan.ExtensionTableReadRel:
		return p.extensionRead(r)
	case *splan.FilterRel:
		return p.filter(r, need, h)
	case *splan.ProjectRel:
		return p.project(r, need, h)
	case *splan.JoinRel:
		return p.join(r, need, h)
	case *splan.CrossRel:
		return p.cross(r, need)
	case *splan.SortRel:
		return p.sort(r, need, h)
	case *splan.FetchRel:
		return p.fetch(r, need)
	case *splan.AggregateRel:
		return p.aggregate(r)
	case *splan.SetRel:
		return p.setOp(r)
	}
	return nil, fmt.Errorf("%w: %s", errUnsupported("relation"), relName(r))
}

// inputNeed returns the fields of input (width w) that need (over the
// relation's output, whose first w fields are the input's) and exprs use.
func inputNeed(w int, need []bool, exprs ...expr.Expression) ([]bool, error) {
	in := make([]bool, w)
	for i := range in {
		in[i] = needs(need, i)
	}
	for _, e := range exprs {
		if err := refs(e, func(i int) error {
			if i < 0 || i >= w {
				return fmt.Errorf("%w: field reference %d out of range (%d fields)", ErrInvalidPlan, i, w)
			}
			in[i] = true
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return in, nil
}
