package plan

import (
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// The take shape has one matcher, here: takeJoin recognizes it at a join
// for the planner's take rule (take.go) and for MatchTake, which the Flight
// SQL server asks which statements it may split into partitions.
//
// At a join (takeJoin): Join(LEFT | INNER) whose condition is exactly one
// equality between a driving (left) column, possibly under a widening
// integer cast, and a column of a NamedTable read on the right without a
// filter, and no post-join filter.
//
// # The statements a server splits (MatchTake)
//
// The seed query's shape, a take of a table's rows by row id with the ids
// bound, and nothing else:
//
//	Root(names)
//	  Project(plain columns of v and t)       each output: v.ord, v.rowid or a column of t
//	  Join(LEFT | INNER, on equal(v.rowid, t._rowid), no post-join filter)
//	    Read extension table stablerow.unnest($k) WITH ORDINALITY  -> v(rowid, ord)
//	    Read named table t, no filter, no projection mask           -> t(...)
//
// It is matched on the statement's Substrait plan (SQL is lowered to it
// by engine.DB.SubstraitPlanOf first), so SQL text and Substrait plans meet
// one rule. The output must hold v.ord: it is what lets a client restore
// the driving order from partitions read in any order.
//
// There is no ORDER BY: a statement that asks for an order gets it, as
// one endpoint, because a client such as ADBC's ExecuteQuery reads a
// FlightInfo's endpoints one after the other and would see the rows
// grouped by fragment. Without ORDER BY, SQL promises no order, so rows
// by fragment are the statement's answer, and ord restores the driving
// order where the client wants it. Anything else (an expression in the
// SELECT list, a WHERE, a LIMIT) is not matched either and runs as one
// endpoint: a split must return exactly the rows the statement returns,
// and only this shape is known to.

// takeJoinShape is a join of the take shape.
type takeJoinShape struct {
	read  *splan.NamedTableReadRel
	inner bool                 // INNER: the take, then a filter on "found"
	dfr   *expr.FieldReference // the driving key column
	cast  bool                 // dfr is under a widening integer cast
	ti    int                  // the table key's field in the join's input (≥ the driving width)
}

// takeJoin matches j (its condition split as jp) against the take shape;
// ok is false when it does not apply.
func takeJoin(j *splan.JoinRel, jp joinParts) (takeJoinShape, bool, error) {
	var s takeJoinShape
	switch j.Type() {
	case splan.JoinTypeLeft:
	case splan.JoinTypeInner:
		s.inner = true
	default:
		return s, false, nil
	}
	if len(jp.keys) != 1 || jp.keys[0].nullEq || len(jp.leftOnly)+len(jp.rightOnly)+len(jp.residual) > 0 || postFilter(j) != nil {
		return s, false, nil
	}
	read, ok := j.Right().(*splan.NamedTableReadRel)
	if !ok || read.Filter() != nil {
		return s, false, nil
	}
	dfr, ok1 := widenedField(jp.keys[0].l)
	tfr, ok2 := jp.keys[0].r.(*expr.FieldReference)
	if !ok1 || !ok2 {
		return s, false, nil
	}
	ti, err := fieldIndex(tfr)
	if err != nil {
		return s, false, err
	}
	_, plain := jp.keys[0].l.(*expr.FieldReference)
	s.read, s.dfr, s.cast, s.ti = read, dfr, !plain, ti
	return s, true, nil
}

// TakeOutKind is what an output column of a matched take holds.
type TakeOutKind int

const (
	TakeOrd   TakeOutKind = iota // v.ord: the 1-based position of the id in the bound list
	TakeRowID                    // v.rowid: the bound id
	TakeTable                    // a column of the table (user or system)
)

// TakeOut is one output column of a matched take.
type TakeOut struct {
	Kind TakeOutKind
	Name string // the table column, for TakeTable
}

// TakeShape is a statement MatchTake matched.
type TakeShape struct {
	Table string
	Param int  // the anchor ($k) of the bound ids
	Inner bool // INNER JOIN: ids with no row give no row; LEFT: a row of NULLs
	Out   []TakeOut
}

// MatchTake matches a Substrait plan against the take shape a server
// splits (above); nil when it is not one. Any plan may come in (a
// client's plan is untrusted): a malformed one is not a match, never a
// panic.
func MatchTake(p *substraitpb.Plan) (shape *TakeShape) {
	defer func() {
		if recover() != nil {
			shape = nil
		}
	}()
	if p == nil || len(p.GetRelations()) != 1 || p.GetRelations()[0].GetRoot() == nil {
		return nil
	}
	p, widths, err := validate(p, nil)
	if err != nil || (widths != nil && decorrelate(p, widths, nil) != nil) {
		return nil
	}
	sp, err := fromProto(p)
	if err != nil || len(sp.GetRoots()) != 1 {
		return nil
	}
	m := &takeMatcher{}
	cols, ok := m.rel(sp.GetRoots()[0].Input())
	if !ok || !m.joined {
		return nil
	}
	hasOrd := false
	for _, c := range cols {
		hasOrd = hasOrd || c.Kind == TakeOrd
	}
	if !hasOrd {
		return nil
	}
	m.shape.Out = cols
	return &m.shape
}

// takeMatcher walks the plan top down: Projects, then one Join.
type takeMatcher struct {
	shape  TakeShape
	joined bool
}

// rel returns what each output column of r holds.
func (m *takeMatcher) rel(r splan.Rel) ([]TakeOut, bool) {
	switch r := r.(type) {
	case *splan.ProjectRel:
		in, ok := m.rel(r.Input())
		if !ok {
			return nil, false
		}
		out := append([]TakeOut{}, in...)
		for _, e := range r.Expressions() {
			fr, ok := e.(*expr.FieldReference)
			if !ok {
				return nil, false
			}
			i, err := fieldIndex(fr)
			if err != nil || i < 0 || i >= len(in) {
				return nil, false
			}
			out = append(out, in[i])
		}
		return emitTake(r.OutputMapping(), out)
	case *splan.JoinRel:
		return m.join(r)
	}
	return nil, false
}

func (m *takeMatcher) join(j *splan.JoinRel) ([]TakeOut, bool) {
	if m.joined {
		return nil, false
	}
	m.joined = true
	param, ok := unnestParam(j.Left())
	if !ok {
		return nil, false
	}
	tname, tcols, ok := plainNamedRead(j.Right())
	if !ok {
		return nil, false
	}
	// v is fields 0 (rowid) and 1 (ord), t follows.
	jp, err := splitJoin(j, 2)
	if err != nil {
		return nil, false
	}
	s, ok, err := takeJoin(j, jp)
	if err != nil || !ok || s.cast {
		return nil, false
	}
	if di, err := fieldIndex(s.dfr); err != nil || di != 0 || s.ti < 2 || s.ti-2 >= len(tcols) || tcols[s.ti-2].Name != "_rowid" {
		return nil, false
	}
	m.shape.Table, m.shape.Param, m.shape.Inner = tname, param, s.inner
	out := append([]TakeOut{{Kind: TakeRowID}, {Kind: TakeOrd}}, tcols...)
	return emitTake(j.OutputMapping(), out)
}

// unnestParam matches a read of stablerow.unnest($k) WITH ORDINALITY of
// bigint and returns k.
func unnestParam(r splan.Rel) (int, bool) {
	e, ok := r.(*splan.ExtensionTableReadRel)
	if !ok || e.Filter() != nil || e.BestEffortFilter() != nil || e.Projection() != nil || e.OutputMapping() != nil || e.Detail() == nil {
		return 0, false
	}
	var st structpb.Struct
	if err := e.Detail().UnmarshalTo(&st); err != nil {
		return 0, false
	}
	f := st.GetFields()
	if f["relation"].GetStringValue() != "stablerow.unnest" || !f["ordinality"].GetBoolValue() ||
		f["element_type"].GetStringValue() != "i64" || f["values"] != nil {
		return 0, false
	}
	n := f["param"].GetNumberValue()
	if n < 1 || n > 1<<20 || n != float64(int(n)) {
		return 0, false
	}
	return int(n), len(e.BaseSchema().Names) == 2
}

// plainNamedRead matches a plain read of a named table: its name and
// columns.
func plainNamedRead(r splan.Rel) (string, []TakeOut, bool) {
	n, ok := r.(*splan.NamedTableReadRel)
	if !ok || n.Filter() != nil || n.BestEffortFilter() != nil || n.Projection() != nil || n.OutputMapping() != nil || len(n.Names()) != 1 {
		return "", nil, false
	}
	var cols []TakeOut
	for _, c := range n.BaseSchema().Names {
		cols = append(cols, TakeOut{Kind: TakeTable, Name: c})
	}
	return n.Names()[0], cols, true
}

// emitTake applies a relation's output mapping.
func emitTake(mapping []int32, in []TakeOut) ([]TakeOut, bool) {
	if mapping == nil {
		return in, true
	}
	out := make([]TakeOut, len(mapping))
	for i, f := range mapping {
		if f < 0 || int(f) >= len(in) {
			return nil, false
		}
		out[i] = in[f]
	}
	return out, true
}
