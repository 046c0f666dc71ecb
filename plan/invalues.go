package plan

import (
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/types/known/anypb"
)

// A SingularOrList whose only option is a list is `x IN (the list's
// elements)`, planned as one physexpr.InValues, a typed slice and hash set.
// The list is either
//
//   - a packed list literal (packedlist.go): the SQL front end's form of a
//     long IN list of constants (sql/constlist.go), one user-defined
//     literal whose bytes are read straight into the slice; or
//   - a standard list literal of i32, i64, fp64 or string literals of x's
//     type, or NULLs: what `substrait -emit` writes for the packed form,
//     and what an outside producer may send.

// packedListID is the packed list type's extension ID.
var packedListID = extensions.ID{URN: PackedListURN, Name: PackedListType}

// PackedLiteral is the packed list a as a Substrait literal, declaring
// its type in reg (the plan builder's extension set).
func PackedLiteral(reg interface{ GetTypeAnchor(extensions.ID) uint32 }, a *anypb.Any) expr.Literal {
	return &expr.ProtoLiteral{
		Value: &substraitpb.Expression_Literal_UserDefined_Value{Value: a},
		Type:  &types.UserDefinedType{Nullability: types.NullabilityRequired, TypeReference: reg.GetTypeAnchor(packedListID)},
	}
}

// listOption returns the standard list literal a SingularOrList holds as
// its only option.
func listOption(e *expr.SingularOrList) (*expr.ListLiteral, bool) {
	if len(e.Options) != 1 {
		return nil, false
	}
	l, ok := e.Options[0].(*expr.ListLiteral)
	return l, ok
}

// packedOption returns the packed list a SingularOrList holds as its only
// option.
func (p *planner) packedOption(e *expr.SingularOrList) (PackedList, bool, error) {
	if len(e.Options) != 1 {
		return PackedList{}, false, nil
	}
	return p.packedOf(e.Options[0])
}

// packedOf decodes o when it is a packed list literal, once per Build
// (the index key set and the filter both read it).
func (p *planner) packedOf(o expr.Expression) (PackedList, bool, error) {
	a, ok := packedAny(o, p.reg)
	if !ok {
		return PackedList{}, false, nil
	}
	if l, ok := p.packed[a]; ok {
		return l, true, nil
	}
	l, err := DecodePackedList(a)
	if err != nil {
		return PackedList{}, true, err
	}
	if p.packed == nil {
		p.packed = map[*anypb.Any]PackedList{}
	}
	p.packed[a] = l
	return l, true, nil
}

// packedAny returns the payload of a packed list literal: a user-defined
// literal whose type reference names the packed list type.
func packedAny(o expr.Expression, reg expr.ExtensionRegistry) (*anypb.Any, bool) {
	lit, ok := o.(*expr.ProtoLiteral)
	if !ok {
		return nil, false
	}
	t, ok := lit.Type.(*types.UserDefinedType)
	if !ok {
		return nil, false
	}
	if id, ok := reg.DecodeType(t.TypeReference); !ok || id != packedListID {
		return nil, false
	}
	v, ok := lit.Value.(*substraitpb.Expression_Literal_UserDefined_Value)
	if !ok {
		return nil, false
	}
	return v.Value, true
}

// inPacked plans v IN (a packed list).
func inPacked(v physexpr.Expr, vt arrow.DataType, l PackedList) (physexpr.Expr, error) {
	want := map[arrow.Type]PackedKind{arrow.INT32: PackedI32, arrow.INT64: PackedI64, arrow.FLOAT64: PackedF64, arrow.STRING: PackedString}
	k, ok := want[vt.ID()]
	if !ok {
		return nil, fmt.Errorf("%w: IN list literal over %s", errUnsupported("expression"), vt)
	}
	if k != l.Kind {
		return nil, fmt.Errorf("%w: packed IN list of %s, the operand %s", ErrInvalidPlan, l.Kind, vt)
	}
	return physexpr.InValues{E: v, Values: l.Values, Null: l.Null}, nil
}

// inValues plans v IN (l's elements).
func inValues(v physexpr.Expr, vt arrow.DataType, l *expr.ListLiteral) (physexpr.Expr, error) {
	if len(l.Value) == 0 {
		return nil, fmt.Errorf("%w: empty IN list", ErrInvalidPlan)
	}
	null := false
	bad := func(i int) error {
		return fmt.Errorf("%w: IN list element %d is %s, the operand %s", ErrInvalidPlan, i, l.Value[i].GetType(), vt)
	}
	var values any
	switch vt.ID() {
	case arrow.INT32:
		values, null = elements[int32](l, bad)
	case arrow.INT64:
		values, null = elements[int64](l, bad)
	case arrow.FLOAT64:
		values, null = elements[float64](l, bad)
	case arrow.STRING:
		values, null = elements[string](l, bad)
	default:
		return nil, fmt.Errorf("%w: IN list literal over %s", errUnsupported("expression"), vt)
	}
	if err, ok := values.(error); ok {
		return nil, err
	}
	return physexpr.InValues{E: v, Values: values, Null: null}, nil
}

// elements reads the list's values as T (an error value when one is of
// another type) and whether it holds a NULL.
func elements[T int32 | int64 | float64 | string](l *expr.ListLiteral, bad func(int) error) (any, bool) {
	out := make([]T, 0, len(l.Value))
	null := false
	for i, el := range l.Value {
		switch x := el.(type) {
		case *expr.PrimitiveLiteral[T]:
			out = append(out, x.Value)
		case *expr.NullLiteral:
			null = true
		default:
			return bad(i), false
		}
	}
	return out, null
}
