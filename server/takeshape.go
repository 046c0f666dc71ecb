package server

import (
	"strings"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// Which statements a server splits into partitions: the seed query's
// shape, a take of a table's rows by row id with the ids bound, and
// nothing else.
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

// outKind is what an output column of the take shape holds.
type outKind int

const (
	outOrd   outKind = iota // v.ord: the 1-based position of the id in the bound list
	outRowID                // v.rowid: the bound id
	outTable                // a column of the table (user or system)
)

type outCol struct {
	kind outKind
	name string // the table column, for outTable
}

// takeShape is a matched statement.
type takeShape struct {
	table string
	param int  // the anchor ($k) of the bound ids
	inner bool // INNER JOIN: ids with no row give no row; LEFT: a row of NULLs
	out   []outCol
}

// decodePlan reads a Substrait plan as protobuf binary, else protobuf
// JSON; nil when it is neither.
func decodePlan(data []byte) *substraitpb.Plan {
	var p substraitpb.Plan
	if err := proto.Unmarshal(data, &p); err == nil && len(p.GetRelations()) > 0 {
		return &p
	}
	p.Reset()
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, &p); err == nil {
		return &p
	}
	return nil
}

// matchTake matches plan against the take shape; nil when it is not one.
func matchTake(p *substraitpb.Plan) *takeShape {
	if p == nil || len(p.GetRelations()) != 1 {
		return nil
	}
	root := p.GetRelations()[0].GetRoot()
	if root == nil {
		return nil
	}
	m := &matcher{funcs: map[uint32]string{}}
	for _, e := range p.GetExtensions() {
		if f := e.GetExtensionFunction(); f != nil {
			m.funcs[f.GetFunctionAnchor()] = f.GetName()
		}
	}
	cols, ok := m.rel(root.GetInput())
	if !ok || !m.joined {
		return nil
	}
	hasOrd := false
	for _, c := range cols {
		hasOrd = hasOrd || c.kind == outOrd
	}
	if !hasOrd {
		return nil
	}
	m.shape.out = cols
	return &m.shape
}

// matcher walks the plan top down: Projects, then one Join.
type matcher struct {
	funcs  map[uint32]string
	shape  takeShape
	joined bool
}

// rel returns what each output column of r holds.
func (m *matcher) rel(r *substraitpb.Rel) ([]outCol, bool) {
	switch {
	case r.GetProject() != nil:
		pr := r.GetProject()
		in, ok := m.rel(pr.GetInput())
		if !ok {
			return nil, false
		}
		out := append([]outCol{}, in...)
		for _, e := range pr.GetExpressions() {
			i, ok := fieldRef(e)
			if !ok || i >= len(in) {
				return nil, false
			}
			out = append(out, in[i])
		}
		return emit(pr.GetCommon(), out)
	case r.GetJoin() != nil:
		return m.join(r.GetJoin())
	}
	return nil, false
}

func (m *matcher) join(j *substraitpb.JoinRel) ([]outCol, bool) {
	if m.joined || j.GetPostJoinFilter() != nil {
		return nil, false
	}
	m.joined = true
	switch j.GetType() {
	case substraitpb.JoinRel_JOIN_TYPE_LEFT:
	case substraitpb.JoinRel_JOIN_TYPE_INNER:
		m.shape.inner = true
	default:
		return nil, false
	}
	param, ok := unnestParam(j.GetLeft().GetRead())
	if !ok {
		return nil, false
	}
	tname, tcols, ok := namedRead(j.GetRight().GetRead())
	if !ok {
		return nil, false
	}
	m.shape.table, m.shape.param = tname, param
	f := j.GetExpression().GetScalarFunction()
	if f == nil || len(f.GetArguments()) != 2 {
		return nil, false
	}
	if name := m.funcs[f.GetFunctionReference()]; name != "equal" && !strings.HasPrefix(name, "equal:") {
		return nil, false
	}
	a, ok1 := fieldRef(f.GetArguments()[0].GetValue())
	b, ok2 := fieldRef(f.GetArguments()[1].GetValue())
	if !ok1 || !ok2 {
		return nil, false
	}
	if a > b {
		a, b = b, a
	}
	// v is fields 0 (rowid) and 1 (ord), t follows.
	if a != 0 || b < 2 || b-2 >= len(tcols) || tcols[b-2].name != "_rowid" {
		return nil, false
	}
	out := append([]outCol{{kind: outRowID}, {kind: outOrd}}, tcols...)
	return emit(j.GetCommon(), out)
}

// unnestParam matches a read of stablerow.unnest($k) WITH ORDINALITY of
// bigint and returns k.
func unnestParam(r *substraitpb.ReadRel) (int, bool) {
	if r == nil || r.GetFilter() != nil || r.GetBestEffortFilter() != nil || r.GetProjection() != nil ||
		r.GetExtensionTable() == nil || r.GetCommon().GetEmit() != nil {
		return 0, false
	}
	var st structpb.Struct
	if err := r.GetExtensionTable().GetDetail().UnmarshalTo(&st); err != nil {
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
	return int(n), len(r.GetBaseSchema().GetNames()) == 2
}

// namedRead matches a plain read of a named table: its name and columns.
func namedRead(r *substraitpb.ReadRel) (string, []outCol, bool) {
	if r == nil || r.GetFilter() != nil || r.GetBestEffortFilter() != nil || r.GetProjection() != nil ||
		r.GetNamedTable() == nil || len(r.GetNamedTable().GetNames()) != 1 || r.GetCommon().GetEmit() != nil {
		return "", nil, false
	}
	var cols []outCol
	for _, n := range r.GetBaseSchema().GetNames() {
		cols = append(cols, outCol{kind: outTable, name: n})
	}
	return r.GetNamedTable().GetNames()[0], cols, true
}

// fieldRef matches a plain reference to input field i.
func fieldRef(e *substraitpb.Expression) (int, bool) {
	s := e.GetSelection()
	if s == nil || s.GetRootReference() == nil {
		return 0, false
	}
	sf := s.GetDirectReference().GetStructField()
	if sf == nil || sf.GetChild() != nil || sf.GetField() < 0 {
		return 0, false
	}
	return int(sf.GetField()), true
}

// emit applies a relation's output mapping.
func emit(c *substraitpb.RelCommon, in []outCol) ([]outCol, bool) {
	e := c.GetEmit()
	if e == nil {
		return in, true
	}
	out := make([]outCol, len(e.GetOutputMapping()))
	for i, f := range e.GetOutputMapping() {
		if f < 0 || int(f) >= len(in) {
			return nil, false
		}
		out[i] = in[f]
	}
	return out, true
}
