package ingest

import (
	"fmt"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MaxPlanDepth bounds the nesting of a plan's protobuf messages (a
// relation in a relation, an expression in an expression; each level of
// an expression is two or three messages). It is protobuf-go's own
// decoding limit (protowire's default RecursionLimit), so every plan read
// from bytes (DecodePlan, the server, the CLI) is within it; Build checks
// it for plans a program constructs, deeper than any encoding could carry.
//
// Why: the planner, substrait-go and the bound expressions recurse once or
// more per level. A Go stack grows, but only to 1 GB, and running past it
// is a fatal error no recover catches; 10,000 levels use a few MB.
const MaxPlanDepth = 10000

// checkDepth refuses a plan nested deeper than MaxPlanDepth. The walk
// keeps its own stack, so it cannot overflow whatever it is given.
func checkDepth(p *substraitpb.Plan) error {
	type item struct {
		m     protoreflect.Message
		depth int
	}
	stack := []item{{p.ProtoReflect(), 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > MaxPlanDepth {
			return fmt.Errorf("%w: the plan nests more than %d messages deep", ErrInvalidPlan, MaxPlanDepth)
		}
		it.m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind {
				return true
			}
			switch {
			case fd.IsList():
				l := v.List()
				if fd.Message().FullName() == literalName && it.depth+1 <= MaxPlanDepth {
					// A list literal's elements (a long IN list: a
					// million of them) are one level; a scalar one
					// nests nothing, so it is not pushed.
					for i := range l.Len() {
						if !scalarLiteral(l.Get(i).Message().Interface().(*substraitpb.Expression_Literal)) {
							stack = append(stack, item{l.Get(i).Message(), it.depth + 1})
						}
					}
					return true
				}
				for i := range l.Len() {
					stack = append(stack, item{l.Get(i).Message(), it.depth + 1})
				}
			case fd.IsMap():
				if fd.MapValue().Kind() == protoreflect.MessageKind {
					v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
						stack = append(stack, item{mv.Message(), it.depth + 1})
						return true
					})
				}
			default:
				stack = append(stack, item{v.Message(), it.depth + 1})
			}
			return true
		})
	}
	return nil
}
