package sql

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// Literal values carry their SQL kind through the lowering: int16,
// int32, int64, float32, float64, string (text), bool, and the types
// below for the kinds Go has no type of its own for.
type (
	dateLit int32 // days since 1970-01-01
	tsLit   int64 // microseconds since 1970-01-01 00:00:00
	charLit struct {
		s string
		n int32
	} // character(n), already padded
	varcharLit struct {
		s string
		n int32
	} // character varying(n)
	decLit struct {
		v    decimal128.Num
		p, s int32
	} // numeric(p, s)
)

// literalOf extracts the Go value of a literal of our kinds; (nil, true) for
// a NULL literal, (_, false) for anything that is not a literal.
func literalOf(e expr.Expression) (any, bool) {
	switch x := e.(type) {
	case *expr.PrimitiveLiteral[int16]:
		return x.Value, true
	case *expr.PrimitiveLiteral[int32]:
		return x.Value, true
	case *expr.PrimitiveLiteral[int64]:
		return x.Value, true
	case *expr.PrimitiveLiteral[float32]:
		return x.Value, true
	case *expr.PrimitiveLiteral[float64]:
		return x.Value, true
	case *expr.PrimitiveLiteral[string]:
		return x.Value, true
	case *expr.PrimitiveLiteral[bool]:
		return x.Value, true
	case *expr.PrimitiveLiteral[types.Date]:
		return dateLit(x.Value), true
	case *expr.PrimitiveLiteral[types.FixedChar]:
		return charLit{s: string(x.Value), n: x.Type.(*types.FixedCharType).Length}, true
	case *expr.ProtoLiteral:
		switch t := x.Type.(type) {
		case *types.VarCharType:
			if s, ok := x.Value.(string); ok {
				return varcharLit{s: s, n: t.Length}, true
			}
		case *types.PrecisionTimestampType:
			if v, ok := x.Value.(int64); ok && t.Precision == types.PrecisionMicroSeconds {
				return tsLit(v), true
			}
		case *types.DecimalType:
			if b, ok := x.Value.([]byte); ok && len(b) == 16 {
				v := decimal128.New(int64(binary.LittleEndian.Uint64(b[8:])), binary.LittleEndian.Uint64(b[:8]))
				return decLit{v: v, p: t.Precision, s: t.Scale}, true
			}
		}
	case *expr.Cast: // a timestamp before 1970, a non-ASCII char(n) (newLiteral)
		if l, ok := x.Input.(*expr.PrimitiveLiteral[types.Timestamp]); ok && kindOf(x.Type) == kindTimestamp {
			return tsLit(l.Value), true
		}
		if l, ok := x.Input.(*expr.PrimitiveLiteral[string]); ok {
			if t, ok := x.Type.(*types.FixedCharType); ok {
				return charLit{s: l.Value, n: t.Length}, true
			}
		}
	case *expr.NullLiteral:
		return nil, true
	}
	return nil, false
}

// newLiteral makes a literal of a Go value literalOf returns.
func newLiteral(v any, nullable bool) expr.Expression {
	switch x := v.(type) {
	case int16:
		return expr.NewPrimitiveLiteral(x, nullable)
	case int32:
		return expr.NewPrimitiveLiteral(x, nullable)
	case int64:
		return expr.NewPrimitiveLiteral(x, nullable)
	case float32:
		return expr.NewPrimitiveLiteral(x, nullable)
	case float64:
		return expr.NewPrimitiveLiteral(x, nullable)
	case string:
		return expr.NewPrimitiveLiteral(x, nullable)
	case bool:
		return expr.NewPrimitiveLiteral(x, nullable)
	case dateLit:
		return expr.NewPrimitiveLiteral(types.Date(x), nullable)
	case tsLit:
		if x < 0 {
			// substrait-go reads a precision timestamp literal before
			// 1970 as nothing (LiteralFromProto refuses a negative
			// value): such a value travels as the deprecated timestamp
			// literal (microseconds too) cast to precision_timestamp<6>.
			return &expr.Cast{
				Type:            kindTimestamp.Type(nullable),
				Input:           &expr.PrimitiveLiteral[types.Timestamp]{Value: types.Timestamp(x), Type: &types.TimestampType{Nullability: nullability(nullable)}},
				FailureBehavior: types.BehaviorThrowException,
			}
		}
		return expr.NewPrecisionTimestampLiteral(int64(x), types.PrecisionMicroSeconds, nullability(nullable))
	case charLit:
		if len(x.s) != utf8.RuneCountInString(x.s) {
			// substrait-go types a fixed_char literal by its bytes
			// (fixedchar<10> for '日本語 '), which a set operation then
			// finds unequal to the column's fixedchar<4>: the padded
			// text, cast (a no-op) to character(n).
			return &expr.Cast{Type: kindChar(x.n).Type(nullable), Input: expr.NewPrimitiveLiteral(x.s, nullable), FailureBehavior: types.BehaviorThrowException}
		}
		l := expr.NewFixedCharLiteral(types.FixedChar(x.s), nullable)
		l.Type.(*types.FixedCharType).Length = x.n // characters, not bytes
		return l
	case varcharLit:
		l, _ := expr.NewLiteral(&types.VarChar{Value: x.s, Length: uint32(x.n)}, nullable)
		return l
	case decLit:
		b := make([]byte, 16)
		binary.LittleEndian.PutUint64(b, x.v.LowBits())
		binary.LittleEndian.PutUint64(b[8:], uint64(x.v.HighBits()))
		l, _ := expr.NewLiteral(&types.Decimal{Value: b, Precision: x.p, Scale: x.s}, nullable)
		return l
	}
	return nil
}

// intOf is an integer literal's value.
func intOf(v any) (int64, bool) {
	switch x := v.(type) {
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// floatOf is a float literal's value.
func floatOf(v any) (float64, bool) {
	switch x := v.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// stringOf is a string-kind literal's value; char(n) loses its padding
// (bpchar to text).
func stringOf(v any, trimChar bool) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case varcharLit:
		return x.s, true
	case charLit:
		if trimChar {
			return strings.TrimRight(x.s, " "), true
		}
		return x.s, true
	}
	return "", false
}

// intValue makes an integer literal value of kind k, or false when n does
// not fit (the run-time cast then raises the error).
func intValue(n int64, k kind) (any, bool) {
	switch k {
	case kindI16:
		return int16(n), n >= math.MinInt16 && n <= math.MaxInt16
	case kindI32:
		return int32(n), n >= math.MinInt32 && n <= math.MaxInt32
	case kindI64:
		return n, true
	}
	return nil, false
}

// foldCast converts a literal value at plan time; ok is false when the
// conversion must be left to run time (e.g. a double out of bigint range,
// which Postgres reports as an error then). explicit selects PostgreSQL's
// explicit cast to varchar(n)/char(n), which truncates, over the
// assignment cast, which refuses a value too long; err reports the
// latter.
//
// A date or timestamp to text is left to run time: PostgreSQL's output
// functions for them are stable (DateStyle), so its planner keeps the
// cast, and a cast of that text to a number raises per row, never while
// planning (constfold.go raises a constant's error while planning).
func foldCast(v any, k kind, nullable, explicit bool) (out expr.Expression, ok bool, err error) {
	var r any
	if n, isInt := intOf(v); isInt {
		switch {
		case k.Integer():
			r, ok = intValue(n, k)
			if !ok {
				return nil, false, nil
			}
		case k == kindF32:
			r = float32(n)
		case k == kindF64:
			r = float64(n)
		case k == kindBool:
			r = n != 0
		case k.Stringy():
			r = strconv.FormatInt(n, 10)
		}
	} else if f, isFloat := floatOf(v); isFloat {
		bits := 64
		if _, is32 := v.(float32); is32 {
			bits = 32
		}
		switch {
		case k.Integer():
			rf := math.RoundToEven(f)
			if math.IsNaN(rf) || rf < -(1<<63) || rf >= 1<<63 {
				return nil, false, nil
			}
			if r, ok = intValue(int64(rf), k); !ok {
				return nil, false, nil
			}
		case k == kindF64:
			r = f
		case k == kindF32:
			r32 := float32(f)
			if (math.IsInf(float64(r32), 0) && !math.IsInf(f, 0)) || (r32 == 0 && f != 0) {
				return nil, false, nil // overflow or underflow: the run-time error
			}
			r = r32
		case k.Stringy():
			r = sqlvalue.FormatFloat(f, bits) // float8out: 1234567.0 is "1234567"
		}
	} else {
		switch x := v.(type) {
		case bool:
			switch {
			case k.Integer():
				r, _ = intValue(map[bool]int64{false: 0, true: 1}[x], k)
			case k.Stringy():
				r = strconv.FormatBool(x)
			}
		case dateLit:
			switch {
			case k == kindDate:
				r = x
			case k == kindTimestamp:
				us, err := sqlvalue.DateToTimestamp(int32(x))
				if err != nil {
					return nil, false, nil
				}
				r = tsLit(us)
			case k.Stringy() && k.ID != idString:
				r = sqlvalue.FormatDate(int32(x))
			}
		case tsLit:
			switch {
			case k == kindTimestamp:
				r = x
			case k == kindDate:
				r = dateLit(sqlvalue.TimestampToDate(int64(x)))
			case k.Stringy() && k.ID != idString:
				r = sqlvalue.FormatTimestamp(int64(x))
			}
		}
	}
	if s, isStr := stringOf(v, true); isStr && r == nil {
		r = s // stringy to text; to varchar(n)/char(n) below
		if !k.Stringy() {
			return nil, false, nil
		}
	}
	if k.ID == idNumeric && r == nil {
		v, ok := foldNumeric(v, k)
		if !ok {
			return nil, false, nil // the run-time cast raises what it must
		}
		r = v
	}
	if d, isDec := v.(decLit); isDec && r == nil {
		switch {
		case k.Integer():
			lo, hi := intRange(k)
			n, err := sqlvalue.DecimalToInt(d.v, d.s, lo, hi, k.String())
			if err != nil {
				return nil, false, nil
			}
			r, _ = intValue(n, k)
		case k == kindF64:
			r = sqlvalue.DecimalToFloat(d.v, d.s)
		case k.Stringy():
			r = sqlvalue.FormatDecimal(d.v, d.s)
		}
	}
	if r == nil {
		return nil, false, nil
	}
	if s, isStr := r.(string); isStr && (k.ID == idVarchar && k.N > 0 || k.ID == idChar) {
		cc := sqlvalue.CharCast{Len: int(k.N), Pad: k.ID == idChar}
		if explicit {
			s = cc.Truncate(s)
		} else if s, err = cc.Apply(s); err != nil {
			return nil, false, fmt.Errorf("%w: %w", ErrType, err)
		}
		if k.ID == idChar {
			r = charLit{s: s, n: k.N}
		} else {
			r = varcharLit{s: s, n: k.N}
		}
	}
	return newLiteral(r, nullable), true, nil
}

// parseLiteral reads a string literal as kind k, like Postgres' input
// functions (bigint '12', boolean 'yes', date '2024-02-29').
func (l *lowerer) parseLiteral(s string, k kind, loc int32) (expr.Expression, error) {
	t := strings.TrimSpace(s)
	bad := func() error {
		return fmt.Errorf("%w: invalid input syntax for type %s: %q%s", ErrType, k, s, l.src.at(loc))
	}
	switch {
	case k.Stringy():
		// An untyped literal into varchar(n)/char(n) is an assignment:
		// too long is an error, blank padding for char(n).
		e, _, err := foldCast(s, k, false, false)
		if err != nil {
			return nil, fmt.Errorf("%w%s", err, l.src.at(loc))
		}
		return e, nil
	case k.Integer():
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, bad()
		}
		v, ok := intValue(n, k)
		if !ok {
			return nil, fmt.Errorf("%w: value %q is out of range for type %s%s", ErrType, s, k, l.src.at(loc))
		}
		return newLiteral(v, false), nil
	case k.Float():
		// float8in/float4in, as the run-time cast reads text: out of
		// range ('1e309', '1e-400') is an error, never Inf or 0.
		bits := 64
		if k == kindF32 {
			bits = 32
		}
		f, err := sqlvalue.ParseFloat(s, bits)
		if err != nil {
			return nil, fmt.Errorf("%w: %w%s", ErrType, err, l.src.at(loc))
		}
		if k == kindF32 {
			return newLiteral(float32(f), false), nil
		}
		return newLiteral(f, false), nil
	case k == kindBool:
		b, ok := sqlvalue.ParseBool(s)
		if !ok {
			return nil, bad()
		}
		return expr.NewPrimitiveLiteral(b, false), nil
	case k == kindDate:
		d, err := sqlvalue.ParseDate(s)
		if err != nil {
			return nil, fmt.Errorf("%w: %w%s", ErrType, err, l.src.at(loc))
		}
		return newLiteral(dateLit(d), false), nil
	case k.ID == idNumeric:
		d, err := sqlvalue.ParseDecimal(s, k.N, k.S)
		if err != nil {
			return nil, fmt.Errorf("%w: %w%s", ErrType, err, l.src.at(loc))
		}
		return newLiteral(decLit{v: d, p: k.N, s: k.S}, false), nil
	case k == kindTimestamp:
		us, err := sqlvalue.ParseTimestamp(s)
		if err != nil {
			return nil, fmt.Errorf("%w: %w%s", ErrType, err, l.src.at(loc))
		}
		return newLiteral(tsLit(us), false), nil
	}
	return nil, bad()
}

// intRange is the value range of integer kind k.
func intRange(k kind) (int64, int64) {
	switch k.ID {
	case idI16:
		return math.MinInt16, math.MaxInt16
	case idI32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// foldNumeric converts an integer, float, string or numeric literal to
// numeric k at plan time; ok is false when it does not fit (the run-time
// cast then raises "numeric field overflow").
func foldNumeric(v any, k kind) (decLit, bool) {
	var d decimal128.Num
	var err error
	if n, ok := intOf(v); ok {
		d, err = sqlvalue.DecimalFromInt(n, k.N, k.S)
	} else if f, ok := floatOf(v); ok {
		bits := 64
		if _, is32 := v.(float32); is32 {
			bits = 32
		}
		d, err = sqlvalue.DecimalFromFloat(f, bits, k.N, k.S)
	} else if s, ok := stringOf(v, true); ok {
		d, err = sqlvalue.ParseDecimal(s, k.N, k.S)
	} else if x, ok := v.(decLit); ok {
		d, err = sqlvalue.RescaleDecimal(x.v, x.s, k.N, k.S)
	} else {
		return decLit{}, false
	}
	if err != nil {
		return decLit{}, false
	}
	return decLit{v: d, p: k.N, s: k.S}, true
}
