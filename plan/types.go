package plan

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/plan/ingest"
	"github.com/substrait-io/substrait-go/v8/types"
	substraitpb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// arrowType maps a Substrait type to the Arrow type stablerow uses for it
// (substrait.md §3). Row id columns never come through here: their Arrow
// type is the table provider's uint64.
func arrowType(t types.Type) (arrow.DataType, error) {
	switch t := t.(type) {
	case *types.Int64Type:
		return arrow.PrimitiveTypes.Int64, nil
	case *types.Int32Type:
		return arrow.PrimitiveTypes.Int32, nil
	case *types.Int16Type:
		return arrow.PrimitiveTypes.Int16, nil
	case *types.Int8Type:
		return arrow.PrimitiveTypes.Int8, nil
	case *types.Float64Type:
		return arrow.PrimitiveTypes.Float64, nil
	case *types.Float32Type:
		return arrow.PrimitiveTypes.Float32, nil
	case *types.StringType, *types.VarCharType, *types.FixedCharType:
		return arrow.BinaryTypes.String, nil
	case *types.BooleanType:
		return arrow.FixedWidthTypes.Boolean, nil
	case *types.DateType:
		return arrow.FixedWidthTypes.Date32, nil
	case *types.DecimalType:
		if t.Precision < 1 || t.Precision > physexpr.MaxDecimalPrecision || t.Scale < 0 || t.Scale > t.Precision {
			return nil, fmt.Errorf("%w: decimal<%d,%d> (decimal128 holds precision 1..38, scale 0..precision)", errUnsupported("type"), t.Precision, t.Scale)
		}
		return &arrow.Decimal128Type{Precision: t.Precision, Scale: t.Scale}, nil
	case *types.PrecisionTimestampType:
		// PostgreSQL's timestamp (without time zone) has microseconds;
		// coarser precisions hold exactly in them, finer ones would not.
		if t.Precision >= 0 && t.Precision <= types.PrecisionMicroSeconds {
			return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
		}
		return nil, fmt.Errorf("%w: timestamp precision %d (at most 6, microseconds)", errUnsupported("type"), t.Precision)
	case *types.TimestampType: // the deprecated kind: microseconds
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	case nil:
		return nil, fmt.Errorf("%w: missing type", ErrInvalidPlan)
	}
	return nil, fmt.Errorf("%w: %s", errUnsupported("type"), t)
}

// errUnsupported prefixes ErrUnsupported with what kind of construct it is.
func errUnsupported(kind string) error { return ingest.Unsupported(kind) }

func isSignedInt(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

func isFloat(t arrow.DataType) bool { return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64 }

// unify converts two operands of a comparison or arithmetic to one type,
// as PostgreSQL's operator resolution does: two integers meet at the wider
// one (int2 + int4 is int4, int4 + int8 is int8), two reals stay real, a
// float meeting anything else becomes float64 (int4 + real is double
// precision), a date meeting a timestamp becomes its midnight. A uint64
// row id is bigint in SQL, so it always becomes int64 (checked: asInt64),
// even against another row id: `a._rowid - b._rowid` is a negative bigint,
// not a wrapped uint64, and `%` finds its int64 kernel. A negative operand
// then compares as the negative number it is: `_rowid > -1` is true,
// `_rowid = -1` false.
func unify(l, r physexpr.Expr, ls, rs arrow.DataType) (physexpr.Expr, physexpr.Expr, arrow.DataType, error) {
	if ls.ID() == arrow.UINT64 {
		l, ls = asInt64{l}, arrow.PrimitiveTypes.Int64
	}
	if rs.ID() == arrow.UINT64 {
		r, rs = asInt64{r}, arrow.PrimitiveTypes.Int64
	}
	if arrow.TypeEqual(ls, rs) {
		return l, r, ls, nil
	}
	var to arrow.DataType
	switch {
	case isSignedInt(ls) && isSignedInt(rs):
		to = ls
		if intWidth(rs) > intWidth(ls) {
			to = rs
		}
	case isDecimal(ls) || isDecimal(rs):
		if isFloat(ls) || isFloat(rs) {
			to = arrow.PrimitiveTypes.Float64 // numeric meets float8 as float8
			break
		}
		l, ls = asDecimal(l, ls)
		r, rs = asDecimal(r, rs)
		if !isDecimal(ls) || !isDecimal(rs) {
			return nil, nil, nil, fmt.Errorf("%w: cannot combine %s and %s", ErrInvalidPlan, ls, rs)
		}
		to = commonDecimal(ls.(*arrow.Decimal128Type), rs.(*arrow.Decimal128Type))
	case (isSignedInt(ls) || isFloat(ls)) && (isSignedInt(rs) || isFloat(rs)):
		to = arrow.PrimitiveTypes.Float64
	case isDatetime(ls) && isDatetime(rs):
		to = &arrow.TimestampType{Unit: arrow.Microsecond}
	case ls.ID() == arrow.NULL:
		to = rs
	case rs.ID() == arrow.NULL:
		to = ls
	default:
		return nil, nil, nil, fmt.Errorf("%w: cannot combine %s and %s", ErrInvalidPlan, ls, rs)
	}
	return castTo(l, ls, to), castTo(r, rs, to), to, nil
}

func isDecimal(t arrow.DataType) bool { return t.ID() == arrow.DECIMAL128 }

// asDecimal converts an integer operand to the numeric that holds all its
// values exactly (int2: numeric(5,0), int4: (10,0), int8: (19,0)).
func asDecimal(e physexpr.Expr, t arrow.DataType) (physexpr.Expr, arrow.DataType) {
	if !isSignedInt(t) {
		return e, t
	}
	p := map[arrow.Type]int32{arrow.INT8: 3, arrow.INT16: 5, arrow.INT32: 10, arrow.INT64: 19}[t.ID()]
	to := &arrow.Decimal128Type{Precision: p, Scale: 0}
	return physexpr.Cast{E: e, To: to}, to
}

// commonDecimal is the numeric both operands of a comparison convert to
// exactly: the larger scale and the more integer digits (at most 38).
func commonDecimal(a, b *arrow.Decimal128Type) *arrow.Decimal128Type {
	s := max(a.Scale, b.Scale)
	return &arrow.Decimal128Type{Precision: min(physexpr.MaxDecimalPrecision, max(a.Precision-a.Scale, b.Precision-b.Scale)+s), Scale: s}
}

func intWidth(t arrow.DataType) int { return t.(arrow.FixedWidthDataType).BitWidth() }

func isDatetime(t arrow.DataType) bool {
	return t.ID() == arrow.DATE32 || t.ID() == arrow.TIMESTAMP && t.(*arrow.TimestampType).Unit == arrow.Microsecond
}

// datetimeBinary plans the date arithmetic (date +/- integer days, date -
// date), whose operands keep their own types; ok is false for any other
// pair, which unify then handles.
func datetimeBinary(op physexpr.Op, l, r physexpr.Expr, lt, rt arrow.DataType) (physexpr.Expr, bool, error) {
	if op >= physexpr.OpAdd && (isDecimal(lt) || isDecimal(rt)) && !isFloat(lt) && !isFloat(rt) {
		// numeric arithmetic keeps each operand's scale: no common type.
		l, lt = asDecimal(l, lt)
		r, rt = asDecimal(r, rt)
		if _, _, ok := physexpr.DecimalResult(op, 1, 0, 1, 0); !ok || !isDecimal(lt) || !isDecimal(rt) {
			return nil, true, fmt.Errorf("%w: numeric arithmetic %s and %s", errUnsupported("expression"), lt, rt)
		}
		return physexpr.DecimalArith{Op: op, L: l, R: r}, true, nil
	}
	ld, rd := lt.ID() == arrow.DATE32, rt.ID() == arrow.DATE32
	switch {
	case ld && rd && op == physexpr.OpSub:
		return physexpr.DateArith{Op: op, L: l, R: r}, true, nil
	case ld && isSignedInt(rt) && (op == physexpr.OpAdd || op == physexpr.OpSub):
		return physexpr.DateArith{Op: op, L: l, R: castTo(r, rt, arrow.PrimitiveTypes.Int32)}, true, nil
	case rd && isSignedInt(lt) && op == physexpr.OpAdd:
		return physexpr.DateArith{Op: op, L: r, R: castTo(l, lt, arrow.PrimitiveTypes.Int32)}, true, nil
	case ld || rd:
		if op >= physexpr.OpAdd && !(ld && rd && op <= physexpr.OpGe) {
			return nil, true, fmt.Errorf("%w: arithmetic on %s and %s", ErrInvalidPlan, lt, rt)
		}
	}
	return nil, false, nil
}

// castTo wraps e in a cast unless it already has type to. A literal is
// converted at plan time, so EXPLAIN shows `x = 5` rather than a cast.
func castTo(e physexpr.Expr, from, to arrow.DataType) physexpr.Expr {
	if arrow.TypeEqual(from, to) {
		return e
	}
	if l, ok := e.(physexpr.Lit); ok {
		if v, ok := convertLiteral(l.Value, to); ok {
			return physexpr.Lit{Value: v, Type: to}
		}
	}
	if from.ID() == arrow.UINT64 && to.ID() == arrow.INT64 {
		return asInt64{e}
	}
	return physexpr.Cast{E: e, To: to}
}

// convertLiteral converts a literal's Go value to the Go type physexpr.Lit uses
// for to; ok is false when it cannot do so exactly (the run-time cast then
// raises the error a value out of range deserves).
func convertLiteral(v any, to arrow.DataType) (any, bool) {
	if v == nil {
		return nil, true
	}
	var i int64
	switch x := v.(type) {
	case int8:
		i = int64(x)
	case int16:
		i = int64(x)
	case int32:
		i = int64(x)
	case int64:
		i = x
	case float32:
		if to.ID() == arrow.FLOAT64 {
			return float64(x), true
		}
		return nil, false
	case arrow.Date32:
		if to.ID() == arrow.TIMESTAMP {
			if us, err := physexpr.DateToTimestamp(int32(x)); err == nil {
				return arrow.Timestamp(us), true
			}
		}
		return nil, false
	default:
		return nil, false
	}
	switch to.ID() {
	case arrow.INT64:
		return i, true
	case arrow.INT32:
		return int32(i), i == int64(int32(i))
	case arrow.INT16:
		return int16(i), i == int64(int16(i))
	case arrow.FLOAT64:
		return float64(i), true
	case arrow.DECIMAL128:
		// An integer converts to numeric implicitly in PostgreSQL
		// (int8 to numeric): exactly, or not at all when it does not fit
		// numeric(p, s).
		dt := to.(*arrow.Decimal128Type)
		d, err := physexpr.DecimalFromInt(i, dt.Precision, dt.Scale)
		return d, err == nil
	}
	return nil, false
}

// asInt64 is a uint64 row id as the bigint it is in SQL: the array is
// reinterpreted without copying after a check that every value fits (the
// table assigns ids below 2^63, so the check only guards against a broken
// invariant or a foreign uint64 column; a value that does not fit is
// ErrOutOfRange, never a silently negative number).
type asInt64 struct{ E physexpr.Expr }

func (e asInt64) String() string { return fmt.Sprintf("i64(%s)", e.E) }
func (e asInt64) DataType(s *arrow.Schema) (arrow.DataType, error) {
	t, err := e.E.DataType(s)
	if err != nil {
		return nil, err
	}
	if t.ID() != arrow.UINT64 {
		return nil, fmt.Errorf("%w: i64() of %s", physexpr.ErrSchema, t)
	}
	return arrow.PrimitiveTypes.Int64, nil
}
func (e asInt64) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	a, err := e.E.Evaluate(ctx, mem, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	u, ok := a.(*array.Uint64)
	if !ok {
		return nil, fmt.Errorf("%w: i64() of %s", physexpr.ErrSchema, a.DataType())
	}
	if v, bad := aboveInt64(u); bad {
		return nil, fmt.Errorf("%w: %d does not fit bigint", ErrOutOfRange, v)
	}
	d := a.Data()
	nd := array.NewData(arrow.PrimitiveTypes.Int64, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd), nil
}

// aboveInt64 returns the first non-NULL value of u above MaxInt64. The
// common all-valid case ORs the values in one pass.
func aboveInt64(u *array.Uint64) (uint64, bool) {
	vals := u.Uint64Values()
	if u.NullN() == 0 {
		var or uint64
		for _, v := range vals {
			or |= v
		}
		if or>>63 == 0 {
			return 0, false
		}
	}
	for i, v := range vals {
		if v>>63 != 0 && u.IsValid(i) {
			return v, true
		}
	}
	return 0, false
}

// keyCast returns the expression that turns a driving-side key of type from
// into the type of the column it must equal, or an error if none keeps the
// values' meaning.
func keyCast(e physexpr.Expr, from, to arrow.DataType) (physexpr.Expr, error) {
	switch {
	case arrow.TypeEqual(from, to):
		return e, nil
	case to.ID() == arrow.UINT64 && isSignedInt(from):
		return toRowID{castTo(e, from, arrow.PrimitiveTypes.Int64)}, nil
	case from.ID() == arrow.UINT64 && to.ID() == arrow.INT64:
		return asInt64{e}, nil
	case isSignedInt(from) && isSignedInt(to) && to.ID() == arrow.INT64,
		(isSignedInt(from) || isFloat(from)) && to.ID() == arrow.FLOAT64:
		return castTo(e, from, to), nil
	}
	return nil, fmt.Errorf("%w: join keys of types %s and %s", ErrInvalidPlan, from, to)
}

// zeroOf is the zero of integer or float type t, for negation as 0 - x.
func zeroOf(t arrow.DataType) physexpr.Lit {
	switch t.ID() {
	case arrow.INT8:
		return physexpr.Lit{Value: int8(0)}
	case arrow.INT16:
		return physexpr.Lit{Value: int16(0)}
	case arrow.INT32:
		return physexpr.Lit{Value: int32(0)}
	}
	return physexpr.Lit{Value: int64(0)}
}

// timestampLiteral is a precision timestamp literal in microseconds.
func timestampLiteral(v int64, precision int32) (physexpr.Expr, error) {
	if precision < 0 || precision > 6 {
		return nil, fmt.Errorf("%w: timestamp literal of precision %d", errUnsupported("expression"), precision)
	}
	for ; precision < 6; precision++ {
		if v > math.MaxInt64/10 || v < math.MinInt64/10 {
			return nil, fmt.Errorf("%w: timestamp literal out of range", ErrInvalidPlan)
		}
		v *= 10
	}
	return physexpr.Lit{Value: arrow.Timestamp(v), Type: &arrow.TimestampType{Unit: arrow.Microsecond}}, nil
}

// decimalLiteral is a Substrait decimal literal: 16 bytes, a little-endian
// two's complement integer, and its precision and scale.
func decimalLiteral(d *substraitpb.Expression_Literal_Decimal) (physexpr.Expr, error) {
	t, err := arrowType(&types.DecimalType{Precision: d.GetPrecision(), Scale: d.GetScale()})
	if err != nil {
		return nil, err
	}
	b := d.GetValue()
	if len(b) != 16 {
		return nil, fmt.Errorf("%w: decimal literal of %d bytes", ErrInvalidPlan, len(b))
	}
	v := decimal128.New(int64(binary.LittleEndian.Uint64(b[8:])), binary.LittleEndian.Uint64(b[:8]))
	if !v.FitsInPrecision(d.GetPrecision()) {
		return nil, fmt.Errorf("%w: decimal literal wider than its precision %d", ErrInvalidPlan, d.GetPrecision())
	}
	return physexpr.Lit{Value: v, Type: t}, nil
}
