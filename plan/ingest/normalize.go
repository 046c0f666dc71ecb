package ingest

import (
	"fmt"
	"strings"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// normalize returns p, or a copy of it in the shape substrait-go reads,
// for the valid plans it would otherwise refuse or panic on:
//
//   - extensions declared through the removed URI fields, a declaration
//     that references no declared extension, a malformed URN (see
//     migrate.go); function names as producers spell them (funcnames.go).
//   - a relation without a RelCommon (the spec makes it optional; several
//     producers leave it out): substrait-go dereferences it on Sort,
//     Join, Aggregate, Set and Cross and panics. It gets an empty one
//     (direct emit).
//   - a FetchRel with a count and no offset, or an offset and no count
//     ("LIMIT 5", "OFFSET 2"): substrait-go refuses it as "missing
//     required Offset field". The missing side becomes offset 0 or count
//     -1 (all rows); an offset_expr / count_expr that is an integer
//     literal becomes the plain field.
//   - a function call that passes its operands in the deprecated `args`
//     field (older producers) rather than `arguments`: substrait-go reads
//     only `arguments`, so the call would lose its operands.
//   - a ReadRel with a flat projection mask (DuckDB and DataFusion read
//     this way): substrait-go's ReadRel.RecordType ignores the mask, so a
//     parent that checks or derives types (a SetRel's inputs must agree)
//     sees the whole base schema and refuses a valid plan. The mask
//     becomes the equivalent emit mapping (composed with any emit the
//     read already has), which substrait-go does apply; the planner
//     still reads only the columns a parent uses.
//   - a read of a named table whose base_schema names its columns without
//     their types (DataFusion writes no struct): the types come from the
//     table (s, the catalog), each column found by its name as the
//     planner finds it; a name the table lacks is an error (baseTypes).
//   - a field reference without a root (DataFusion's older plans): it
//     reads its input, root_reference (rootInput, fieldroot.go).
//   - a scalar or aggregate call without its output_type (DataFusion's
//     older plans): the type its declared signature returns for its
//     arguments' types (outputTypes, outputtype.go).
//
// p is not modified: the walk first only looks, and copies p when there
// is something to change.
func normalize(p *substraitpb.Plan, s Schemas) (*substraitpb.Plan, error) {
	legacy, err := binaryURIs(p, false)
	if err != nil {
		return nil, err
	}
	need := !legacy.empty()
	need = migrateURIs(p, legacy, false) || need
	need = renameFuncs(p, false) || need
	fix, err := fixup(p.ProtoReflect(), s, false)
	if err != nil {
		return nil, err
	}
	if !need && !fix {
		return p, nil
	}
	q := proto.Clone(p).(*substraitpb.Plan)
	if _, err := binaryURIs(q, true); err != nil {
		return nil, err
	}
	migrateURIs(q, legacy, true)
	renameFuncs(q, true)
	if _, err := fixup(q.ProtoReflect(), s, true); err != nil {
		return nil, err
	}
	outputTypes(q)
	return q, nil
}

var (
	relCommonName = (&substraitpb.RelCommon{}).ProtoReflect().Descriptor().FullName()
	fetchName     = (&substraitpb.FetchRel{}).ProtoReflect().Descriptor().FullName()
	readName      = (&substraitpb.ReadRel{}).ProtoReflect().Descriptor().FullName()
	scalarFnName  = (&substraitpb.Expression_ScalarFunction{}).ProtoReflect().Descriptor().FullName()
	aggFnName     = (&substraitpb.AggregateFunction{}).ProtoReflect().Descriptor().FullName()
)

// fixup walks m and reports whether anything needs normalizing; with
// apply it also changes it.
func fixup(m protoreflect.Message, s Schemas, apply bool) (bool, error) {
	need := false
	d := m.Descriptor()
	switch d.FullName() {
	case literalName, typeName, namedStructName:
		// The look-only pass is also the plan's type check (checkTypes),
		// one walk instead of two: a type substrait-go cannot read (or a
		// base schema of names only, which baseTypes fills) sends the
		// plan down the copying path, whose copy validate has checkTypes
		// check, after the validation, naming the field. A literal holds no relation or function to
		// normalize, and a long IN list's literal a million elements,
		// which walkTypes skips when they are scalars.
		return !apply && walkTypes(m) != nil, nil
	}
	// A relation message (one with a RelCommon "common" field) without it.
	if fd := d.Fields().ByName("common"); fd != nil && fd.Message() != nil && fd.Message().FullName() == relCommonName && !m.Has(fd) {
		need = true
		if apply {
			m.Set(fd, protoreflect.ValueOfMessage((&substraitpb.RelCommon{}).ProtoReflect()))
		}
	}
	switch d.FullName() {
	case readName:
		r := m.Interface().(*substraitpb.ReadRel)
		n, err := baseTypes(r, s, apply)
		if err != nil {
			return false, err
		}
		need = maskToEmit(r, apply) || n || need
	case fieldRefName:
		need = rootInput(m.Interface().(*substraitpb.Expression_FieldReference), apply) || need
	case fetchName:
		n, err := fixFetch(m.Interface().(*substraitpb.FetchRel), apply)
		if err != nil {
			return false, err
		}
		need = need || n
	case scalarFnName:
		f := m.Interface().(*substraitpb.Expression_ScalarFunction)
		need = need || f.GetOutputType() == nil                 // typed by outputTypes
		if len(f.GetArguments()) == 0 && len(f.GetArgs()) > 0 { //nolint:staticcheck // reading the deprecated field is the point
			need = true
			if apply {
				f.Arguments, f.Args = valueArgs(f.GetArgs()), nil //nolint:staticcheck
			}
		}
	case aggFnName:
		f := m.Interface().(*substraitpb.AggregateFunction)
		need = need || f.GetOutputType() == nil                 // typed by outputTypes
		if len(f.GetArguments()) == 0 && len(f.GetArgs()) > 0 { //nolint:staticcheck
			need = true
			if apply {
				f.Arguments, f.Args = valueArgs(f.GetArgs()), nil //nolint:staticcheck
			}
		}
	}
	// (A loop over the descriptor, not m.Range: no closure per message;
	// this walk runs on every plan.)
	fields := d.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if (fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind) || !m.Has(fd) {
			continue
		}
		var n bool
		var err error
		switch {
		case fd.IsList():
			l := m.Get(fd).List()
			for j := 0; j < l.Len() && err == nil; j++ {
				var nj bool
				nj, err = fixup(l.Get(j).Message(), s, apply)
				n = n || nj
			}
		case fd.IsMap():
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				m.Get(fd).Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					var nk bool
					nk, err = fixup(mv.Message(), s, apply)
					n = n || nk
					return err == nil
				})
			}
		default:
			n, err = fixup(m.Get(fd).Message(), s, apply)
		}
		if err != nil {
			return false, err
		}
		need = need || n
	}
	return need, nil
}

// maskToEmit turns r's flat projection mask (a select of top-level
// fields, none with a child) into the emit mapping that selects the same
// fields; a nested mask is left to the planner, which refuses it.
func maskToEmit(r *substraitpb.ReadRel, apply bool) bool {
	items := r.GetProjection().GetSelect().GetStructItems()
	if len(items) == 0 {
		return false
	}
	mask := make([]int32, len(items))
	width := int32(len(r.GetBaseSchema().GetStruct().GetTypes()))
	for i, it := range items {
		if it.GetChild() != nil || it.GetField() < 0 || it.GetField() >= width {
			return false // nested, or out of range: validate names it
		}
		mask[i] = it.GetField()
	}
	if !apply {
		return true
	}
	out := mask
	if e, ok := r.GetCommon().GetEmitKind().(*substraitpb.RelCommon_Emit_); ok {
		out = make([]int32, len(e.Emit.GetOutputMapping()))
		for i, m := range e.Emit.GetOutputMapping() {
			if m < 0 || int(m) >= len(mask) {
				return true // out of range: left for validate to name
			}
			out[i] = mask[m]
		}
	}
	if r.Common == nil {
		r.Common = &substraitpb.RelCommon{}
	}
	r.Common.EmitKind = &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: out}}
	r.Projection = nil
	return true
}

// valueArgs wraps deprecated expression args as value arguments.
func valueArgs(args []*substraitpb.Expression) []*substraitpb.FunctionArgument {
	out := make([]*substraitpb.FunctionArgument, len(args))
	for i, a := range args {
		out[i] = &substraitpb.FunctionArgument{ArgType: &substraitpb.FunctionArgument_Value{Value: a}}
	}
	return out
}

// fixFetch gives a fetch both its offset and its count as plain numbers.
func fixFetch(f *substraitpb.FetchRel, apply bool) (bool, error) {
	need := false
	switch o := f.GetOffsetMode().(type) {
	case nil:
		need = true
		if apply {
			f.OffsetMode = &substraitpb.FetchRel_Offset{Offset: 0}
		}
	case *substraitpb.FetchRel_OffsetExpr:
		n, err := intLiteral(o.OffsetExpr, "offset")
		if err != nil {
			return false, err
		}
		need = true
		if apply {
			f.OffsetMode = &substraitpb.FetchRel_Offset{Offset: n}
		}
	}
	switch c := f.GetCountMode().(type) {
	case nil:
		need = true
		if apply {
			f.CountMode = &substraitpb.FetchRel_Count{Count: -1} //nolint:staticcheck // -1: all rows
		}
	case *substraitpb.FetchRel_CountExpr:
		n, err := intLiteral(c.CountExpr, "count")
		if err != nil {
			return false, err
		}
		need = true
		if apply {
			f.CountMode = &substraitpb.FetchRel_Count{Count: n} //nolint:staticcheck
		}
	}
	return need, nil
}

// intLiteral reads a fetch's offset_expr or count_expr: an integer
// literal (a NULL count is all rows, as in LIMIT NULL).
func intLiteral(e *substraitpb.Expression, what string) (int64, error) {
	l := e.GetLiteral()
	var n int64
	switch v := l.GetLiteralType().(type) {
	case *substraitpb.Expression_Literal_I64:
		n = v.I64
	case *substraitpb.Expression_Literal_I32:
		n = int64(v.I32)
	case *substraitpb.Expression_Literal_I16:
		n = int64(v.I16)
	case *substraitpb.Expression_Literal_I8:
		n = int64(v.I8)
	case *substraitpb.Expression_Literal_Null:
		if what == "count" {
			return -1, nil
		}
		return 0, nil
	default:
		return 0, fmt.Errorf("%w: fetch %s_expr that is not an integer literal", Unsupported("fetch"), what)
	}
	if n < 0 {
		return 0, fmt.Errorf("%w: fetch %s_expr %d is negative", ErrInvalidPlan, what, n)
	}
	return n, nil
}

// Schemas gives the types of a named table's columns: the catalog, for a
// read whose base_schema names its columns without their types.
type Schemas interface {
	// ColumnTypes returns the Substrait type of each of the named
	// columns of the table (its names as the read gives them), in the
	// order of columns: a column found by its name, not its position. An
	// unknown table or column is an error (ErrInvalidPlan or the
	// catalog's unknown table).
	ColumnTypes(table, columns []string) ([]*substraitpb.Type, error)
}

// baseTypes gives a named table's read whose base_schema has names and
// no struct (DataFusion's) the types of those columns from s. Without s
// (a caller with no catalog) the read is left for the validator to
// refuse.
func baseTypes(r *substraitpb.ReadRel, s Schemas, apply bool) (bool, error) {
	base := r.GetBaseSchema()
	if base == nil || base.GetStruct() != nil || len(base.GetNames()) == 0 || r.GetNamedTable() == nil || s == nil {
		return false, nil
	}
	if !apply {
		return true, nil
	}
	ts, err := s.ColumnTypes(r.GetNamedTable().GetNames(), base.GetNames())
	if err != nil {
		return false, fmt.Errorf("the base_schema of %q, which names its columns without their types: %w", strings.Join(r.GetNamedTable().GetNames(), "."), err)
	}
	if len(ts) != len(base.GetNames()) {
		return false, fmt.Errorf("%w: %d types for the %d columns of %q", ErrInvalidPlan, len(ts), len(base.GetNames()), strings.Join(r.GetNamedTable().GetNames(), "."))
	}
	base.Struct = &substraitpb.Type_Struct{Types: ts, Nullability: substraitpb.Type_NULLABILITY_REQUIRED}
	return true, nil
}
