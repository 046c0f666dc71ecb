package physexpr

import (
	"context"
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/value"
)

// DecimalRound is PostgreSQL's rounding of numeric: round(x, n) (half away
// from zero, numeric_round), trunc(x, n) (toward zero, numeric_trunc),
// floor(x) and ceil(x) (numeric_floor, numeric_ceil). The value is
// rounded to Digits places after the point (Digits < 0 rounds left of
// it: round(1234.5, -2) is 1200) and the result has scale max(Digits, 0)
// (round_var sets the display scale to n, and to 0 for n < 0), so
// round(2.5, 3) is 2.500. The result type To has that scale; its
// precision is the planner's choice, and a value past it is "numeric
// field overflow" (round(99.95, 1) needs one more integer digit than
// 99.95).
//
//	x (decimal(p, s)) --unscaled v--> v rounded by Mode at 10^(s-Digits)
//	  --> decimal(To.Precision, max(Digits, 0))
type DecimalRound struct {
	E      Expr
	Digits int32
	Mode   RoundMode
	To     *arrow.Decimal128Type
}

// RoundMode is how DecimalRound rounds.
type RoundMode uint8

const (
	RoundHalfAway RoundMode = iota // round: to nearest, ties away from zero
	RoundTrunc                     // trunc: toward zero
	RoundFloor                     // floor: toward -infinity
	RoundCeil                      // ceil: toward +infinity
)

var roundModeNames = [...]string{"round", "trunc", "floor", "ceil"}

func (e DecimalRound) String() string {
	if e.Mode == RoundFloor || e.Mode == RoundCeil {
		return fmt.Sprintf("%s(%s)", roundModeNames[e.Mode], e.E)
	}
	return fmt.Sprintf("%s(%s, %d)", roundModeNames[e.Mode], e.E, e.Digits)
}
func (e DecimalRound) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e DecimalRound) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}

func (e DecimalRound) Bind(s *arrow.Schema) (Bound, error) {
	x, err := Bind(e.E, s)
	if err != nil {
		return nil, err
	}
	in, ok := x.Type().(*arrow.Decimal128Type)
	if !ok {
		return nil, fmt.Errorf("%w: %s of %s", ErrSchema, roundModeNames[e.Mode%4], x.Type())
	}
	if int(e.Mode) >= len(roundModeNames) {
		return nil, fmt.Errorf("%w: rounding mode %d", ErrInvalidArgument, e.Mode)
	}
	if e.To == nil || e.To.Scale != value.DecimalRoundScale(e.Digits) || e.To.Precision < 1 || e.To.Precision > value.MaxDecimalPrecision {
		return nil, fmt.Errorf("%w: %s to %d places as %v", ErrSchema, roundModeNames[e.Mode], e.Digits, e.To)
	}
	return boundDecimalRound{exprOf: exprOf[DecimalRound]{e}, x: x, from: in.Scale, limit: value.Pow10(e.To.Precision)}, nil
}

type boundDecimalRound struct {
	exprOf[DecimalRound]
	x     Bound
	from  int32
	limit *big.Int // 10^precision of the result
}

func (e boundDecimalRound) Type() arrow.DataType { return e.src.To }

// Eval names the value errors this node raises (evalNamed).
func (e boundDecimalRound) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return evalNamed(ctx, mem, b, e, e.eval)
}

func (e boundDecimalRound) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	d, err := e.x.Eval(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	n, asScalar := rowsFor(int(b.NumRows()), d)
	a, err := decimalRows(e.src.To, func(a []arg, i int) (decimal128.Num, error) {
		return e.round(a[0].d(i))
	})(mem, n, []compute.Datum{d})
	if err != nil {
		return nil, err
	}
	return result(a, asScalar)
}

// round is one value: dropped = s - Digits digits go (none when Digits
// >= s: the value only gains zeros), then the result is scaled back for a
// negative Digits.
func (e boundDecimalRound) round(v decimal128.Num) (decimal128.Num, error) {
	x := v.BigInt()
	drop := e.from - e.src.Digits
	var r *big.Int
	switch {
	case drop <= 0:
		r = new(big.Int).Mul(x, value.Pow10(-drop))
	default:
		d := value.Pow10(drop)
		q, rem := new(big.Int).QuoRem(x, d, new(big.Int)) // q toward zero
		switch e.src.Mode {
		case RoundHalfAway:
			q = value.RoundDiv(x, drop)
		case RoundFloor:
			if rem.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			}
		case RoundCeil:
			if rem.Sign() > 0 {
				q.Add(q, big.NewInt(1))
			}
		}
		r = q
		if e.src.Digits < 0 {
			r.Mul(r, value.Pow10(-e.src.Digits))
		}
	}
	if new(big.Int).Abs(r).Cmp(e.limit) >= 0 {
		return decimal128.Num{}, value.ErrNumericOverflow
	}
	return decimal128.FromBigInt(r), nil
}
