package plan

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// UnnestOnlyParams reports the parameters ($k) that p uses only as the
// list of a stablerow.unnest read (UNNEST($k) in FROM), each with the
// number of such reads; a parameter used anywhere else (as a scalar in an
// expression) is left out. A caller that binds a parameter as a stream
// (exec.ListSource) asks this first: the list is then read by UnnestExec
// array by array, never held whole, and a stream that can be read only
// once needs exactly one read. It looks at the plan as given, before
// subqueries become joins.
func UnnestOnlyParams(p *substraitpb.Plan) map[int]int {
	w := paramWalk{reads: map[int]int{}, other: map[int]bool{}}
	if p != nil {
		w.walk(p.ProtoReflect())
	}
	for k := range w.reads {
		if w.other[k] {
			delete(w.reads, k)
		}
	}
	return w.reads
}

type paramWalk struct {
	reads map[int]int
	other map[int]bool
}

func (w *paramWalk) walk(m protoreflect.Message) {
	switch x := m.Interface().(type) {
	case *substraitpb.ReadRel:
		if k, ok := unnestParamRef(x); ok {
			w.reads[k]++
		}
	case *substraitpb.DynamicParameter:
		w.other[int(x.GetParameterReference())] = true
		return
	}
	eachMessage(m, w.walk)
}

// unnestParamRef is the parameter a read of stablerow.unnest($k) lists.
func unnestParamRef(r *substraitpb.ReadRel) (int, bool) {
	d := r.GetExtensionTable().GetDetail()
	if d == nil {
		return 0, false
	}
	var st structpb.Struct
	if err := d.UnmarshalTo(&st); err != nil {
		return 0, false
	}
	f := st.GetFields()
	if f["relation"].GetStringValue() != "stablerow.unnest" || f["param"] == nil {
		return 0, false
	}
	k, err := intField(f, "param", 0, false)
	if err != nil || k < 1 {
		return 0, false
	}
	return int(k), true
}

// eachMessage calls f on every message m holds directly: message fields,
// the messages of lists and of maps' values. The parameter walks
// (paramWalk, the type walk of ParamTypes) descend a plan with it.
func eachMessage(m protoreflect.Message, f func(protoreflect.Message)) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil {
			return true
		}
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				f(l.Get(i).Message())
			}
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					f(mv.Message())
					return true
				})
			}
		default:
			f(v.Message())
		}
		return true
	})
}
