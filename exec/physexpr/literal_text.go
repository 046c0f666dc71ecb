package physexpr

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stablerow/stablerow/value"
)

// String is the literal as SQL text that PostgreSQL reads back as the same
// value of the same type (as ruleutils.c's get_const_expr deparses a Const
// for EXPLAIN VERBOSE and pg_get_viewdef), so EXPLAIN shows what a user
// would write: numbers bare (a numeric with its scale, 50.50; a float in
// its shortest round-trip form, 0.1 and 1e+300), true and false, a string
// single-quoted with its quotes doubled ('x”y'), and the types whose text
// alone would read as a string or a number as typed literals: DATE
// '2026-05-01', TIMESTAMP '2026-01-01 00:00:01.5', DOUBLE PRECISION 'NaN',
// BYTEA '\x00ff'. A NULL says its type (NULL::date) unless it has none.
// Every constant EXPLAIN prints goes through here (In's list, LIKE's
// pattern, CASE's arms), so none is printed as a Go value: a day count, a
// "double-quoted" Go string or a decimal's struct.
func (l Lit) String() string {
	if l.Value == nil {
		if l.Type == nil || l.Type.ID() == arrow.NULL {
			return "NULL"
		}
		return "NULL::" + pgTypeName(l.Type)
	}
	s, err := l.scalar()
	if err != nil {
		// Not a value Bind accepts (it fails there with a typed error);
		// EXPLAIN of such a plan is never reached, but String must not
		// panic while an error message is built.
		return fmt.Sprint(l.Value)
	}
	arr, err := scalarArray(s)
	if err != nil {
		return fmt.Sprint(l.Value)
	}
	defer arr.Release()
	text, ok := value.FormatValue(arr, 0)
	if !ok {
		text = arr.ValueStr(0)
	}
	switch t := s.DataType(); t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return quoteLiteral(text)
	case arrow.DATE32:
		return "DATE " + quoteLiteral(text)
	case arrow.TIMESTAMP:
		if t.(*arrow.TimestampType).TimeZone != "" {
			return "TIMESTAMP WITH TIME ZONE " + quoteLiteral(text)
		}
		return "TIMESTAMP " + quoteLiteral(text)
	case arrow.FLOAT64, arrow.FLOAT32:
		// NaN and the infinities have no numeric literal.
		if text == "NaN" || strings.HasSuffix(text, "Infinity") {
			return strings.ToUpper(pgTypeName(t)) + " " + quoteLiteral(text)
		}
		return text
	case arrow.BINARY, arrow.LARGE_BINARY:
		if b, ok := l.Value.([]byte); ok {
			return `BYTEA '\x` + hex.EncodeToString(b) + "'"
		}
		return quoteLiteral(text) + "::bytea"
	}
	return text
}

// quoteLiteral is s as a standard SQL string literal: single quotes, a
// quote inside doubled (quote_literal without the E” form: stablerow,
// like PostgreSQL with standard_conforming_strings, reads backslashes as
// themselves).
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// scalarArray is s as a one-row array, so the literal's text is the one
// FormatValue gives a column of its type (the same text a result prints).
func scalarArray(s scalar.Scalar) (arrow.Array, error) {
	return scalar.MakeArrayFromScalar(s, 1, memory.DefaultAllocator)
}
