package plan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// An IS NOT DISTINCT FROM between the inputs is a hash key too: general
// unnesting joins the domain of a dependent join's outer values back to
// the query on it (optimize.Decorrelate: D ⋈ (l IS NOT DISTINCT FROM r)),
// and as a residual that join tested every pair: a LATERAL over 20,000
// rows took 75 CPU seconds in its two nested loop joins. The hash join
// never matches a NULL key, so the pair is written as two keys that are
// never NULL and equal exactly when the values are not distinct:
//
//	l IS NOT DISTINCT FROM r   ==>   (l IS NULL, COALESCE(l, z)) = (r IS NULL, COALESCE(r, z))
//
// where z is any value of the key's type (its zero): two NULLs give
// (true, z) on both sides, a NULL and a value differ in the first key,
// and two values compare by the second, with the equality of = (a float's
// NaN equals NaN and -0 equals 0 there, as in PostgreSQL's float8eq).
// A type without such a zero here stays a residual.

// nullEqKey reports whether e is is_not_distinct_from(left expr, right
// expr) in either order.
func nullEqKey(e expr.Expression, nl int) (keyPair, bool, error) {
	l, r, ok, err := crossArgs(e, "is_not_distinct_from", nl)
	if err != nil || !ok {
		return keyPair{}, false, err
	}
	// Column references only: a hash join evaluates its keys over every
	// row of both inputs, a residual only on the pairs it meets, so a
	// computed key that raises (an overflow) could raise where
	// PostgreSQL, which never hashes IS NOT DISTINCT FROM, evaluates it
	// on no pair. The domain joins of general unnesting compare columns.
	_, lcol := l.(*expr.FieldReference)
	_, rcol := r.(*expr.FieldReference)
	if !lcol || !rcol {
		return keyPair{}, false, nil
	}
	return keyPair{l: l, r: r, nullEq: true, orig: e}, true, nil
}

// nullEqKeys are the two never-NULL key expressions of each side for l IS
// NOT DISTINCT FROM r, both of type t; ok is false for a type with no
// zero here.
func nullEqKeys(l, r physexpr.Expr, t arrow.DataType) (ls, rs []physexpr.Expr, ok bool) {
	z, ok := zeroKey(t)
	if !ok {
		return nil, nil, false
	}
	side := func(e physexpr.Expr) []physexpr.Expr {
		return []physexpr.Expr{physexpr.Unary{Op: physexpr.OpIsNull, E: e}, physexpr.Coalesce{Args: []physexpr.Expr{e, z}}}
	}
	return side(l), side(r), true
}

// zeroKey is a literal of the hash join key type t: any value serves.
func zeroKey(t arrow.DataType) (physexpr.Lit, bool) {
	switch t.ID() {
	case arrow.INT8:
		return physexpr.Lit{Value: int8(0)}, true
	case arrow.INT16:
		return physexpr.Lit{Value: int16(0)}, true
	case arrow.INT32:
		return physexpr.Lit{Value: int32(0)}, true
	case arrow.INT64:
		return physexpr.Lit{Value: int64(0)}, true
	case arrow.UINT64:
		return physexpr.Lit{Value: uint64(0)}, true
	case arrow.FLOAT32:
		return physexpr.Lit{Value: float32(0)}, true
	case arrow.FLOAT64:
		return physexpr.Lit{Value: float64(0)}, true
	case arrow.BOOL:
		return physexpr.Lit{Value: false}, true
	case arrow.STRING:
		return physexpr.Lit{Value: ""}, true
	case arrow.DATE32:
		return physexpr.Lit{Value: arrow.Date32(0), Type: t}, true
	case arrow.TIMESTAMP:
		return physexpr.Lit{Value: arrow.Timestamp(0), Type: t}, true
	case arrow.DECIMAL128:
		return physexpr.Lit{Value: decimal128.Num{}, Type: t}, true
	}
	return physexpr.Lit{}, false
}
