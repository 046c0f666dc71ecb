package plan

import (
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// fieldIndex returns the field a root struct field reference points at.
func fieldIndex(f *expr.FieldReference) (int, error) {
	if f.Root != expr.RootReference {
		return 0, fmt.Errorf("%w: outer or expression field references", errUnsupported("expression"))
	}
	s, ok := f.Reference.(*expr.StructFieldRef)
	if !ok || s == nil {
		return 0, fmt.Errorf("%w: field reference %s", errUnsupported("expression"), f)
	}
	if s.Child != nil {
		return 0, fmt.Errorf("%w: nested field reference %s", errUnsupported("expression"), f)
	}
	return int(s.Field), nil
}

// refs calls f with every field index e references.
func refs(e expr.Expression, f func(int) error) error {
	if e == nil {
		return nil
	}
	if fr, ok := e.(*expr.FieldReference); ok {
		i, err := fieldIndex(fr)
		if err != nil {
			return err
		}
		return f(i)
	}
	var err error
	e.Visit(func(c expr.Expression) expr.Expression {
		if err == nil {
			err = refs(c, f)
		}
		return c
	})
	return err
}

// refSet returns the fields e references.
func refSet(e expr.Expression) (map[int]bool, error) {
	s := map[int]bool{}
	err := refs(e, func(i int) error { s[i] = true; return nil })
	return s, err
}

// exprArgs returns a function's arguments as expressions.
func exprArgs(name string, n int, arg func(int) types.FuncArg) ([]expr.Expression, error) {
	out := make([]expr.Expression, n)
	for i := range out {
		e, ok := arg(i).(expr.Expression)
		if !ok {
			return nil, fmt.Errorf("%w: %s argument %d is not a value", ErrInvalidPlan, name, i)
		}
		out[i] = e
	}
	return out, nil
}

// funcName is f's name, or "" when substrait-go left the function without
// a declaration (its Name then panics on a nil pointer). A call sql
// has built but not yet encoded (EvalConst) carries its placeholder name,
// "divide@i32_i32" (substraitfn): the part before '@' is the name.
func funcName(f interface{ Name() string }) (name string) {
	defer func() {
		if recover() != nil {
			name = ""
		}
	}()
	name, _, _ = strings.Cut(f.Name(), "@")
	return name
}

// checkFuncs reports the first scalar function in e the planner lacks.
func checkFuncs(e expr.Expression) error {
	if e == nil {
		return nil
	}
	if f, ok := e.(*expr.ScalarFunction); ok {
		n := funcName(f)
		if n == "" {
			return fmt.Errorf("%w: function without a declaration", ErrInvalidPlan)
		}
		_, isBinary := binaryOps[n]
		_, isUnary := unaryOps[n]
		if !isBinary && !isUnary && n != "and" && n != "or" && n != "negate" && n != "extract" && !isExprFunc(n) {
			return fmt.Errorf("%w: %s", errUnsupported("function"), n)
		}
	}
	var err error
	e.Visit(func(c expr.Expression) expr.Expression {
		if err == nil {
			err = checkFuncs(c)
		}
		return c
	})
	return err
}

var binaryOps = map[string]physexpr.Op{
	"equal": physexpr.OpEq, "not_equal": physexpr.OpNe, "lt": physexpr.OpLt, "lte": physexpr.OpLe, "gt": physexpr.OpGt, "gte": physexpr.OpGe,
	"add": physexpr.OpAdd, "subtract": physexpr.OpSub, "multiply": physexpr.OpMul, "divide": physexpr.OpDiv,
	"modulus": physexpr.OpMod,
}

var unaryOps = map[string]physexpr.UnaryOp{"not": physexpr.OpNot, "is_null": physexpr.OpIsNull, "is_not_null": physexpr.OpIsNotNull}

// expr compiles a Substrait expression over sc. The result is an
// physexpr.Memo (a column or literal stays as it is): the node above asks its
// type and binds it to check itself, and the Memo answers without walking
// the subtree again, so planning is linear in the expression's size, not
// quadratic in its depth.
func (p *planner) expr(e expr.Expression, sc scope) (physexpr.Expr, error) {
	x, err := p.exprNode(e, sc)
	if err != nil {
		return nil, err
	}
	return physexpr.NewMemo(x), nil
}

func (p *planner) exprNode(e expr.Expression, sc scope) (physexpr.Expr, error) {
	switch e := e.(type) {
	case *expr.FieldReference:
		i, err := fieldIndex(e)
		if err != nil {
			return nil, err
		}
		return sc.field(i)
	case expr.Literal:
		return literal(e)
	case *expr.ScalarFunction:
		return p.scalarFn(e, sc)
	case *expr.Cast:
		in, err := p.expr(e.Input, sc)
		if err != nil {
			return nil, err
		}
		to, err := arrowType(e.Type)
		if err != nil {
			return nil, err
		}
		from, err := in.DataType(sc.schema())
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
		}
		if arrow.TypeEqual(from, to) && !lengthCast(e.Input.GetType(), e.Type) {
			return in, nil
		}
		if l, ok := in.(physexpr.Lit); ok {
			if v, ok := convertLiteral(l.Value, to); ok {
				return physexpr.Lit{Value: v, Type: to}, nil
			}
		}
		if from.ID() == arrow.UINT64 && to.ID() == arrow.INT64 {
			return asInt64{in}, nil
		}
		if cc, ok := charCast(in, e.Input.GetType(), e.Type); ok {
			return cc, nil
		}
		// physexpr.Cast has PostgreSQL's semantics for every pair SQL can
		// write (text output, float rounding, range errors).
		return physexpr.Cast{E: in, To: to}, nil
	case *expr.SingularOrList:
		return p.inList(e, sc)
	case *expr.IfThen:
		return p.ifThen(e, sc)
	case *expr.DynamicParameter:
		if _, ok := e.OutputType.(*types.ListType); ok {
			return nil, fmt.Errorf("%w: list parameter $%d outside UNNEST", errUnsupported("expression"), e.ParameterReference)
		}
		t, err := arrowType(e.OutputType)
		if err != nil {
			return nil, err
		}
		ref := int(e.ParameterReference)
		u := p.params[ref]
		if u.scalar != nil && !arrow.TypeEqual(u.scalar, t) {
			return nil, fmt.Errorf("%w: parameter $%d used as %s and %s", ErrInvalidPlan, ref, u.scalar, t)
		}
		u.scalar = t
		p.params[ref] = u
		return paramExpr{ref: ref, typ: t}, nil
	case nil:
		return nil, fmt.Errorf("%w: missing expression", ErrInvalidPlan)
	}
	return nil, fmt.Errorf("%w: %T", errUnsupported("expression"), e)
}

// typeOf is e's Arrow type over sc (an invalid combination is a bad plan).
func typeOf(e physexpr.Expr, sc scope) (arrow.DataType, error) {
	t, err := e.DataType(sc.schema())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	return t, nil
}

func (p *planner) scalarFn(f *expr.ScalarFunction, sc scope) (physexpr.Expr, error) {
	name := funcName(f)
	if name == "" {
		return nil, fmt.Errorf("%w: function without a declaration", ErrInvalidPlan)
	}
	if name == "extract" { // its first arguments are enums
		return p.extract(f, sc)
	}
	args, err := exprArgs(name, f.NArgs(), f.Arg)
	if err != nil {
		return nil, err
	}
	cargs := make([]physexpr.Expr, len(args))
	for i, a := range args {
		if name == "add" || name == "subtract" {
			d, ok, err := dayInterval(a) // interval.go
			if err != nil {
				return nil, err
			}
			if ok {
				cargs[i] = d
				continue
			}
		}
		if cargs[i], err = p.expr(a, sc); err != nil {
			return nil, err
		}
	}
	arity := func(n int) error {
		if len(cargs) != n {
			return fmt.Errorf("%w: %s takes %d arguments, got %d", ErrInvalidPlan, name, n, len(cargs))
		}
		return nil
	}
	if op, ok := binaryOps[name]; ok {
		if err := arity(2); err != nil {
			return nil, err
		}
		return p.binary(op, cargs[0], cargs[1], sc)
	}
	if op, ok := unaryOps[name]; ok {
		if err := arity(1); err != nil {
			return nil, err
		}
		return physexpr.Unary{Op: op, E: cargs[0]}, nil
	}
	switch name {
	case "and", "or":
		if len(cargs) == 0 {
			return nil, fmt.Errorf("%w: %s without arguments", ErrInvalidPlan, name)
		}
		op := physexpr.OpAnd
		if name == "or" {
			op = physexpr.OpOr
		}
		acc := cargs[0]
		for _, a := range cargs[1:] {
			acc = physexpr.Binary{Op: op, L: acc, R: a}
		}
		return acc, nil
	case "negate":
		if err := arity(1); err != nil {
			return nil, err
		}
		t, err := typeOf(cargs[0], sc)
		if err != nil {
			return nil, err
		}
		if l, ok := cargs[0].(physexpr.Lit); ok {
			switch v := l.Value.(type) {
			case int64:
				if v != -1<<63 {
					return physexpr.Lit{Value: -v}, nil
				}
			case float64:
				return physexpr.Lit{Value: -v}, nil
			}
		}
		// Integers negate as 0 - x, whose checked subtraction raises
		// "bigint out of range" for -MinInt64 as PostgreSQL's int8um does;
		// floats as x * -1, which keeps the sign of zero (-(0.0) is -0).
		switch {
		case isSignedInt(t) || t.ID() == arrow.UINT64:
		case isFloat(t):
			if t.ID() == arrow.FLOAT32 {
				return p.binary(physexpr.OpMul, cargs[0], physexpr.Lit{Value: float32(-1)}, sc)
			}
			return p.binary(physexpr.OpMul, cargs[0], physexpr.Lit{Value: float64(-1)}, sc)
		default:
			return nil, fmt.Errorf("%w: negate of %s", ErrInvalidPlan, t)
		}
		return p.binary(physexpr.OpSub, zeroOf(t), cargs[0], sc)
	}
	if fn, ok := exprFuncs[name]; ok {
		return fn(p, f, cargs, sc)
	}
	if physexpr.HasFunc(name) {
		return plainFunc(name)(p, f, cargs, sc)
	}
	return nil, fmt.Errorf("%w: %s", errUnsupported("function"), name)
}

// binary builds l op r with both operands converted to one type.
func (p *planner) binary(op physexpr.Op, l, r physexpr.Expr, sc scope) (physexpr.Expr, error) {
	lt, err := typeOf(l, sc)
	if err != nil {
		return nil, err
	}
	rt, err := typeOf(r, sc)
	if err != nil {
		return nil, err
	}
	if e, ok, err := datetimeBinary(op, l, r, lt, rt); ok {
		return e, err
	}
	l, r, _, err = unify(l, r, lt, rt)
	if err != nil {
		return nil, err
	}
	if op <= physexpr.OpGe { // a comparison
		l, r = physexpr.UnwrapWidening(l, r, sc.schema())
	}
	return checked(physexpr.Binary{Op: op, L: l, R: r}, sc)
}

// inList plans `x IN (a, b, ...)`: an physexpr.In when every option is a
// literal of x's type, else the Kleene OR of equalities (the same SQL
// semantics).
func (p *planner) inList(e *expr.SingularOrList, sc scope) (physexpr.Expr, error) {
	if len(e.Options) == 0 {
		return nil, fmt.Errorf("%w: empty IN list", ErrInvalidPlan)
	}
	v, err := p.expr(e.Value, sc)
	if err != nil {
		return nil, err
	}
	vt, err := typeOf(v, sc)
	if err != nil {
		return nil, err
	}
	packed, isPacked, err := p.packedOption(e)
	if err != nil {
		return nil, err
	}
	l, isList := listOption(e)
	if isPacked || isList {
		if vt.ID() == arrow.UINT64 {
			// A row id is bigint in SQL: the operand becomes int64 as
			// unify makes it for a short list (checked), and the list's
			// bigint values are matched against that.
			if v, _, vt, err = unify(v, physexpr.Lit{Value: int64(0)}, vt, arrow.PrimitiveTypes.Int64); err != nil {
				return nil, err
			}
		}
		if isPacked {
			return inPacked(v, vt, packed)
		}
		return inValues(v, vt, l)
	}
	var eqs []physexpr.Expr
	var lits []physexpr.Lit
	var first physexpr.Expr
	same := true
	for _, o := range e.Options {
		co, err := p.expr(o, sc)
		if err != nil {
			return nil, err
		}
		ot, err := typeOf(co, sc)
		if err != nil {
			return nil, err
		}
		l, r, _, err := unify(v, co, vt, ot)
		if err != nil {
			return nil, err
		}
		eqs = append(eqs, physexpr.Binary{Op: physexpr.OpEq, L: l, R: r})
		lit, isLit := r.(physexpr.Lit)
		if first == nil {
			first = l
		}
		same = same && isLit && lit.Value != nil && l.String() == first.String()
		lits = append(lits, lit)
	}
	if same {
		return physexpr.In{E: first, List: lits}, nil
	}
	acc := eqs[0]
	for _, q := range eqs[1:] {
		acc = physexpr.Binary{Op: physexpr.OpOr, L: acc, R: q}
	}
	return acc, nil
}

// literal converts a Substrait literal to an physexpr.Lit.
func literal(l expr.Literal) (physexpr.Expr, error) {
	pl := l.ToProtoLiteral()
	switch v := pl.GetLiteralType().(type) {
	case *substraitpb.Expression_Literal_Boolean:
		return physexpr.Lit{Value: v.Boolean}, nil
	case *substraitpb.Expression_Literal_I8:
		return physexpr.Lit{Value: int8(v.I8)}, nil
	case *substraitpb.Expression_Literal_I16:
		return physexpr.Lit{Value: int16(v.I16)}, nil
	case *substraitpb.Expression_Literal_I32:
		return physexpr.Lit{Value: v.I32}, nil
	case *substraitpb.Expression_Literal_I64:
		return physexpr.Lit{Value: v.I64}, nil
	case *substraitpb.Expression_Literal_Fp32:
		return physexpr.Lit{Value: v.Fp32}, nil
	case *substraitpb.Expression_Literal_Fp64:
		return physexpr.Lit{Value: v.Fp64}, nil
	case *substraitpb.Expression_Literal_String_:
		return physexpr.Lit{Value: v.String_}, nil
	case *substraitpb.Expression_Literal_VarChar_:
		return physexpr.Lit{Value: v.VarChar.GetValue()}, nil
	case *substraitpb.Expression_Literal_FixedChar:
		return charLiteral(v.FixedChar), nil
	case *substraitpb.Expression_Literal_Date:
		return physexpr.Lit{Value: arrow.Date32(v.Date), Type: arrow.FixedWidthTypes.Date32}, nil
	case *substraitpb.Expression_Literal_Decimal_:
		return decimalLiteral(v.Decimal)
	case *substraitpb.Expression_Literal_Timestamp: // deprecated: microseconds
		return physexpr.Lit{Value: arrow.Timestamp(v.Timestamp), Type: &arrow.TimestampType{Unit: arrow.Microsecond}}, nil
	case *substraitpb.Expression_Literal_PrecisionTimestamp_:
		return timestampLiteral(v.PrecisionTimestamp.GetValue(), v.PrecisionTimestamp.GetPrecision())
	case *substraitpb.Expression_Literal_Null:
		t, err := arrowType(types.TypeFromProto(v.Null))
		if err != nil {
			return nil, err
		}
		return physexpr.Lit{Type: t}, nil
	}
	return nil, fmt.Errorf("%w: literal %s", errUnsupported("expression"), l)
}
