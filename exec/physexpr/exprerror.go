package physexpr

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/value"
)

// ExprError is a value error raised while evaluating an expression
// ("division by zero", "integer out of range", "cannot take square root
// of a negative number"), named by the innermost expression that raised
// it and, where it could be found, by the input row it raised on. The
// error it holds is unchanged: errors.Is sees through, and the kind and
// the PostgreSQL message stay what they were; this only adds where.
//
// PostgreSQL's own runtime errors name neither, so a user with a 10M-row
// table learns only that some row somewhere divides by zero. Here the
// message reads
//
//	division by zero in l_quantity@4 / l_discount@6 (row: l_quantity = 17, l_discount = 0)
//
// with the expression as EXPLAIN prints it, so the two can be matched.
type ExprError struct {
	// Expr is the raising expression as EXPLAIN shows it.
	Expr string
	// Row lists the input columns Expr reads, as name = value, on the
	// first row of its batch that raises; "" when the row is not known.
	Row string
	Err error
}

func (e *ExprError) Error() string {
	if e.Row == "" {
		return fmt.Sprintf("%v in %s", e.Err, e.Expr)
	}
	return fmt.Sprintf("%v in %s (row: %s)", e.Err, e.Expr, e.Row)
}

func (e *ExprError) Unwrap() error { return e.Err }

// maxRowColumns and maxValueChars keep a named row readable (and a
// server's error message small) however wide the input is.
const (
	maxRowColumns = 8
	maxValueChars = 40
)

// evalNamed runs eval, the evaluation of node over b, and names a value
// error it returns by node, unless a node below already did: the
// innermost expression that raised is the one to look at. Only value
// errors are named (OutOfRange, InvalidArgument): a cancellation, an
// allocation failure or an I/O error is not about an expression.
//
// The row is found after the fact, by evaluating node again over halves
// of b: kernels stay plain loops that return at the first bad value, and
// the extra work (at most about twice the batch) is paid only on the
// error path. A row-wise expression raises on a slice exactly where it
// raises on the whole; if the halves disagree with that, the row is left
// unknown rather than guessed.
func evalNamed(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, node Bound,
	eval func(context.Context, memory.Allocator, arrow.RecordBatch) (compute.Datum, error)) (compute.Datum, error) {
	d, err := eval(ctx, mem, b)
	if err == nil {
		return d, nil
	}
	var named *ExprError
	if errors.As(err, &named) || ctx.Err() != nil {
		return nil, err
	}
	if k := errkind.Of(err); k != errkind.OutOfRange && k != errkind.InvalidArgument {
		return nil, err
	}
	text := node.String()
	return nil, &ExprError{Expr: text, Row: rowOf(ctx, mem, b, text, eval), Err: err}
}

// rowOf bisects b for the first row on which eval raises and formats the
// columns expr reads on it; "" if no single row raises.
func rowOf(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch, expr string,
	eval func(context.Context, memory.Allocator, arrow.RecordBatch) (compute.Datum, error)) string {
	raises := func(lo, hi int64) bool {
		s := b.NewSlice(lo, hi)
		defer s.Release()
		d, err := eval(ctx, mem, s)
		if err != nil {
			return true
		}
		d.Release()
		return false
	}
	lo, hi := int64(0), b.NumRows()
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		switch {
		case raises(lo, mid):
			hi = mid
		case raises(mid, hi):
			lo = mid
		default:
			return ""
		}
	}
	if hi-lo != 1 || !raises(lo, hi) {
		return ""
	}
	return formatRow(b, int(lo), expr)
}

// formatRow writes row i of b as "name = value" for each column expr
// reads. A bound column prints as name@index (Col.String), so the
// columns read are those whose name@index appears in expr's text; all of
// them, up to maxRowColumns, when none does (an opaque node).
func formatRow(b arrow.RecordBatch, i int, expr string) string {
	s := b.Schema()
	var cols []int
	for c := 0; c < s.NumFields(); c++ {
		if strings.Contains(expr, s.Field(c).Name+"@"+strconv.Itoa(c)) {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		for c := 0; c < s.NumFields(); c++ {
			cols = append(cols, c)
		}
	}
	var sb strings.Builder
	for n, c := range cols {
		if n == maxRowColumns {
			fmt.Fprintf(&sb, ", ... %d more", len(cols)-n)
			break
		}
		if n > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(s.Field(c).Name)
		sb.WriteString(" = ")
		sb.WriteString(cellText(b.Column(c), i))
	}
	return sb.String()
}

// cellText is row i of a as PostgreSQL prints it (NULL for a null),
// strings quoted, cut at maxValueChars characters.
func cellText(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	v, ok := value.FormatValue(a, i)
	if !ok {
		v = a.ValueStr(i)
	}
	if r := []rune(v); len(r) > maxValueChars {
		v = string(r[:maxValueChars]) + "..."
	}
	switch a.DataType().ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW, arrow.DATE32, arrow.TIMESTAMP:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	return v
}
