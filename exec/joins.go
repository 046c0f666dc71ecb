package exec

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// JoinType selects which rows a join emits. Left is the probe (streamed)
// input, right the build (materialized) input. The RIGHT-side types
// (JoinRight, JoinRightSemi, JoinRightAnti) let a planner build the
// smaller input whichever side of the query it is on (join_right.go).
type JoinType int

const (
	// JoinInner emits every matching pair.
	JoinInner JoinType = iota
	// JoinLeft emits every matching pair, and each unmatched left row once
	// with NULL right columns.
	JoinLeft
	// JoinRight emits every matching pair, and after the left input ends
	// each unmatched right row once with NULL left columns.
	JoinRight
	// JoinFull is JoinLeft and JoinRight together.
	JoinFull
	// JoinSemi emits each left row that has at least one match, once; the
	// output has the left columns only (EXISTS, IN).
	JoinSemi
	// JoinAnti emits each left row that has no match; left columns only
	// (NOT EXISTS).
	JoinAnti
	// JoinAntiNullAware is NOT IN's anti join on one key, with PostgreSQL's
	// NULL rules: x NOT IN (S) is true when S is empty; else it is NULL
	// (the row is dropped) when x is NULL or when x matches nothing and S
	// holds a NULL; else it is true exactly when x matches nothing.
	JoinAntiNullAware
	// JoinSingle is JoinLeft for a scalar subquery: a left row matching
	// more than one right row is an error (ErrSubqueryRows).
	JoinSingle
	// JoinRightSemi emits each right (build) row that has at least one
	// match, once, after the left input ends; the output has the right
	// columns only. It is JoinSemi with the inputs swapped.
	JoinRightSemi
	// JoinRightAnti emits each right row that has no match, after the left
	// input ends; right columns only. It is JoinAnti with the inputs
	// swapped (not the NULL-aware one).
	JoinRightAnti
	// JoinMark emits every left row once, with one more column, the mark
	// (a nullable boolean): Substrait's LEFT MARK join, an IN, EXISTS or
	// op ANY subquery used as a value. The mark is the OR, in SQL's
	// three-valued logic, of the join condition (the keys' equalities
	// AND the residual) over every right row: TRUE if some pair's
	// condition is true; else NULL if some pair's is NULL (a NULL key on
	// either side, or a NULL residual); else FALSE (no right rows: FALSE).
	// joinmark.go.
	JoinMark
)

var joinTypeNames = [...]string{"Inner", "Left", "Right", "Full", "Semi", "Anti", "AntiNullAware", "Single", "RightSemi", "RightAnti", "Mark"}

func (j JoinType) String() string {
	if j < 0 || int(j) >= len(joinTypeNames) {
		return fmt.Sprintf("JoinType(%d)", int(j))
	}
	return joinTypeNames[j]
}

func (j JoinType) valid() bool { return j >= JoinInner && j <= JoinMark }

// leftOnly: the output is the left columns (semi and anti joins).
func (j JoinType) leftOnly() bool { return j == JoinSemi || j == JoinAnti || j == JoinAntiNullAware }

// keepsLeft: unmatched left rows are emitted (NULL-extended unless leftOnly).
func (j JoinType) keepsLeft() bool {
	return j == JoinLeft || j == JoinFull || j == JoinSingle || j == JoinAnti || j == JoinAntiNullAware
}

// keepsRight: unmatched right rows are emitted after the left input ends.
func (j JoinType) keepsRight() bool { return j == JoinRight || j == JoinFull || j == JoinRightAnti }

// pairsOut: matching pairs are emitted as joined rows.
func (j JoinType) pairsOut() bool { return !j.leftOnly() && !j.rightOnly() }

// ErrSubqueryRows is PostgreSQL's cardinality violation for a scalar
// subquery (a JoinSingle left row with two matches).
var ErrSubqueryRows = errkind.New(errkind.InvalidArgument, "more than one row returned by a subquery used as an expression")

// joinSchemas returns the output schema and the schema of a matching pair
// (left ++ right as they are, what a residual predicate is bound to).
func joinSchemas(ls, rs *arrow.Schema, typ JoinType) (out, pair *arrow.Schema) {
	pf := append(append([]arrow.Field{}, ls.Fields()...), rs.Fields()...)
	pair = arrow.NewSchema(pf, nil)
	if typ.leftOnly() {
		return ls, pair
	}
	if typ.rightOnly() {
		return rs, pair
	}
	if typ == JoinMark {
		return arrow.NewSchema(append(append([]arrow.Field{}, ls.Fields()...), markField), nil), pair
	}
	of := make([]arrow.Field, 0, len(pf))
	for i, f := range pf {
		isLeft := i < ls.NumFields()
		if (isLeft && typ.keepsRight()) || (!isLeft && typ.keepsLeft()) {
			f.Nullable = true
		}
		of = append(of, f)
	}
	return arrow.NewSchema(of, nil), pair
}

// joinOrdering is the output ordering: the left (probe) order survives
// unless right rows are appended at the end.
func joinOrdering(left Node, typ JoinType) Properties {
	if typ.rightAfter() {
		return Properties{}
	}
	return Properties{Ordering: left.Properties().Ordering}
}

// bindResidual binds a join's residual predicate to the pair schema and
// checks it is boolean; nil stays nil.
func bindResidual(e physexpr.Expr, pair *arrow.Schema) (physexpr.Bound, error) {
	if e == nil {
		return nil, nil
	}
	b, err := physexpr.Bind(e, pair)
	if err != nil {
		return nil, fmt.Errorf("join condition %s: %w", e, err)
	}
	if b.Type().ID() != arrow.BOOL {
		return nil, fmt.Errorf("%w: join condition %s is %s, not boolean", physexpr.ErrSchema, e, b.Type())
	}
	return b, nil
}

// indexBytesPerRow is what keyIndex costs per build row, reserved ahead
// (the build trues it up to keyIndex.bytes): slots at a load of at most
// 1/2 (16 to 32 bytes), next and, while building, tail (int32 each), and
// one key column's normalized words (8).
const indexBytesPerRow = 48

// collectBuild drains the build (right) input under res: each batch is
// reserved twice (the batch and its copy in the concatenated build side),
// and, for a hash join, its rows' share of the key index. Over the limit a
// join that may spill (spill) gets back the batches read, the refused one
// last and unreserved, with full set and in still open: the grace join
// partitions them and the rest of in (join_spill.go). One that may not
// fails with memlimit.ErrResourceExhausted, naming the rows it had read.
// It closes in otherwise.
func collectBuild(ctx context.Context, in Stream, res *memlimit.Reservation, hashed, spill bool) (_ []arrow.RecordBatch, full bool, _ error) {
	var out []arrow.RecordBatch
	var rows int64
	fail := func(err error) ([]arrow.RecordBatch, bool, error) {
		in.Close()
		for _, b := range out {
			b.Release()
		}
		return nil, false, err
	}
	for {
		b, err := in.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out, false, in.Close()
		}
		if err != nil {
			return fail(err)
		}
		need := 2 * BatchBytes(b)
		if hashed {
			need += indexBytesPerRow * b.NumRows()
		}
		if err := res.TryGrow(need); err != nil {
			if spill {
				return append(out, b), true, nil
			}
			b.Release()
			return fail(fmt.Errorf("join build side over the memory limit after %d rows (this join does not spill: a nested loop, mark, NOT IN or order-keeping join, or a parallel join's shared build; put the smaller input on the build side or raise memory_limit): %w", rows+b.NumRows(), err))
		}
		rows += b.NumRows()
		out = append(out, b)
	}
}
