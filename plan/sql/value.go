package sql

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/stablerow/stablerow/exec"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
)

// untyped says how a value without a type yet was written. Postgres gives
// string literals, NULL and parameters the type their context asks for
// ('5' compares with a bigint as 5, $1 = name makes $1 text); so do we.
type untyped int

const (
	typed untyped = iota
	untypedString
	untypedNull
	untypedParam
)

// value is a lowered expression, or a literal/parameter still waiting for
// its type.
type value struct {
	e     expr.Expression // set when how == typed
	how   untyped
	str   string // untypedString
	param int    // k of $k, for a parameter (typed or not)
	loc   int32
	name  string // output column name it suggests ("" = ?column?)
}

func (v value) kind() kind {
	if v.how != typed {
		return kindUnknown
	}
	return kindOf(v.e.GetType())
}

// defaultKind is the type an untyped value takes when nothing asks for one.
func (l *lowerer) defaultKind(v value) kind {
	switch v.how {
	case typed:
		return v.kind()
	case untypedString, untypedNull:
		return kindString
	}
	return kindI64
}

// settle gives v its type: the one it has, or its default.
func (l *lowerer) settle(v value) (expr.Expression, error) {
	return l.coerce(v, l.defaultKind(v))
}

// coerce converts v to kind k with an implicit cast: untyped values take k
// (a string literal is parsed as k), bigint widens to double precision.
// Anything else is a type error.
func (l *lowerer) coerce(v value, k kind) (expr.Expression, error) {
	switch v.how {
	case untypedNull:
		return expr.NewNullLiteral(k.typ(true)), nil
	case untypedString:
		return l.parseLiteral(v.str, k, v.loc)
	case untypedParam:
		return l.paramExpr(v.param, k, v.loc)
	}
	have := v.kind()
	switch {
	case have == k:
		return v.e, nil
	case have == kindI64 && k == kindF64:
		return l.cast(v.e, k), nil
	}
	return nil, fmt.Errorf("%w: %s value where %s is expected%s", ErrType, have, k, l.src.at(v.loc))
}

// assign converts v for storing into a column of kind k (INSERT, UPDATE):
// Postgres' assignment casts allow numeric narrowing and anything to text.
func (l *lowerer) assign(v value, k kind) (expr.Expression, error) {
	if v.how == typed {
		have := v.kind()
		if (have.numeric() && k.numeric()) || k == kindString {
			return l.cast(v.e, k), nil
		}
	}
	return l.coerce(v, k)
}

// explicit is CAST(v AS k): everything among our four kinds converts, and
// literals are converted right away so plans carry plain values.
func (l *lowerer) explicit(v value, k kind) (expr.Expression, error) {
	if v.how != typed {
		return l.coerce(v, k)
	}
	if v.kind() == kindUnknown {
		return nil, fmt.Errorf("%w: cannot cast %s to %s%s", ErrType, v.e.GetType(), k, l.src.at(v.loc))
	}
	if lit, ok := literalOf(v.e); ok && lit != nil {
		if s, isStr := lit.(string); isStr && k != kindString {
			return l.parseLiteral(s, k, v.loc)
		}
	}
	return l.cast(v.e, k), nil
}

// cast converts e to kind k, folding literals; the nullability is kept.
func (l *lowerer) cast(e expr.Expression, k kind) expr.Expression {
	from := kindOf(e.GetType())
	if from == k {
		return e
	}
	nullable := isNullable(e.GetType())
	if lit, ok := literalOf(e); ok {
		if lit == nil {
			return expr.NewNullLiteral(k.typ(true))
		}
		if out, ok := foldCast(lit, k, nullable); ok {
			return out
		}
	}
	return &expr.Cast{Type: k.typ(nullable), Input: e, FailureBehavior: types.BehaviorThrowException}
}

// literalOf extracts the Go value of a literal of our kinds; (nil, true) for
// a NULL literal, (_, false) for anything that is not a literal.
func literalOf(e expr.Expression) (any, bool) {
	switch x := e.(type) {
	case *expr.PrimitiveLiteral[int64]:
		return x.Value, true
	case *expr.PrimitiveLiteral[float64]:
		return x.Value, true
	case *expr.PrimitiveLiteral[string]:
		return x.Value, true
	case *expr.PrimitiveLiteral[bool]:
		return x.Value, true
	case *expr.NullLiteral:
		return nil, true
	}
	return nil, false
}

// newLiteral makes a literal of the Go value (int64, float64, string, bool).
func newLiteral(v any, nullable bool) expr.Expression {
	switch x := v.(type) {
	case int64:
		return expr.NewPrimitiveLiteral(x, nullable)
	case float64:
		return expr.NewPrimitiveLiteral(x, nullable)
	case string:
		return expr.NewPrimitiveLiteral(x, nullable)
	case bool:
		return expr.NewPrimitiveLiteral(x, nullable)
	}
	return nil
}

// foldCast converts a literal value at plan time; ok is false when the
// conversion must be left to run time (e.g. a double out of bigint range,
// which Postgres reports as an error then).
func foldCast(v any, k kind, nullable bool) (expr.Expression, bool) {
	var out any
	switch x := v.(type) {
	case int64:
		switch k {
		case kindF64:
			out = float64(x)
		case kindString:
			out = strconv.FormatInt(x, 10)
		case kindBool:
			out = x != 0
		}
	case float64:
		switch k {
		case kindI64:
			r := math.RoundToEven(x)
			if math.IsNaN(r) || r < -(1<<63) || r >= 1<<63 {
				return nil, false
			}
			out = int64(r)
		case kindString:
			out = exec.FormatFloat(x, 64) // float8out: 1234567.0 is "1234567"
		}
	case bool:
		switch k {
		case kindI64:
			out = int64(0)
			if x {
				out = int64(1)
			}
		case kindString:
			out = strconv.FormatBool(x)
		}
	}
	if out == nil {
		return nil, false
	}
	return newLiteral(out, nullable), true
}

// parseLiteral reads a string literal as kind k, like Postgres' input
// functions (bigint '12', boolean 'yes').
func (l *lowerer) parseLiteral(s string, k kind, loc int32) (expr.Expression, error) {
	t := strings.TrimSpace(s)
	bad := func() error {
		return fmt.Errorf("%w: invalid input syntax for type %s: %q%s", ErrType, k, s, l.src.at(loc))
	}
	switch k {
	case kindString:
		return expr.NewPrimitiveLiteral(s, false), nil
	case kindI64:
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, bad()
		}
		return expr.NewPrimitiveLiteral(n, false), nil
	case kindF64:
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			switch strings.ToLower(t) {
			case "nan":
				f = math.NaN()
			case "infinity", "inf", "+infinity":
				f = math.Inf(1)
			case "-infinity", "-inf":
				f = math.Inf(-1)
			default:
				return nil, bad()
			}
		}
		return expr.NewPrimitiveLiteral(f, false), nil
	case kindBool:
		switch strings.ToLower(t) {
		case "t", "true", "y", "yes", "on", "1":
			return expr.NewPrimitiveLiteral(true, false), nil
		case "f", "false", "n", "no", "off", "0":
			return expr.NewPrimitiveLiteral(false, false), nil
		}
		return nil, bad()
	}
	return nil, bad()
}

// unify brings the operands of a comparison, arithmetic or IN list to one
// kind: the typed operands' kind (bigint and double precision meet at
// double precision), else text if a string literal is among them, else
// bigint.
func (l *lowerer) unify(vs ...value) ([]expr.Expression, kind, error) {
	k := kindUnknown
	first := value{}
	for _, v := range vs {
		vk := v.kind()
		switch {
		case v.how != typed:
		case k == kindUnknown || k == vk:
			k, first = vk, v
		case k.numeric() && vk.numeric():
			k = kindF64
		default:
			for _, p := range []value{first, v} {
				if p.param > 0 {
					return nil, 0, fmt.Errorf("%w: inconsistent types deduced for parameter %s: %s and %s%s", ErrParam, l.paramLabel(p.param), k, vk, l.src.at(v.loc))
				}
			}
			return nil, 0, fmt.Errorf("%w: cannot compare or combine %s with %s%s", ErrType, k, vk, l.src.at(v.loc))
		}
	}
	if k == kindUnknown {
		k = kindI64
		for _, v := range vs {
			if v.how == untypedString {
				k = kindString
			}
		}
	}
	out := make([]expr.Expression, len(vs))
	for i, v := range vs {
		e, err := l.coerce(v, k)
		if err != nil {
			return nil, 0, err
		}
		out[i] = e
	}
	return out, k, nil
}

// foldArithmetic computes literal op literal at plan time, so VALUES rows
// and generate_series bounds stay plain literals. Overflow and division by
// zero are left to run time, where they raise the engine's error.
func foldArithmetic(op string, a, b expr.Expression) (expr.Expression, bool) {
	x, okA := literalOf(a)
	y, okB := literalOf(b)
	if !okA || !okB || x == nil || y == nil {
		return nil, false
	}
	switch xv := x.(type) {
	case int64:
		yv := y.(int64)
		var r int64
		switch op {
		case "+":
			r = xv + yv
			if (r > xv) != (yv > 0) {
				return nil, false
			}
		case "-":
			r = xv - yv
			if (r < xv) != (yv > 0) {
				return nil, false
			}
		case "*":
			if xv != 0 && yv != 0 {
				r = xv * yv
				if r/yv != xv || (xv == -1 && yv == math.MinInt64) || (yv == -1 && xv == math.MinInt64) {
					return nil, false
				}
			}
		case "/":
			if yv == 0 || (xv == math.MinInt64 && yv == -1) {
				return nil, false
			}
			r = xv / yv // truncates toward zero, like Postgres
		default:
			return nil, false
		}
		return expr.NewPrimitiveLiteral(r, false), true
	case float64:
		yv := y.(float64)
		var r float64
		switch op {
		case "+":
			r = xv + yv
		case "-":
			r = xv - yv
		case "*":
			r = xv * yv
		case "/":
			if yv == 0 {
				return nil, false
			}
			r = xv / yv
		default:
			return nil, false
		}
		if math.IsInf(r, 0) && !math.IsInf(xv, 0) && !math.IsInf(yv, 0) {
			return nil, false // Postgres reports float overflow
		}
		if r == 0 && xv != 0 && ((op == "*" && yv != 0) || (op == "/" && !math.IsInf(yv, 0))) {
			return nil, false // and underflow of * and / (float8mul, float8div)
		}
		return expr.NewPrimitiveLiteral(r, false), true
	}
	return nil, false
}
