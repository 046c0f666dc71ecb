package plan

import (
	"fmt"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// unnestElemTypes are the element types a stablerow.unnest read lists, by
// their element_type spelling (substrait.md §4).
var unnestElemTypes = map[string]arrow.DataType{
	"i64": arrow.PrimitiveTypes.Int64, "fp64": arrow.PrimitiveTypes.Float64,
	"string": arrow.BinaryTypes.String, "bool": arrow.FixedWidthTypes.Boolean,
}

// ParamTypes is the Arrow type each parameter ($k, keyed by k) of p is
// used as, read off the plan as given, the way PostgreSQL's
// parse_analyze_varparams reports the types it inferred for a prepared
// statement's parameters: a scalar use is its DynamicParameter's type, the
// list of a stablerow.unnest read (UNNEST($k)) is a list of the read's
// element type. A client binds a value of that type (Flight SQL's
// parameter_schema, ADBC's GetParameterSchema). Parameters the plan does
// not use are absent. A parameter used with two different types is
// ErrInvalidPlan, as planning it would be.
func ParamTypes(p *substraitpb.Plan) (map[int]arrow.DataType, error) {
	w := paramTypeWalk{types: map[int]arrow.DataType{}}
	if p != nil {
		w.walk(p.ProtoReflect())
	}
	return w.types, w.err
}

type paramTypeWalk struct {
	types map[int]arrow.DataType
	err   error
}

func (w *paramTypeWalk) use(k int, t arrow.DataType) {
	if old, ok := w.types[k]; ok && !arrow.TypeEqual(old, t) && w.err == nil {
		w.err = fmt.Errorf("%w: parameter $%d used as %s and %s", ErrInvalidPlan, k, old, t)
		return
	}
	w.types[k] = t
}

func (w *paramTypeWalk) walk(m protoreflect.Message) {
	if w.err != nil {
		return
	}
	switch x := m.Interface().(type) {
	case *substraitpb.ReadRel:
		if k, ok := unnestParamRef(x); ok {
			t, err := unnestParamType(x)
			if err != nil {
				w.err = err
				return
			}
			w.use(k, arrow.ListOf(t))
		}
	case *substraitpb.DynamicParameter:
		if x.GetType() == nil {
			w.err = fmt.Errorf("%w: dynamic parameter $%d without a type", ErrInvalidPlan, x.GetParameterReference())
			return
		}
		t, err := arrowType(types.TypeFromProto(x.GetType()))
		if err != nil {
			w.err = err
			return
		}
		w.use(int(x.GetParameterReference()), t)
		return
	}
	eachMessage(m, w.walk)
}

// unnestParamType is the element type of a stablerow.unnest read.
func unnestParamType(r *substraitpb.ReadRel) (arrow.DataType, error) {
	var st structpb.Struct
	if err := r.GetExtensionTable().GetDetail().UnmarshalTo(&st); err != nil {
		return nil, fmt.Errorf("%w: unnest detail: %w", ErrInvalidPlan, err)
	}
	et := st.GetFields()["element_type"].GetStringValue()
	t, ok := unnestElemTypes[et]
	if !ok {
		return nil, fmt.Errorf("%w: unnest element type %q (want one of %v)", ErrInvalidPlan, et, slices.Sorted(maps.Keys(unnestElemTypes)))
	}
	return t, nil
}
