package physexpr_test

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/value"
)

// FuzzEval builds a random expression tree and a random batch from the
// fuzzer's bytes, evaluates the tree with the engine (bound once, over a
// sliced batch so offsets are non-zero) and with refEval, a row-at-a-time
// evaluator written apart from the engine in plain Go: exact integer
// arithmetic in math/big, PostgreSQL's float checks, three-valued logic by
// truth table. They must agree on every value, and on whether evaluation
// fails (an error at any row is an error of the whole evaluation; which
// one is reported first may differ): both evaluate every operand at every
// row, except AND/OR's operands after the one that decided a row, and
// CASE's arms that a row does not reach. The engine's errors must be typed.
func FuzzEval(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 0, 0},
		{3, 2, 1, 7, 9, 4, 4, 4, 12, 0, 1},
		{4, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13},
		{2, 6, 3, 0, 6, 0, 3, 1, 1, 5, 2, 200, 17},
		{1, 255, 254, 253, 252, 251, 250, 249},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{data: data}
		nrows := g.next() % 5
		rows := make([][]any, nrows+1) // row 0 is sliced away
		for i := range rows {
			rows[i] = []any{g.pick(intPool), g.pick(intPool), g.pick(floatPool), g.pick(floatPool), g.pick(stringPool)}
		}
		typ := []arrow.DataType{i64, f64, bln, str}[g.next()%4]
		e, ref := g.expr(typ, 4)
		checkEval(t, rows, e, ref, typ)
	})
}

var fuzzSchema = arrow.NewSchema([]arrow.Field{
	{Name: "a", Type: i64, Nullable: true}, {Name: "b", Type: i64, Nullable: true},
	{Name: "f", Type: f64, Nullable: true}, {Name: "g", Type: f64, Nullable: true},
	{Name: "s", Type: str, Nullable: true},
}, nil)

var (
	intPool    = []any{nil, int64(0), int64(1), int64(-1), int64(2), int64(7), int64(-7), int64(math.MinInt64), int64(math.MaxInt64), int64(3037000500), int64(1 << 53), int64(1<<53 + 1)}
	floatPool  = []any{nil, 0.0, math.Copysign(0, -1), 1.0, -2.5, 2.5, 0.5, math.NaN(), math.Inf(1), math.Inf(-1), 1e308, 1e-308, 1234567.0, 9.3e18, -9.223372036854775808e18}
	stringPool = []any{nil, "42", " -7 ", "abc", "", "9223372036854775808", "-9223372036854775808", "1e3", "NaN", "  3.5", "+0", "Infinity", "1e400", "t", "no"}
)

func checkEval(t *testing.T, rows [][]any, e physexpr.Expr, ref refExpr, typ arrow.DataType) {
	mem := exectest.Mem(t)
	full, err := exectest.Batch(mem, fuzzSchema, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Release()
	b := full.NewSlice(1, full.NumRows())
	defer b.Release()

	var want []any
	var refErr error
	for _, r := range rows[1:] {
		v, err := ref(r)
		if err != nil {
			refErr = err
		}
		want = append(want, v)
	}

	bd, err := physexpr.Bind(e, fuzzSchema)
	if err != nil {
		t.Fatalf("bind %s: %v", e, err)
	}
	if !arrow.TypeEqual(bd.Type(), typ) {
		t.Fatalf("%s: type %s, want %s", e, bd.Type(), typ)
	}
	a, err := physexpr.EvalArray(t.Context(), mem, bd, b)
	if err == nil {
		defer a.Release()
	}
	if err != nil || refErr != nil {
		if (err == nil) != (refErr == nil) {
			t.Fatalf("%s over %v: engine error %v, reference error %v", e, rows[1:], err, refErr)
		}
		if !errors.Is(err, physexpr.ErrOutOfRange) && !errors.Is(err, physexpr.ErrDivisionByZero) && !errors.Is(err, physexpr.ErrInvalidArgument) {
			t.Fatalf("%s: untyped error %v", e, err)
		}
		return
	}
	rb := arrowBatch(a)
	rs, err := exectest.Rows(rb)
	rb.Release()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]any, len(rs))
	for i, r := range rs {
		got[i] = r[0]
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", e, len(got), len(want))
	}
	for i := range got {
		if !sameValue(got[i], want[i]) {
			t.Fatalf("%s over %v: row %d = %v (%T), reference %v (%T)", e, rows[1:], i, got[i], got[i], want[i], want[i])
		}
	}
}

// gen decodes the fuzzer's bytes into choices (zeros once they run out).
type gen struct {
	data []byte
	pos  int
}

func (g *gen) next() int {
	if g.pos >= len(g.data) {
		return 0
	}
	g.pos++
	return int(g.data[g.pos-1])
}

func (g *gen) pick(pool []any) any { return pool[g.next()%len(pool)] }

// refExpr is the reference's form of an expression: a function of one row
// (a, b, f, g, s) to a Go value (nil for NULL) or an error.
type refExpr func(row []any) (any, error)

var (
	errRefRange = errors.New("ref: out of range")
	errRefZero  = errors.New("ref: division by zero")
	errRefInput = errors.New("ref: invalid input")
)

// expr generates an expression of type t with at most depth levels.
func (g *gen) expr(t arrow.DataType, depth int) (physexpr.Expr, refExpr) {
	leaf := depth <= 0
	c := g.next()
	switch t.ID() {
	case arrow.INT64:
		switch {
		case leaf || c%6 == 0:
			if c%2 == 0 {
				i := (c / 2) % 2
				return physexpr.Col{Index: i, Name: "ab"[i : i+1]}, func(r []any) (any, error) { return r[i], nil }
			}
			v := g.pick(intPool)
			return physexpr.Lit{Value: v, Type: i64}, func([]any) (any, error) { return v, nil }
		case c%6 <= 3:
			op := []physexpr.Op{physexpr.OpAdd, physexpr.OpSub, physexpr.OpMul, physexpr.OpDiv, physexpr.OpMod}[g.next()%5]
			l, lr := g.expr(i64, depth-1)
			r, rr := g.expr(i64, depth-1)
			return physexpr.Binary{Op: op, L: l, R: r}, refStrict2(lr, rr, func(x, y any) (any, error) { return refIntOp(op, x.(int64), y.(int64)) })
		case c%6 == 4:
			x, xr := g.expr(f64, depth-1)
			return physexpr.Cast{E: x, To: i64}, refStrict1(xr, func(v any) (any, error) { return refFloatToInt(v.(float64)) })
		default:
			x, xr := g.expr(str, depth-1)
			return physexpr.Cast{E: x, To: i64}, refStrict1(xr, func(v any) (any, error) { return refParseInt(v.(string)) })
		}
	case arrow.FLOAT64:
		switch {
		case leaf || c%5 == 0:
			if c%2 == 0 {
				i := 2 + (c/2)%2
				return physexpr.Col{Index: i, Name: "fg"[i-2 : i-1]}, func(r []any) (any, error) { return r[i], nil }
			}
			v := g.pick(floatPool)
			return physexpr.Lit{Value: v, Type: f64}, func([]any) (any, error) { return v, nil }
		case c%5 <= 2:
			op := []physexpr.Op{physexpr.OpAdd, physexpr.OpSub, physexpr.OpMul, physexpr.OpDiv}[g.next()%4]
			l, lr := g.expr(f64, depth-1)
			r, rr := g.expr(f64, depth-1)
			return physexpr.Binary{Op: op, L: l, R: r}, refStrict2(lr, rr, func(x, y any) (any, error) { return refFloatOp(op, x.(float64), y.(float64)) })
		case c%5 == 3:
			x, xr := g.expr(i64, depth-1)
			return physexpr.Cast{E: x, To: f64}, refStrict1(xr, func(v any) (any, error) {
				f, _ := new(big.Float).SetInt64(v.(int64)).Float64() // nearest, ties to even
				return f, nil
			})
		default:
			x, xr := g.expr(str, depth-1)
			return physexpr.Cast{E: x, To: f64}, refStrict1(xr, func(v any) (any, error) { return refParseFloat(v.(string)) })
		}
	case arrow.STRING:
		switch {
		case leaf || c%3 == 0:
			if c%2 == 0 {
				return physexpr.Col{Index: 4, Name: "s"}, func(r []any) (any, error) { return r[4], nil }
			}
			v := g.pick(stringPool)
			return physexpr.Lit{Value: v, Type: str}, func([]any) (any, error) { return v, nil }
		case c%3 == 1:
			x, xr := g.expr(i64, depth-1)
			return physexpr.Cast{E: x, To: str}, refStrict1(xr, func(v any) (any, error) { return strconv.FormatInt(v.(int64), 10), nil })
		default:
			x, xr := g.expr(f64, depth-1)
			return physexpr.Cast{E: x, To: str}, refStrict1(xr, func(v any) (any, error) { return value.FormatFloat(v.(float64), 64), nil })
		}
	}
	// Boolean.
	switch {
	case leaf || c%7 == 0:
		v := []any{nil, true, false}[g.next()%3]
		return physexpr.Lit{Value: v, Type: bln}, func([]any) (any, error) { return v, nil }
	case c%7 == 1, c%7 == 2:
		op := physexpr.Op(g.next() % 6)
		ot := []arrow.DataType{i64, f64, str, bln}[g.next()%4]
		l, lr := g.expr(ot, depth-1)
		r, rr := g.expr(ot, depth-1)
		return physexpr.Binary{Op: op, L: l, R: r}, refStrict2(lr, rr, func(x, y any) (any, error) { return refCmp(op, x, y), nil })
	case c%7 == 3:
		op := []physexpr.Op{physexpr.OpAnd, physexpr.OpOr}[g.next()%2]
		n := 2 + g.next()%4
		e, r := g.expr(bln, depth-1)
		refs := []refExpr{r}
		for range n - 1 {
			x, xr := g.expr(bln, depth-1)
			e = physexpr.Binary{Op: op, L: e, R: x}
			refs = append(refs, xr)
		}
		return e, func(row []any) (any, error) { return refLogic(op, refs, row) }
	case c%7 == 4:
		x, xr := g.expr(bln, depth-1)
		return physexpr.Unary{Op: physexpr.OpNot, E: x}, refStrict1(xr, func(v any) (any, error) { return !v.(bool), nil })
	case c%7 == 5:
		op := []physexpr.UnaryOp{physexpr.OpIsNull, physexpr.OpIsNotNull}[g.next()%2]
		ot := []arrow.DataType{i64, f64, str, bln}[g.next()%4]
		x, xr := g.expr(ot, depth-1)
		return physexpr.Unary{Op: op, E: x}, func(r []any) (any, error) {
			v, err := xr(r)
			return (v == nil) == (op == physexpr.OpIsNull), err
		}
	}
	ot := []arrow.DataType{i64, f64, str}[g.next()%3]
	pool := map[arrow.Type][]any{arrow.INT64: intPool, arrow.FLOAT64: floatPool, arrow.STRING: stringPool}[ot.ID()]
	x, xr := g.expr(ot, depth-1)
	n := 1 + g.next()%6
	list := make([]physexpr.Lit, n)
	vals := make([]any, n)
	for i := range list {
		vals[i] = g.pick(pool)
		list[i] = physexpr.Lit{Value: vals[i], Type: ot}
	}
	return physexpr.In{E: x, List: list}, func(r []any) (any, error) {
		v, err := xr(r)
		if err != nil || v == nil {
			return nil, err
		}
		var out any = false
		for _, item := range vals {
			if item == nil {
				if out == false {
					out = nil
				}
			} else if refCmp(physexpr.OpEq, v, item) == true {
				out = true
			}
		}
		return out, nil
	}
}

// refStrict1 and refStrict2 evaluate every operand, then give NULL for a
// NULL operand and apply f otherwise.
func refStrict1(x refExpr, f func(any) (any, error)) refExpr {
	return func(r []any) (any, error) {
		v, err := x(r)
		if err != nil || v == nil {
			return nil, err
		}
		return f(v)
	}
}

func refStrict2(x, y refExpr, f func(a, b any) (any, error)) refExpr {
	return func(r []any) (any, error) {
		a, errA := x(r)
		b, errB := y(r)
		if errA != nil {
			return nil, errA
		}
		if errB != nil {
			return nil, errB
		}
		if a == nil || b == nil {
			return nil, nil
		}
		return f(a, b)
	}
}

// refIntOp computes exactly in math/big and checks the result fits.
func refIntOp(op physexpr.Op, a, b int64) (any, error) {
	x, y := big.NewInt(a), big.NewInt(b)
	r := new(big.Int)
	switch op {
	case physexpr.OpAdd:
		r.Add(x, y)
	case physexpr.OpSub:
		r.Sub(x, y)
	case physexpr.OpMul:
		r.Mul(x, y)
	case physexpr.OpDiv, physexpr.OpMod:
		if b == 0 {
			return nil, errRefZero
		}
		if op == physexpr.OpDiv {
			r.Quo(x, y) // truncated, as PostgreSQL
		} else {
			r.Rem(x, y) // sign of the dividend
		}
	}
	if !r.IsInt64() {
		return nil, errRefRange
	}
	return r.Int64(), nil
}

// refFloatOp is PostgreSQL's float8pl/mi/mul/div.
func refFloatOp(op physexpr.Op, a, b float64) (any, error) {
	var r float64
	switch op {
	case physexpr.OpAdd:
		r = a + b
	case physexpr.OpSub:
		r = a - b
	case physexpr.OpMul:
		r = a * b
	case physexpr.OpDiv:
		if b == 0 && !math.IsNaN(a) {
			return nil, errRefZero
		}
		r = a / b
	}
	inf := func(v float64) bool { return math.IsInf(v, 0) }
	switch op {
	case physexpr.OpAdd, physexpr.OpSub, physexpr.OpMul:
		if inf(r) && !inf(a) && !inf(b) {
			return nil, errRefRange
		}
	case physexpr.OpDiv:
		if inf(r) && !inf(a) {
			return nil, errRefRange
		}
	}
	if op == physexpr.OpMul && r == 0 && a != 0 && b != 0 || op == physexpr.OpDiv && r == 0 && a != 0 && !inf(b) {
		return nil, errRefRange
	}
	return r, nil
}

// refFloatToInt is dtoi8: round half to even, then a range check, done
// here with math/big instead of float tricks.
func refFloatToInt(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errRefRange
	}
	fl := math.Floor(f)
	r := fl
	if d := f - fl; d > 0.5 || d == 0.5 && math.Mod(fl, 2) != 0 {
		r = fl + 1
	}
	bi, _ := new(big.Float).SetFloat64(r).Int(nil)
	if !bi.IsInt64() {
		return nil, errRefRange
	}
	return bi.Int64(), nil
}

// refParseInt is int8in: optional spaces, sign, decimal digits, spaces.
func refParseInt(s string) (any, error) {
	t := strings.Trim(s, " \t\n\v\f\r")
	body := strings.TrimLeft(t, "+-")
	if len(t)-len(body) > 1 || body == "" || strings.Trim(body, "0123456789") != "" {
		return nil, errRefInput
	}
	bi, _ := new(big.Int).SetString(body, 10)
	if strings.HasPrefix(t, "-") {
		bi.Neg(bi)
	}
	if !bi.IsInt64() {
		return nil, errRefRange
	}
	return bi.Int64(), nil
}

// refParseFloat is float8in over the pool's spellings.
func refParseFloat(s string) (any, error) {
	t := strings.Trim(s, " \t\n\v\f\r")
	switch strings.ToLower(t) {
	case "nan":
		return math.NaN(), nil
	case "infinity", "+infinity", "inf":
		return math.Inf(1), nil
	case "-infinity", "-inf":
		return math.Inf(-1), nil
	}
	bf, _, err := big.ParseFloat(t, 10, 200, big.ToNearestEven)
	if err != nil || t == "" {
		return nil, errRefInput
	}
	f, _ := bf.Float64()
	if math.IsInf(f, 0) || f == 0 && bf.Sign() != 0 {
		return nil, errRefRange
	}
	return f, nil
}

// refCmp compares two non-NULL values of one type; floats in
// PostgreSQL's order (NaN equal to itself and above everything).
func refCmp(op physexpr.Op, x, y any) any {
	var c int
	switch a := x.(type) {
	case int64:
		b := y.(int64)
		c = map[bool]int{true: -1, false: 0}[a < b] + map[bool]int{true: 1, false: 0}[a > b]
	case string:
		c = strings.Compare(a, y.(string))
	case bool:
		b := y.(bool)
		if a != b {
			c = map[bool]int{true: 1, false: -1}[a] // false < true
		}
	case float64:
		b := y.(float64)
		switch an, bn := a != a, b != b; {
		case an && bn:
			c = 0
		case an:
			c = 1
		case bn:
			c = -1
		case a < b:
			c = -1
		case a > b:
			c = 1
		}
	}
	switch op {
	case physexpr.OpEq:
		return c == 0
	case physexpr.OpNe:
		return c != 0
	case physexpr.OpLt:
		return c < 0
	case physexpr.OpLe:
		return c <= 0
	case physexpr.OpGt:
		return c > 0
	}
	return c >= 0
}

// refLogic is Kleene AND/OR as PostgreSQL evaluates it per row: the
// operands left to right, stopping at the first FALSE (AND) or TRUE (OR),
// so an operand after it raises no error for that row.
func refLogic(op physexpr.Op, refs []refExpr, row []any) (any, error) {
	sawNull := false
	decider := op == physexpr.OpOr // OR is decided by a TRUE, AND by a FALSE
	for _, r := range refs {
		v, err := r(row)
		if err != nil {
			return nil, err
		}
		switch v {
		case nil:
			sawNull = true
		case decider:
			return decider, nil // the operands after it are not evaluated
		}
	}
	if sawNull {
		return nil, nil
	}
	return !decider, nil
}
