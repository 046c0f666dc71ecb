package physexpr

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/value"
)

// CharCast is value.CharCast over an expression: PostgreSQL's length
// coercion of text into character varying(Len) or character(Len) on
// assignment (INSERT, UPDATE), and the character(n) to text conversion,
// applied to every value of E (charmap.go). The fields are
// value.CharCast's (Len, Pad, Char, Trim: see there); they stay flat here
// so a planner sets them as it reads the target type.
//
// Text and varchar are one Arrow string type, so a CharCast keeps the
// type and changes the values only.
type CharCast struct {
	E    Expr
	Len  int
	Pad  bool
	Char bool
	Trim bool
}

func (e CharCast) String() string {
	if e.Trim {
		return fmt.Sprintf("CAST(rtrim(%s) AS %s)", e.E, e.Value().TypeName())
	}
	return fmt.Sprintf("CAST(%s AS %s)", e.E, e.Value().TypeName())
}
func (e CharCast) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e CharCast) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}
func (e CharCast) Bind(s *arrow.Schema) (Bound, error) {
	invalid := e.Len < 0 || ((e.Pad || e.Char) && e.Len == 0)
	return bindCharMap(e, e.E, s, !invalid, charMap{apply: e.Value().Apply})
}

// Value is the conversion of one value this cast applies to each row.
func (e CharCast) Value() value.CharCast {
	return value.CharCast{Len: e.Len, Pad: e.Pad, Char: e.Char, Trim: e.Trim}
}

// NewCharCast is the cast c applied to each value of e.
func NewCharCast(e Expr, c value.CharCast) CharCast {
	return CharCast{E: e, Len: c.Len, Pad: c.Pad, Char: c.Char, Trim: c.Trim}
}
