package ingest

import "github.com/substrait-io/substrait-protobuf/go/substraitpb"

var fieldRefName = (&substraitpb.Expression_FieldReference{}).ProtoReflect().Descriptor().FullName()

// rootInput gives a field reference that has no root (neither
// root_reference, outer_reference nor expression) root_reference: it
// reads the record of its relation's input. The spec requires the root,
// but DataFusion before 42 left it out (the consumer test suite's
// relation snapshots), and DataFusion's own consumer reads a reference
// without one as a reference into the input (from_substrait_field_reference
// matches only the direct reference); substrait-go refuses it, and the
// validator did ("field reference without a root"). A reference that has
// a root is left as it is.
func rootInput(f *substraitpb.Expression_FieldReference, apply bool) bool {
	if f.GetRootType() != nil {
		return false
	}
	if apply {
		f.RootType = &substraitpb.Expression_FieldReference_RootReference_{RootReference: &substraitpb.Expression_FieldReference_RootReference{}}
	}
	return true
}
