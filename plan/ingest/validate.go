package ingest

import (
	"fmt"
	"strings"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/proto"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// validate checks a plan's proto before substrait-go reads it, and is the
// one place that knows each relation's output width over the proto.
//
// Why it exists: substrait-go trusts the plan. A field reference past its
// input's columns, an emit mapping past the relation's fields, a missing
// output type or a missing RelCommon makes it index out of range or
// dereference nil (FuzzSubstrait found each). A recovered panic tells the
// producer nothing, so every such class is refused here instead, with a
// typed error naming the relation by its path in the plan:
//
//	plan: invalid plan: root.input.project.input.filter: condition: field 7 out of range (input has 3 columns)
//
// The walk mirrors substrait-go's reading: for each relation it computes
// the width substrait-go will give it (before and after the emit mapping)
// and checks every expression against its input's width. Relation and
// expression kinds the planner does not handle, and that no planned
// relation could use (window functions, subqueries, nested references),
// are refused here as ErrUnsupported naming them; the others are checked
// only as deep as keeps substrait-go from panicking, and the planner
// refuses what it does not implement by name.
//
// Validate (ingest.go) runs this walk once over the normalized plan;
// Check runs it again, recording what the subquery flattening needs.
func validate(p *substraitpb.Plan, s Schemas) (*substraitpb.Plan, int, error) {
	q, err := normalize(p, s)
	if err != nil {
		return nil, 0, err
	}
	// normalize's walk checked p's types; a copy (normalized, or p with
	// a type substrait-go cannot read) has its types checked at the end.
	copied := q != p
	// Several groupings: one aggregate over the input crossed with the
	// set ids (groupingsets.go); the calls above it typed over its output.
	if r := groupingSetsAsAggregates(q); r != q {
		q = r
		outputTypes(q)
	}
	v, err := check(q, false)
	if err != nil {
		return nil, 0, err
	}
	if r, err := v.replacingProjects(q); err != nil || r != nil {
		if err == nil && copied {
			err = checkTypes(r)
		}
		if err != nil {
			return nil, 0, err
		}
		return r, 0, nil
	}
	if copied {
		if err := checkTypes(q); err != nil {
			return nil, 0, err
		}
	}
	return q, v.subqueries, nil
}

// replacingProjects reads a plan whose emit-less projects replace their
// input rather than append to it, as DuckDB writes them, or returns nil.
//
// The Substrait spec's ProjectRel outputs its input's columns followed by
// its expressions, unless an emit says otherwise. DuckDB's producer
// writes no emit and means the expressions alone (its own consumer reads
// it so); a parent's field references count the expressions only. The
// plan says which it means through its root names: when they number the
// root's columns with each emit-less project replacing its input, and not
// with it appending (the spec's reading, v's), the plan is read as the
// producer meant it: every emit-less project gets the emit that keeps
// its expressions. Only the plan as a whole can tell, so the rule is
// all-or-nothing; a plan whose names match neither reading is left to
// the root's own check ("root has 2 names for 9 columns"). The plan read
// then is a rewritten copy, validated again as such.
func (v *validator) replacingProjects(q *substraitpb.Plan) (*substraitpb.Plan, error) {
	root, err := protoRoot(q)
	if err != nil {
		return nil, err
	}
	names := len(root.GetNames())
	if v.emitless == 0 || names == v.width {
		return nil, nil
	}
	c := proto.Clone(q).(*substraitpb.Plan)
	r := &validator{funcs: map[uint32]string{}, urns: map[uint32]string{}, replace: true}
	if err := r.walk(c); err != nil || r.width != names {
		return nil, nil //nolint:nilerr // not this producer's reading: the spec's stands
	}
	w, err := check(c, false)
	if err != nil {
		return nil, err
	}
	if w.subqueries > 0 {
		// The subquery flattening counts on the spec's reading of the
		// relations inside a subquery too; a DuckDB plan holds none (it
		// writes its subqueries as joins).
		return nil, fmt.Errorf("%w: a plan whose projects replace their input, with subquery expressions", Unsupported("plan"))
	}
	return c, nil
}

// check is validate's walk over q; with widths it records each
// relation's width.
func check(q *substraitpb.Plan, widths bool) (*validator, error) {
	v := &validator{funcs: map[uint32]string{}, urns: map[uint32]string{}}
	if widths {
		v.widths = map[*substraitpb.Rel]int{}
	}
	if err := v.walk(q); err != nil {
		return nil, err
	}
	return v, nil
}

// walk validates q's extensions, its root's relations and its parameter
// bindings, recording the root's width.
func (v *validator) walk(q *substraitpb.Plan) error {
	if err := v.extensions(q); err != nil {
		return err
	}
	root, err := protoRoot(q)
	if err != nil {
		return err
	}
	if v.width, err = v.rel(root.GetInput(), "root.input"); err != nil {
		return err
	}
	for i, b := range q.GetParameterBindings() {
		if err := v.literal(b.GetValue()); err != nil {
			return place(err, fmt.Sprintf("parameter_bindings[%d]", i))
		}
	}
	return nil
}

// validator holds the plan's declared function anchors.
type validator struct {
	funcs map[uint32]string // function anchor -> declared name
	urns  map[uint32]string // function anchor -> URN of its extension
	// packed: the type anchors declaring the packed list type
	// (packedlist.go).
	packed map[uint32]bool

	// Subqueries (subquery_validate.go): outer is the input width of
	// each enclosing query, innermost last, for checking outer
	// references; widths records each relation's output width, and
	// subqueries counts the subquery expressions seen, for unnest.
	outer      []int
	widths     map[*substraitpb.Rel]int
	subqueries int

	// width is the root's width; emitless counts the projects without an
	// emit, and replace gives each one the emit of DuckDB's reading
	// (replacingProjects) as the walk goes.
	width    int
	emitless int
	replace  bool
}

// byNameOwners are the URN owners whose functions the planner knows by
// name: the standard extensions, and "unknown", which migrate.go gives
// functions a producer declared without a usable extension (DataFusion's
// u32::MAX reference, DuckDB's "extension:io.substrait:"). A function of
// any other extension is that extension's own, whatever its name.
var byNameOwners = map[string]bool{"io.substrait": true, derivedURNOwnerWithoutHost: true}

// invalidAt and unsupportedAt make the errors of validate.
func invalidAt(path, format string, args ...any) error {
	return &relErr{path: path, msg: fmt.Sprintf(format, args...)}
}

// unsupportedAt names the construct first ("plan: unsupported relation:
// WindowRel at root.input.fetch.input"), as the planner's own refusals do.
func unsupportedAt(kind, path, format string, args ...any) error {
	return &relErr{kind: kind, path: path, msg: fmt.Sprintf(format, args...)}
}

// relErr is an error of validate at a relation's path. It stays
// structured (rather than a formatted fmt error) so that an error inside
// a subquery's relations can be placed under the path of the expression
// holding the subquery (see validator.subquery).
type relErr struct {
	kind string // "" for an invalid plan, else what is unsupported ("relation")
	path string
	msg  string
}

func (e *relErr) Error() string {
	if e.kind == "" {
		return fmt.Sprintf("%v: %s: %s", ErrInvalidPlan, e.path, e.msg)
	}
	return fmt.Sprintf("%v: %s at %s", Unsupported(e.kind), e.msg, e.path)
}

func (e *relErr) Unwrap() error {
	if e.kind == "" {
		return ErrInvalidPlan
	}
	return Unsupported(e.kind)
}

// extensions records the declared anchors, each tied to a declared URN.
func (v *validator) extensions(p *substraitpb.Plan) error {
	urns := map[uint32]string{}
	for _, u := range p.GetExtensionUrns() {
		urns[u.GetExtensionUrnAnchor()] = u.GetUrn()
	}
	for i, d := range p.GetExtensions() {
		path := fmt.Sprintf("extensions[%d]", i)
		switch m := d.GetMappingType().(type) {
		case *extpb.SimpleExtensionDeclaration_ExtensionFunction_:
			f := m.ExtensionFunction
			urn, ok := urns[f.GetExtensionUrnReference()]
			if !ok {
				return invalidAt(path, "function %q refers to undeclared extension URN anchor %d", f.GetName(), f.GetExtensionUrnReference())
			}
			v.funcs[f.GetFunctionAnchor()] = f.GetName()
			v.urns[f.GetFunctionAnchor()] = urn
		case *extpb.SimpleExtensionDeclaration_ExtensionType_:
			urn, ok := urns[m.ExtensionType.GetExtensionUrnReference()]
			if !ok {
				return invalidAt(path, "type %q refers to undeclared extension URN anchor %d", m.ExtensionType.GetName(), m.ExtensionType.GetExtensionUrnReference())
			}
			if urn == PackedListURN && m.ExtensionType.GetName() == PackedListType {
				if v.packed == nil {
					v.packed = map[uint32]bool{}
				}
				v.packed[m.ExtensionType.GetTypeAnchor()] = true
			}
		case *extpb.SimpleExtensionDeclaration_ExtensionTypeVariation_:
			if _, ok := urns[m.ExtensionTypeVariation.GetExtensionUrnReference()]; !ok {
				return invalidAt(path, "type variation %q refers to undeclared extension URN anchor %d", m.ExtensionTypeVariation.GetName(), m.ExtensionTypeVariation.GetExtensionUrnReference())
			}
		case nil:
			return invalidAt(path, "extension declaration without a mapping")
		}
	}
	return nil
}

// rel checks r (at path) and returns its output width after its emit
// mapping.
func (v *validator) rel(r *substraitpb.Rel, path string) (int, error) {
	if r == nil {
		return 0, invalidAt(path, "missing relation")
	}
	var (
		w      int // width before the emit mapping
		common *substraitpb.RelCommon
		err    error
	)
	switch t := r.GetRelType().(type) {
	case *substraitpb.Rel_Read:
		path += ".read"
		common = t.Read.GetCommon()
		w, err = v.read(t.Read, path)
	case *substraitpb.Rel_Filter:
		path += ".filter"
		common = t.Filter.GetCommon()
		w, err = v.filter(t.Filter, path)
	case *substraitpb.Rel_Project:
		path += ".project"
		common = t.Project.GetCommon()
		w, err = v.project(t.Project, path)
		if _, ok := common.GetEmitKind().(*substraitpb.RelCommon_Emit_); !ok && err == nil {
			v.emitless++
			if v.replace {
				// replacingProjects: the expressions alone, after the
				// input's w-len(expressions) columns.
				n := len(t.Project.GetExpressions())
				m := make([]int32, n)
				for i := range m {
					m[i] = int32(w - n + i)
				}
				common = &substraitpb.RelCommon{Hint: common.GetHint(), AdvancedExtension: common.GetAdvancedExtension(),
					EmitKind: &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: m}}}
				t.Project.Common = common
			}
		}
	case *substraitpb.Rel_Sort:
		path += ".sort"
		common = t.Sort.GetCommon()
		w, err = v.sort(t.Sort, path)
	case *substraitpb.Rel_Fetch:
		path += ".fetch"
		common = t.Fetch.GetCommon()
		w, err = v.rel(t.Fetch.GetInput(), path+".input")
	case *substraitpb.Rel_Aggregate:
		path += ".aggregate"
		common = t.Aggregate.GetCommon()
		w, err = v.aggregate(t.Aggregate, path)
	case *substraitpb.Rel_Join:
		path += ".join"
		common = t.Join.GetCommon()
		w, err = v.join(t.Join, path)
	case *substraitpb.Rel_Cross:
		path += ".cross"
		common = t.Cross.GetCommon()
		w, err = v.pair(t.Cross.GetLeft(), t.Cross.GetRight(), path)
	case *substraitpb.Rel_Set:
		path += ".set"
		common = t.Set.GetCommon()
		w, err = v.set(t.Set, path)
	case nil:
		return 0, invalidAt(path, "relation without a type")
	default:
		return 0, unsupportedAt("relation", path, "%s", relKind(t))
	}
	if err != nil {
		return 0, err
	}
	if !plannedRels[relKind(r.GetRelType())] {
		return 0, unsupportedAt("relation", strings.TrimSuffix(path, path[strings.LastIndex(path, "."):]), "%s", relKind(r.GetRelType()))
	}
	out, err := v.emit(common, w, path)
	if err == nil && v.widths != nil {
		v.widths[r] = out
	}
	return out, err
}

// plannedRels are the relation kinds the planner compiles (compileDirect).
// validate knows the widths of a few more (CrossRel, SetRel), so a plan
// using one is checked whole and then refused by name, never read by
// substrait-go; a relation kind the planner learns is added here.
var plannedRels = map[string]bool{
	"ReadRel": true, "FilterRel": true, "ProjectRel": true, "SortRel": true,
	"FetchRel": true, "AggregateRel": true, "JoinRel": true,
	"CrossRel": true, "SetRel": true,
}

// relKind names a proto relation type as the spec does ("WindowRel").
func relKind(t any) string {
	name := strings.TrimPrefix(fmt.Sprintf("%T", t), "*substraitpb.Rel_")
	return name + "Rel"
}

// emit applies a RelCommon's emit mapping to a relation of width w.
func (v *validator) emit(c *substraitpb.RelCommon, w int, path string) (int, error) {
	e, ok := c.GetEmitKind().(*substraitpb.RelCommon_Emit_)
	if !ok {
		return w, nil
	}
	for i, m := range e.Emit.GetOutputMapping() {
		if m < 0 || int(m) >= w {
			return 0, invalidAt(path, "emit output_mapping[%d] = %d out of range (the relation has %d columns)", i, m, w)
		}
	}
	return len(e.Emit.GetOutputMapping()), nil
}

func (v *validator) read(r *substraitpb.ReadRel, path string) (int, error) {
	switch rt := r.GetReadType().(type) {
	case *substraitpb.ReadRel_NamedTable_, *substraitpb.ReadRel_ExtensionTable_:
	case *substraitpb.ReadRel_VirtualTable_:
		if err := v.virtualTable(rt.VirtualTable, path+".virtual_table"); err != nil {
			return 0, err
		}
	case nil:
		return 0, invalidAt(path, "read without a read type")
	default:
		name := strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", rt), "*substraitpb.ReadRel_"), "_")
		return 0, unsupportedAt("read", path, "%s", name)
	}
	base := r.GetBaseSchema()
	if base == nil || base.GetStruct() == nil {
		if len(base.GetNames()) > 0 {
			// DataFusion's: normalize gives it its types from the
			// catalog when there is one (baseTypes).
			return 0, invalidAt(path, "read whose base_schema has names without types, and no catalog to resolve them")
		}
		return 0, invalidAt(path, "read without a base_schema")
	}
	bw := len(base.GetStruct().GetTypes())
	if e := r.GetFilter(); e != nil {
		if err := v.expr(e, bw); err != nil {
			return 0, place(within(err, "filter"), path)
		}
	}
	if e := r.GetBestEffortFilter(); e != nil {
		if err := v.expr(e, bw); err != nil {
			return 0, place(within(err, "best_effort_filter"), path)
		}
	}
	m := r.GetProjection()
	if m == nil {
		return bw, nil
	}
	if m.GetSelect() == nil {
		return 0, invalidAt(path, "projection mask without a select")
	}
	items := m.GetSelect().GetStructItems()
	for i, it := range items {
		if it.GetChild() != nil {
			return 0, unsupportedAt("read", path, "nested projection mask (projection.select.struct_items[%d].child)", i)
		}
		if f := it.GetField(); f < 0 || int(f) >= bw {
			return 0, invalidAt(path, "projection field %d out of range (base_schema has %d columns)", f, bw)
		}
	}
	return len(items), nil
}

// virtualTable checks VALUES rows: literal structs or expressions over no
// input.
func (v *validator) virtualTable(t *substraitpb.ReadRel_VirtualTable, path string) error {
	if len(t.GetValues()) > 0 && len(t.GetExpressions()) > 0 {
		return invalidAt(path, "both values and expressions")
	}
	for i, row := range t.GetValues() {
		for j, f := range row.GetFields() {
			if err := v.literal(f); err != nil {
				return place(within(err, "values[%d].fields[%d]", i, j), path)
			}
		}
	}
	for i, row := range t.GetExpressions() {
		for j, f := range row.GetFields() {
			if err := v.expr(f, 0); err != nil {
				return place(within(err, "expressions[%d].fields[%d]", i, j), path)
			}
		}
	}
	return nil
}

func (v *validator) filter(r *substraitpb.FilterRel, path string) (int, error) {
	w, err := v.rel(r.GetInput(), path+".input")
	if err != nil {
		return 0, err
	}
	if r.GetCondition() == nil {
		return 0, invalidAt(path, "filter without a condition")
	}
	return w, place(within(v.expr(r.GetCondition(), w), "condition"), path)
}

func (v *validator) project(r *substraitpb.ProjectRel, path string) (int, error) {
	w, err := v.rel(r.GetInput(), path+".input")
	if err != nil {
		return 0, err
	}
	if len(r.GetExpressions()) == 0 {
		return 0, invalidAt(path, "project without expressions")
	}
	for i, e := range r.GetExpressions() {
		if err := v.expr(e, w); err != nil {
			return 0, place(within(err, "expressions[%d]", i), path)
		}
	}
	return w + len(r.GetExpressions()), nil
}

func (v *validator) sort(r *substraitpb.SortRel, path string) (int, error) {
	w, err := v.rel(r.GetInput(), path+".input")
	if err != nil {
		return 0, err
	}
	if len(r.GetSorts()) == 0 {
		return 0, invalidAt(path, "sort without sort fields")
	}
	for i, s := range r.GetSorts() {
		if err := v.sortField(s, w); err != nil {
			return 0, place(within(err, "sorts[%d]", i), path)
		}
	}
	return w, nil
}

// sortField checks a sort key; its error is a *locErr (see place).
func (v *validator) sortField(s *substraitpb.SortField, w int) error {
	if s.GetExpr() == nil {
		return bad("sort field without an expression")
	}
	switch k := s.GetSortKind().(type) {
	case *substraitpb.SortField_Direction:
	case *substraitpb.SortField_ComparisonFunctionReference:
		if _, ok := v.funcs[k.ComparisonFunctionReference]; !ok {
			return bad("comparison function anchor %d is not declared", k.ComparisonFunctionReference)
		}
	default:
		return bad("sort field without a direction")
	}
	return v.expr(s.GetExpr(), w)
}

func (v *validator) aggregate(r *substraitpb.AggregateRel, path string) (int, error) {
	w, err := v.rel(r.GetInput(), path+".input")
	if err != nil {
		return 0, err
	}
	if n := len(r.GetGroupings()); n > 1 {
		// GROUPING SETS, ROLLUP and CUBE are rewritten before this walk
		// into one grouping over the input crossed with the set ids
		// (groupingsets.go); one left here is one whose input types
		// could not be derived (the keys' NULLs need them). Refused by
		// name before substrait-go reads the plan, whose width for
		// several groupings differs from the spec's ("root relation has
		// 3 output names but the output schema requires 5").
		return 0, unsupportedAt("aggregate", path, "GROUPING SETS, ROLLUP or CUBE (%d grouping sets) over an input of unknown types", n)
	}
	out := 0
	if ges := r.GetGroupingExpressions(); len(ges) > 0 {
		for i, e := range ges {
			if err := v.expr(e, w); err != nil {
				return 0, place(within(err, "grouping_expressions[%d]", i), path)
			}
		}
		for i, g := range r.GetGroupings() {
			for j, ref := range g.GetExpressionReferences() {
				if int64(ref) >= int64(len(ges)) {
					return 0, invalidAt(path, "groupings[%d].expression_references[%d] = %d out of range (%d grouping expressions)", i, j, ref, len(ges))
				}
			}
			out += len(g.GetExpressionReferences())
		}
	} else {
		// The deprecated form, expressions inside each grouping
		// (substrait-go reads it when grouping_expressions is empty).
		for i, g := range r.GetGroupings() {
			for j, e := range g.GetGroupingExpressions() {
				if err := v.expr(e, w); err != nil {
					return 0, place(within(err, "groupings[%d].grouping_expressions[%d]", i, j), path)
				}
			}
			out += len(g.GetGroupingExpressions())
		}
	}
	for i, m := range r.GetMeasures() {
		if err := v.measure(m, w); err != nil {
			return 0, place(within(err, "measures[%d]", i), path)
		}
	}
	return out + len(r.GetMeasures()), nil
}

// measure checks one aggregate measure; its error is a *locErr.
func (v *validator) measure(m *substraitpb.AggregateRel_Measure, w int) error {
	f := m.GetMeasure()
	if f == nil {
		return bad("measure without an aggregate function")
	}
	if err := v.function(f.GetFunctionReference(), f.GetOutputType(), f.GetArguments(), w); err != nil {
		return err
	}
	for j, s := range f.GetSorts() {
		if err := v.sortField(s, w); err != nil {
			return within(err, "sorts[%d]", j)
		}
	}
	if m.GetFilter() != nil {
		return within(v.expr(m.GetFilter(), w), "filter")
	}
	return nil
}

// pair checks both inputs of a binary relation and returns the width of
// their concatenation.
func (v *validator) pair(left, right *substraitpb.Rel, path string) (int, error) {
	l, err := v.rel(left, path+".left")
	if err != nil {
		return 0, err
	}
	r, err := v.rel(right, path+".right")
	if err != nil {
		return 0, err
	}
	return l + r, nil
}

func (v *validator) join(j *substraitpb.JoinRel, path string) (int, error) {
	jt := j.GetType()
	switch jt {
	case substraitpb.JoinRel_JOIN_TYPE_UNSPECIFIED:
		return 0, invalidAt(path, "join without a type")
	case substraitpb.JoinRel_JOIN_TYPE_INNER, substraitpb.JoinRel_JOIN_TYPE_OUTER,
		substraitpb.JoinRel_JOIN_TYPE_LEFT, substraitpb.JoinRel_JOIN_TYPE_RIGHT,
		substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI, substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI,
		substraitpb.JoinRel_JOIN_TYPE_LEFT_SINGLE, substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK:
		// substrait-go cannot type a LEFT_MARK join either (it comes out
		// with no columns): Read writes it as a LEFT join it can
		// (markjoin.go).
	default:
		// substrait-go cannot type the others (right semi/anti/single
		// panic in it).
		return 0, unsupportedAt("join", path, "join type %s", jt)
	}
	l, err := v.rel(j.GetLeft(), path+".left")
	if err != nil {
		return 0, err
	}
	lateral := substraitfn.IsLateralJoin(j.GetAdvancedExtension())
	if lateral {
		// Its right input is a query level: outer references there
		// reach the left input's row (substraitfn.LateralJoinURL), and
		// the optimizer's first pass unnests it as it does a subquery.
		v.outer = append(v.outer, l)
		v.subqueries++
	}
	r, err := v.rel(j.GetRight(), path+".right")
	if lateral {
		v.outer = v.outer[:len(v.outer)-1]
	}
	if err != nil {
		return 0, err
	}
	if j.GetExpression() == nil {
		return 0, invalidAt(path, "join without an expression")
	}
	if err := v.expr(j.GetExpression(), l+r); err != nil {
		return 0, place(within(err, "expression"), path)
	}
	if f := j.GetPostJoinFilter(); f != nil {
		if err := v.expr(f, l+r); err != nil {
			return 0, place(within(err, "post_join_filter"), path)
		}
	}
	switch jt {
	case substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI, substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI:
		return l, nil
	case substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK:
		return l + 1, nil // the mark
	}
	return l + r, nil
}

func (v *validator) set(s *substraitpb.SetRel, path string) (int, error) {
	if len(s.GetInputs()) < 2 {
		return 0, invalidAt(path, "set operation with %d inputs (at least 2)", len(s.GetInputs()))
	}
	if s.GetOp() == substraitpb.SetRel_SET_OP_UNSPECIFIED {
		return 0, invalidAt(path, "set operation without an op")
	}
	w := 0
	for i, in := range s.GetInputs() {
		iw, err := v.rel(in, fmt.Sprintf("%s.inputs[%d]", path, i))
		if err != nil {
			return 0, err
		}
		if i == 0 {
			w = iw
		} else if iw != w {
			return 0, invalidAt(path, "inputs[%d] has %d columns, inputs[0] %d", i, iw, w)
		}
	}
	return w, nil
}
