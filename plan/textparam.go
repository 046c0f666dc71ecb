package plan

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// TextParam is a parameter value written as text with no type of its own:
// what a command line binds (the CLI's -p 1=5), and what PostgreSQL's
// extended protocol sends for a text-format parameter. PostgreSQL hands
// such a value to the input function of the type the statement gave the
// parameter (exec_bind_message: OidInputFunctionCall with the parameter's
// type), the way an unknown literal is read (coerce_type on an UNKNOWN
// Const): so `SELECT $1` with '5' is the text 5, `k = $1` with '5' the
// bigint 5, and `k = $1` with 'x' the error "invalid input syntax for
// type bigint". Typed values (the server's Arrow parameters) are not
// TextParam and keep their exact-conversion rules (paramScalar).
type TextParam string

// textScalar reads s as a value of t with t's input function: the text
// to t cast (physexpr.Cast, which parses as PostgreSQL's input functions
// do). A numeric is read at its own scale and must fit t exactly, as a
// bound decimal must (DecimalParam.fit): PostgreSQL types the parameter
// numeric without a modifier, so 1.234 against a numeric(10,2) column is
// never rounded to 1.23.
func textScalar(s TextParam, t arrow.DataType) (scalar.Scalar, error) {
	if t.ID() == arrow.STRING {
		return scalar.NewStringScalar(string(s)), nil
	}
	if dt, ok := t.(*arrow.Decimal128Type); ok {
		if d, ok := decimalText(string(s)); ok {
			n, err := d.fit(dt)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrParamType, err)
			}
			return scalar.NewDecimal128Scalar(n, t), nil
		}
	}
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	cast := physexpr.Cast{E: physexpr.Lit{Value: string(s), Type: arrow.BinaryTypes.String}, To: t}
	a, err := cast.Evaluate(context.Background(), memory.DefaultAllocator, one)
	if err != nil {
		// The input function's own error (invalid input syntax for type
		// bigint: "x", an InvalidArgument), as PostgreSQL reports it: the
		// cast it went through is this function's, not the user's, so
		// the expression ExprError names is left out; the caller names
		// the parameter (engine's nameParam).
		var ee *physexpr.ExprError
		if errors.As(err, &ee) {
			err = ee.Err
		}
		return nil, err
	}
	defer a.Release()
	v, err := scalar.GetScalar(a, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParamType, err)
	}
	return v, nil
}

// decimalText reads a plain decimal ([+-]digits[.digits]) at the scale it
// is written with; ok is false for anything else (an exponent, NaN), which
// the cast then reads or refuses.
func decimalText(s string) (DecimalParam, bool) {
	t := strings.TrimSpace(s)
	digits := strings.TrimLeft(t, "+-")
	if len(t)-len(digits) > 1 || digits == "" {
		return DecimalParam{}, false
	}
	whole, frac, _ := strings.Cut(digits, ".")
	if whole+frac == "" || strings.Trim(whole+frac, "0123456789") != "" || len(frac) > physexpr.MaxDecimalPrecision {
		return DecimalParam{}, false
	}
	n, err := decimal128.FromString(t, physexpr.MaxDecimalPrecision, int32(len(frac)))
	if err != nil {
		return DecimalParam{}, false
	}
	return DecimalParam{Num: n, Scale: int32(len(frac))}, true
}

// textList is s where a list is unnested: the list of one value of
// element type t (int64 or text), as paramScalar reads it.
func textList(ref int, s TextParam, t arrow.DataType) (any, error) {
	if t.ID() == arrow.STRING {
		return []string{string(s)}, nil
	}
	v, err := textScalar(s, t)
	if err != nil {
		return nil, err
	}
	x, ok := v.(*scalar.Int64)
	if !ok || !x.Valid {
		return nil, fmt.Errorf("plan: unnest $%d is %q, want a list of integers: %w", ref, string(s), ErrParamType)
	}
	return []int64{x.Value}, nil
}
