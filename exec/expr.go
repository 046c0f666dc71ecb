package exec

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Expr is a scalar expression evaluated column-at-a-time over a batch.
// Evaluate returns a new array of batch.NumRows() the caller must Release.
type Expr interface {
	Evaluate(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error)
	DataType(schema *arrow.Schema) (arrow.DataType, error)
	String() string
}

// Col references column Index (Name is for display).
type Col struct {
	Index int
	Name  string
}

func (c Col) String() string { return fmt.Sprintf("%s@%d", c.Name, c.Index) }
func (c Col) DataType(s *arrow.Schema) (arrow.DataType, error) {
	if c.Index < 0 || c.Index >= s.NumFields() {
		return nil, fmt.Errorf("%w: column %d out of range", ErrInvalidArgument, c.Index)
	}
	return s.Field(c.Index).Type, nil
}
func (c Col) Evaluate(_ context.Context, _ memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	if c.Index < 0 || c.Index >= int(b.NumCols()) {
		return nil, fmt.Errorf("%w: column %d out of range", ErrInvalidArgument, c.Index)
	}
	a := b.Column(c.Index)
	a.Retain()
	return a, nil
}

// Lit is a literal; Value is a Go value accepted by scalar.MakeScalar (nil: typed NULL of Type).
type Lit struct {
	Value any
	Type  arrow.DataType // required when Value is nil
}

func (l Lit) scalar() (scalar.Scalar, error) {
	if l.Value == nil {
		if l.Type == nil {
			return nil, fmt.Errorf("%w: NULL literal without type", ErrInvalidArgument)
		}
		return scalar.MakeNullScalar(l.Type), nil
	}
	s := scalar.MakeScalar(l.Value)
	if s == nil || s.DataType().ID() == arrow.NULL {
		return nil, fmt.Errorf("%w: literal of type %T", ErrInvalidArgument, l.Value)
	}
	return s, nil
}
func (l Lit) String() string {
	if l.Value == nil {
		return "NULL"
	}
	if s, ok := l.Value.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(l.Value)
}
func (l Lit) DataType(*arrow.Schema) (arrow.DataType, error) {
	s, err := l.scalar()
	if err != nil {
		return nil, err
	}
	return s.DataType(), nil
}
func (l Lit) Evaluate(_ context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	s, err := l.scalar()
	if err != nil {
		return nil, err
	}
	return scalar.MakeArrayFromScalar(s, int(b.NumRows()), mem)
}

// call runs an arrow compute function over evaluated arrays.
func call(ctx context.Context, mem memory.Allocator, fn string, opts compute.FunctionOptions, args ...arrow.Array) (arrow.Array, error) {
	ds := make([]compute.Datum, len(args))
	for i, a := range args {
		ds[i] = compute.NewDatumWithoutOwning(a)
	}
	res, err := compute.CallFunction(compute.WithAllocator(ctx, mem), fn, opts, ds...)
	if err != nil {
		return nil, fmt.Errorf("exec: %s: %w", fn, err)
	}
	defer res.Release()
	ad, ok := res.(*compute.ArrayDatum)
	if !ok {
		return nil, fmt.Errorf("%w: %s returned %s", ErrSchema, fn, res.Kind())
	}
	return ad.MakeArray(), nil
}

func evalAll(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, es ...Expr) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(es))
	for _, e := range es {
		a, err := e.Evaluate(ctx, mem, b)
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// Op is a binary operator.
type Op int

const (
	OpEq Op = iota
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpAnd // Kleene
	OpOr  // Kleene
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpMod // remainder with the dividend's sign (Postgres %); x % 0 is an error
)

var opInfo = [...]struct{ sym, fn string }{
	{"=", "equal"}, {"<>", "not_equal"}, {"<", "less"}, {"<=", "less_equal"}, {">", "greater"}, {">=", "greater_equal"},
	{"AND", "and_kleene"}, {"OR", "or_kleene"},
	{"+", "add"}, {"-", "subtract"}, {"*", "multiply"}, {"/", "divide"}, {"%", "modulus"},
}

// Binary applies Op to L and R (operands must have the same type).
type Binary struct {
	Op   Op
	L, R Expr
}

func (e Binary) String() string {
	if e.Op < 0 || int(e.Op) >= len(opInfo) {
		return "?"
	}
	return fmt.Sprintf("%s %s %s", e.L, opInfo[e.Op].sym, e.R)
}
func (e Binary) DataType(s *arrow.Schema) (arrow.DataType, error) {
	if e.Op < 0 || int(e.Op) >= len(opInfo) {
		return nil, fmt.Errorf("%w: operator %d", ErrInvalidArgument, e.Op)
	}
	lt, err := e.L.DataType(s)
	if err != nil {
		return nil, err
	}
	rt, err := e.R.DataType(s)
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(lt, rt) {
		return nil, fmt.Errorf("%w: %s: operand types %s and %s differ (add a Cast)", ErrSchema, e, lt, rt)
	}
	switch {
	case e.Op <= OpGe:
		return arrow.FixedWidthTypes.Boolean, nil
	case e.Op <= OpOr:
		if lt.ID() != arrow.BOOL {
			return nil, fmt.Errorf("%w: %s needs boolean operands", ErrSchema, e)
		}
		return lt, nil
	}
	return lt, nil
}
func (e Binary) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	if _, err := e.DataType(b.Schema()); err != nil {
		return nil, err
	}
	args, err := evalAll(ctx, mem, b, e.L, e.R)
	if err != nil {
		return nil, err
	}
	defer releaseAll(args)
	if e.Op == OpMod {
		return modulus(mem, args[0], args[1])
	}
	return call(ctx, mem, opInfo[e.Op].fn, nil, args...)
}

// modulus is % for integer and float arrays; arrow-go has no kernel for it.
func modulus(mem memory.Allocator, l, r arrow.Array) (arrow.Array, error) {
	switch a := l.(type) {
	case *array.Int64:
		return remainder(a, r.(*array.Int64), array.NewInt64Builder(mem), func(x, y int64) int64 {
			if y == -1 { // MinInt64 % -1 would trap
				return 0
			}
			return x % y
		})
	case *array.Float64:
		return remainder(a, r.(*array.Float64), array.NewFloat64Builder(mem), math.Mod)
	}
	return nil, fmt.Errorf("%w: %% on %s", ErrSchema, l.DataType())
}

type numArray[T int64 | float64] interface {
	arrow.Array
	Value(int) T
}

func remainder[T int64 | float64](a, b numArray[T], bld fixedBuilder[T], rem func(x, y T) T) (arrow.Array, error) {
	defer bld.Release()
	n := a.Len()
	bld.Reserve(n)
	for i := 0; i < n; i++ {
		if a.IsNull(i) || b.IsNull(i) {
			bld.UnsafeAppendBoolToBitmap(false)
			continue
		}
		if b.Value(i) == 0 {
			return nil, fmt.Errorf("%w: division by zero", ErrInvalidArgument)
		}
		bld.UnsafeAppend(rem(a.Value(i), b.Value(i)))
	}
	return bld.NewArray(), nil
}

// fixedBuilder is the part of arrow's typed builders remainder needs.
type fixedBuilder[T any] interface {
	Reserve(int)
	UnsafeAppend(T)
	UnsafeAppendBoolToBitmap(bool)
	NewArray() arrow.Array
	Release()
}

// Unary operators.
type UnaryOp int

const (
	OpNot UnaryOp = iota
	OpIsNull
	OpIsNotNull
)

type Unary struct {
	Op UnaryOp
	E  Expr
}

func (e Unary) String() string {
	switch e.Op {
	case OpNot:
		return fmt.Sprintf("NOT %s", e.E)
	case OpIsNull:
		return fmt.Sprintf("%s IS NULL", e.E)
	}
	return fmt.Sprintf("%s IS NOT NULL", e.E)
}
func (e Unary) DataType(s *arrow.Schema) (arrow.DataType, error) {
	t, err := e.E.DataType(s)
	if err != nil {
		return nil, err
	}
	if e.Op == OpNot && t.ID() != arrow.BOOL {
		return nil, fmt.Errorf("%w: NOT needs boolean, got %s", ErrSchema, t)
	}
	if e.Op < OpNot || e.Op > OpIsNotNull {
		return nil, fmt.Errorf("%w: unary operator %d", ErrInvalidArgument, e.Op)
	}
	return arrow.FixedWidthTypes.Boolean, nil
}
func (e Unary) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	if _, err := e.DataType(b.Schema()); err != nil {
		return nil, err
	}
	a, err := e.E.Evaluate(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	bb := array.NewBooleanBuilder(mem)
	defer bb.Release()
	bb.Reserve(a.Len())
	if e.Op == OpNot {
		ba, ok := a.(*array.Boolean)
		if !ok {
			return nil, fmt.Errorf("%w: NOT needs boolean, got %s", ErrSchema, a.DataType())
		}
		for i := 0; i < ba.Len(); i++ {
			if ba.IsNull(i) {
				bb.UnsafeAppendBoolToBitmap(false) // NOT NULL is NULL
			} else {
				bb.UnsafeAppend(!ba.Value(i))
			}
		}
		return bb.NewArray(), nil
	}
	// NULL tests read the validity bitmap directly; the result is never NULL.
	want := e.Op == OpIsNotNull
	for i := 0; i < a.Len(); i++ {
		bb.UnsafeAppend(a.IsValid(i) == want)
	}
	return bb.NewArray(), nil
}

// In is E IN (List...) with SQL semantics: NULL if no match and E or any item is NULL.
type In struct {
	E    Expr
	List []Lit
}

func (e In) String() string {
	parts := make([]string, len(e.List))
	for i, l := range e.List {
		parts[i] = l.String()
	}
	return fmt.Sprintf("%s IN (%s)", e.E, strings.Join(parts, ", "))
}
func (e In) or() Expr {
	var acc Expr
	for _, l := range e.List {
		eq := Binary{Op: OpEq, L: e.E, R: l}
		if acc == nil {
			acc = eq
		} else {
			acc = Binary{Op: OpOr, L: acc, R: eq}
		}
	}
	return acc
}
func (e In) DataType(s *arrow.Schema) (arrow.DataType, error) {
	if len(e.List) == 0 {
		return nil, fmt.Errorf("%w: empty IN list", ErrInvalidArgument)
	}
	return e.or().DataType(s)
}
func (e In) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	if len(e.List) == 0 {
		return nil, fmt.Errorf("%w: empty IN list", ErrInvalidArgument)
	}
	if out, ok, err := e.evalSet(ctx, mem, b); ok || err != nil {
		return out, err
	}
	// Kleene OR of equalities gives exactly SQL's IN semantics.
	return e.or().Evaluate(ctx, mem, b)
}

// evalSet is IN as one hash-set probe per row when the operand is an
// int64, uint64, float64 or string column and every literal is a Go value
// of that type (or NULL): the OR chain costs rows × list equalities. SQL
// semantics are kept: a NULL operand gives NULL; a miss gives NULL when the
// list holds a NULL, false otherwise.
func (e In) evalSet(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, bool, error) {
	if _, err := e.DataType(b.Schema()); err != nil {
		return nil, false, err
	}
	x, err := e.E.Evaluate(ctx, mem, b)
	if err != nil {
		return nil, false, err
	}
	defer x.Release()
	listNull := false
	set := make(map[any]struct{}, len(e.List))
	for _, l := range e.List {
		if l.Value == nil {
			listNull = true
			continue
		}
		switch x.(type) {
		case *array.Int64:
			v, ok := l.Value.(int64)
			if !ok {
				return nil, false, nil
			}
			set[v] = struct{}{}
		case *array.Uint64:
			v, ok := l.Value.(uint64)
			if !ok {
				return nil, false, nil
			}
			set[v] = struct{}{}
		case *array.Float64:
			v, ok := l.Value.(float64)
			if !ok || v != v {
				return nil, false, nil // NaN: leave it to the kernels
			}
			if v == 0 {
				v = 0 // -0 and +0 are equal
			}
			set[v] = struct{}{}
		case *array.String:
			v, ok := l.Value.(string)
			if !ok {
				return nil, false, nil
			}
			set[v] = struct{}{}
		default:
			return nil, false, nil
		}
	}
	bb := array.NewBooleanBuilder(mem)
	defer bb.Release()
	n := x.Len()
	bb.Reserve(n)
	for i := 0; i < n; i++ {
		if x.IsNull(i) {
			bb.UnsafeAppendBoolToBitmap(false)
			continue
		}
		var key any
		switch c := x.(type) {
		case *array.Int64:
			key = c.Value(i)
		case *array.Uint64:
			key = c.Value(i)
		case *array.Float64:
			f := c.Value(i)
			if f == 0 {
				f = 0
			}
			key = f
		case *array.String:
			key = c.Value(i)
		}
		if _, hit := set[key]; hit {
			bb.UnsafeAppend(true)
		} else if listNull {
			bb.UnsafeAppendBoolToBitmap(false)
		} else {
			bb.UnsafeAppend(false)
		}
	}
	return bb.NewArray(), true, nil
}

// Cast converts E to To (safe cast: overflow is an error).
type Cast struct {
	E  Expr
	To arrow.DataType
}

func (e Cast) String() string { return fmt.Sprintf("CAST(%s AS %s)", e.E, e.To) }
func (e Cast) DataType(s *arrow.Schema) (arrow.DataType, error) {
	if _, err := e.E.DataType(s); err != nil {
		return nil, err
	}
	return e.To, nil
}
func (e Cast) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	a, err := e.E.Evaluate(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	out, err := compute.CastArray(compute.WithAllocator(ctx, mem), a, compute.SafeCastOptions(e.To))
	if err != nil {
		return nil, fmt.Errorf("exec: cast: %w", err)
	}
	return out, nil
}
