package physexpr

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Func is a call of a named scalar function (lower, substr, round, ...)
// with PostgreSQL's semantics. Every function here is strict: a NULL
// argument gives a NULL result and the function body never sees it (so
// sqrt(NULL) is NULL, not an error). The functions are registered in one
// table, funcs, by name; Bind looks the name up once, checks the argument
// types and keeps the kernel, so a batch costs one pass per call.
//
//	Func{Name, Args} --Bind--> funcs[Name].bind(arg types) --> kernel
//	                                                            |
//	batch --eval args--> datums --kernel(valid rows only)--> column or scalar
type Func struct {
	Name string
	Args []Expr
}

func (e Func) String() string {
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = a.String()
	}
	return e.Name + "(" + strings.Join(parts, ", ") + ")"
}
func (e Func) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e Func) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}

// Bind resolves the function for its argument types.
func (e Func) Bind(s *arrow.Schema) (Bound, error) {
	def, ok := funcs[e.Name]
	if !ok {
		return nil, fmt.Errorf("%w: function %s", ErrUnknownFunction, e.Name)
	}
	args := make([]Bound, len(e.Args))
	ts := make([]arrow.DataType, len(e.Args))
	for i, a := range e.Args {
		b, err := Bind(a, s)
		if err != nil {
			return nil, err
		}
		args[i], ts[i] = b, b.Type()
	}
	out, k, err := def(ts)
	if err != nil {
		return nil, fmt.Errorf("%w: %s(%s): %w", ErrSchema, e.Name, typeList(ts), err)
	}
	return boundFunc{exprOf: exprOf[Func]{e}, args: args, out: out, k: k}, nil
}

// FuncNames lists the registered functions (for errors and tests).
func FuncNames() []string {
	out := make([]string, 0, len(funcs))
	for n := range funcs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// HasFunc reports whether name is a registered function.
func HasFunc(name string) bool { _, ok := funcs[name]; return ok }

func typeList(ts []arrow.DataType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

// kernel computes a function over n rows of its argument datums (each an
// array of the batch's rows or a scalar for all) into a new array of n
// rows.
type kernel func(mem memory.Allocator, n int, args []compute.Datum) (arrow.Array, error)

// funcDef checks argument types and returns the result type and kernel.
type funcDef func(ts []arrow.DataType) (arrow.DataType, kernel, error)

// funcs is the function table. Names are PostgreSQL's (the SQL front end
// and the Substrait planner map their spellings onto these).
var funcs = map[string]funcDef{}

func register(name string, def funcDef) {
	if _, dup := funcs[name]; dup {
		panic("exec: function registered twice: " + name)
	}
	funcs[name] = def
}

type boundFunc struct {
	exprOf[Func]
	args []Bound
	out  arrow.DataType
	k    kernel
}

func (e boundFunc) Type() arrow.DataType { return e.out }

// Eval names the value errors this node raises (evalNamed).
func (e boundFunc) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return evalNamed(ctx, mem, b, e, e.eval)
}

func (e boundFunc) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	args, err := evalBound(ctx, mem, b, e.args...)
	if err != nil {
		return nil, err
	}
	defer releaseDatums(args)
	n, asScalar := rowsFor(int(b.NumRows()), args...)
	a, err := e.k(mem, n, args)
	if err != nil {
		return nil, err
	}
	return result(a, asScalar)
}

func isSignedID(id arrow.Type) bool {
	return id == arrow.INT8 || id == arrow.INT16 || id == arrow.INT32 || id == arrow.INT64
}

// arg reads one argument datum row by row: a column of the batch, or a
// scalar for every row (read in place, never copied per row). Only the
// accessor of the argument's class is set.
type arg struct {
	ok  func(i int) bool
	s   func(i int) string
	i   func(i int) int64 // any signed integer width
	f   func(i int) float64
	d   func(i int) decimal128.Num // decimals: the unscaled value
	arr arrow.Array                // released by release
}

func (a arg) release() {
	if a.arr != nil {
		a.arr.Release()
	}
}

// argOf views d. A scalar is read as a one-row array (so every class has
// one code path) whose row 0 stands for every row.
func argOf(mem memory.Allocator, d compute.Datum) (arg, error) {
	var a arrow.Array
	row := func(i int) int { return i }
	switch d := d.(type) {
	case *compute.ArrayDatum:
		a = d.MakeArray()
	case *compute.ScalarDatum:
		var err error
		if a, err = scalar.MakeArrayFromScalar(d.Value, 1, mem); err != nil {
			return arg{}, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		row = func(int) int { return 0 }
	default:
		return arg{}, fmt.Errorf("%w: datum %s", ErrSchema, d.Kind())
	}
	out := arg{arr: a, ok: func(i int) bool { return a.IsValid(row(i)) }}
	if a.NullN() == 0 {
		out.ok = func(int) bool { return true }
	}
	switch x := a.(type) {
	case *array.String:
		out.s = func(i int) string { return x.Value(row(i)) }
	case *array.Int8:
		out.i = func(i int) int64 { return int64(x.Value(row(i))) }
	case *array.Int16:
		out.i = func(i int) int64 { return int64(x.Value(row(i))) }
	case *array.Int32:
		out.i = func(i int) int64 { return int64(x.Value(row(i))) }
	case *array.Int64:
		out.i = func(i int) int64 { return x.Value(row(i)) }
	case *array.Float32:
		out.f = func(i int) float64 { return float64(x.Value(row(i))) }
	case *array.Float64:
		out.f = func(i int) float64 { return x.Value(row(i)) }
	case *array.Decimal128:
		out.d = func(i int) decimal128.Num { return x.Value(row(i)) }
	default:
		a.Release()
		return arg{}, fmt.Errorf("%w: function argument of type %s", ErrSchema, a.DataType())
	}
	return out, nil
}

// argsOf views every datum; release frees them.
func argsOf(mem memory.Allocator, ds []compute.Datum) (args []arg, release func(), err error) {
	args = make([]arg, 0, len(ds))
	release = func() {
		for _, a := range args {
			a.release()
		}
	}
	for _, d := range ds {
		a, err := argOf(mem, d)
		if err != nil {
			release()
			return nil, nil, err
		}
		args = append(args, a)
	}
	return args, release, nil
}

func allValid(args []arg, i int) bool {
	for _, a := range args {
		if !a.ok(i) {
			return false
		}
	}
	return true
}

// Row kernels: f computes one row from valid arguments; a row with a
// NULL argument is NULL without calling f (every function here is
// strict).

func stringRows(f func(a []arg, i int) (string, error)) kernel {
	return func(mem memory.Allocator, n int, ds []compute.Datum) (arrow.Array, error) {
		args, release, err := argsOf(mem, ds)
		if err != nil {
			return nil, err
		}
		defer release()
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if !allValid(args, i) {
				b.AppendNull()
				continue
			}
			v, err := f(args, i)
			if err != nil {
				return nil, err
			}
			b.Append(v)
		}
		return b.NewArray(), nil
	}
}

func fixedRows[T fixed](typ arrow.DataType, f func(a []arg, i int) (T, error)) kernel {
	return func(mem memory.Allocator, n int, ds []compute.Datum) (arrow.Array, error) {
		args, release, err := argsOf(mem, ds)
		if err != nil {
			return nil, err
		}
		defer release()
		out := newFixedOut[T](mem, typ, n)
		for i := 0; i < n; i++ {
			if !allValid(args, i) {
				out.setNull(i)
				continue
			}
			v, err := f(args, i)
			if err != nil {
				out.release()
				return nil, err
			}
			out.v[i] = v
		}
		return out.array(), nil
	}
}

func boolRows(f func(a []arg, i int) (bool, error)) kernel {
	return func(mem memory.Allocator, n int, ds []compute.Datum) (arrow.Array, error) {
		args, release, err := argsOf(mem, ds)
		if err != nil {
			return nil, err
		}
		defer release()
		out := newBoolOut(mem, n)
		for i := 0; i < n; i++ {
			if !allValid(args, i) {
				out.setNull(i)
				continue
			}
			v, err := f(args, i)
			if err != nil {
				out.array().Release()
				return nil, err
			}
			out.set(i, v)
		}
		return out.array(), nil
	}
}

// Argument type checks for funcDefs.

func isString(t arrow.DataType) bool { return t.ID() == arrow.STRING }
func isFloatT(t arrow.DataType) bool { return t.ID() == arrow.FLOAT64 || t.ID() == arrow.FLOAT32 }
func isIntT(t arrow.DataType) bool   { return isSignedID(t.ID()) }

// want checks ts[i] against the class tests, one per argument.
func want(ts []arrow.DataType, tests ...func(arrow.DataType) bool) error {
	if len(ts) != len(tests) {
		return fmt.Errorf("%d arguments, want %d", len(ts), len(tests))
	}
	for i, t := range ts {
		if !tests[i](t) {
			return fmt.Errorf("argument %d has type %s", i+1, t)
		}
	}
	return nil
}

// decimalRows is fixedRows for decimal results of type typ.
func decimalRows(typ *arrow.Decimal128Type, f func(a []arg, i int) (decimal128.Num, error)) kernel {
	return func(mem memory.Allocator, n int, ds []compute.Datum) (arrow.Array, error) {
		args, release, err := argsOf(mem, ds)
		if err != nil {
			return nil, err
		}
		defer release()
		b := array.NewDecimal128Builder(mem, typ)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if !allValid(args, i) {
				b.AppendNull()
				continue
			}
			v, err := f(args, i)
			if err != nil {
				return nil, err
			}
			b.Append(v)
		}
		return b.NewArray(), nil
	}
}
