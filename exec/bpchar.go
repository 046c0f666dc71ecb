package exec

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// character(n) (PostgreSQL's bpchar) in the engine.
//
// A character(n) value is held without its trailing blanks: 'ab' of
// char(4) is the string "ab", never "ab  ". PostgreSQL's bpchar rules then
// mostly become text rules at no cost per row:
//
//   - bpchar comparison, hashing, GROUP BY, DISTINCT, join and index keys
//     ignore trailing blanks: the stripped strings compare, hash and sort
//     exactly as bpchar does (bpcharcmp compares the values without their
//     trailing blanks, bytewise under the C collation);
//   - bpchar to text or varchar (rtrim) is no conversion at all, so a
//     comparison of a char(n) column with a string runs the plain string
//     kernels on the column as stored;
//   - a varchar or text value becomes bpchar by losing its trailing blanks
//     (TrimBlanks), where PostgreSQL compares as bpchar (char = varchar).
//
// Only where PostgreSQL shows the blanks are they put back, to the
// declared length (PadBlanks, CharPad): a query's result column of type
// character(n), LIKE on a bpchar operand (bpcharlike sees 'ab  '),
// octet_length, COPY TO and Parquet/CSV export (the result column). The
// planner owns those points (plan/bpchar.go); the SQL front end owns
// PostgreSQL's choice of bpchar or text comparison (sql/bpchar.go).
// Substrait plans keep the standard meaning of fixedchar<n> (its literals
// are n characters long): the planner strips them on the way in.
//
// Tables store the engine's form. A table written before this
// representation recorded its char(n) columns as "char(n)" and holds
// padded values; the engine strips them when it reads such a column
// (engine/catalog.go), so old tables answer alike.

// TrimBlanks is bpchar's value without its trailing blanks (bpchar to
// text, PostgreSQL's rtrim): the engine's form of a character(n) value.
func TrimBlanks(s string) string { return strings.TrimRight(s, " ") }

// PadBlanks is s blank-padded to n characters (characters, not bytes),
// PostgreSQL's shown form of a character(n) value. A longer s is kept.
func PadBlanks(s string, n int) string {
	c := utf8.RuneCountInString(s)
	if c >= n {
		return s
	}
	return s + strings.Repeat(" ", n-c)
}

// CharOctetLength is octet_length of character(n) value s held in the
// engine's form: its bytes plus the blanks PadBlanks would add.
func CharOctetLength(s string, n int) int64 {
	return int64(len(s) + max(n-utf8.RuneCountInString(s), 0))
}

// CharPad shows a character(Len) column as PostgreSQL does: each value
// blank-padded to Len characters. The planner puts it where the padding
// is visible (a result column, LIKE's left operand).
type CharPad struct {
	E   Expr
	Len int
}

func (e CharPad) String() string                                   { return fmt.Sprintf("pad(%s, %d)", e.E, e.Len) }
func (e CharPad) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e CharPad) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}
func (e CharPad) Bind(s *arrow.Schema) (Bound, error) {
	n := e.Len
	return bindCharMap(e, e.E, s, n >= 1, charMap{
		apply: func(v string) (string, error) { return PadBlanks(v, n), nil },
		// The padded values' bytes, sized once: each value's bytes or n.
		dataSize: func(in *array.String) int {
			size := 0
			for i := 0; i < in.Len(); i++ {
				size += max(len(in.Value(i)), n)
			}
			return size
		},
	})
}

func init() {
	// octet_length(text): the bytes of the value (of a bpchar, the
	// planner pads first: PostgreSQL counts the blanks).
	register("octet_length", func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if err := want(ts, isString); err != nil {
			return nil, nil, err
		}
		return tInt64, fixedRows(tInt64, func(a []arg, i int) (int64, error) {
			return int64(len(a[0].s(i))), nil
		}), nil
	})
	// rpad(text, integer, text): PostgreSQL's: cut to the length in
	// characters, or filled on the right with the fill repeated; an
	// empty fill leaves the value as it is, a length <= 0 gives ''.
	register("rpad", func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if err := want(ts, isString, isIntT, isString); err != nil {
			return nil, nil, err
		}
		return tString, stringRows(func(a []arg, i int) (string, error) {
			return rpad(a[0].s(i), a[1].i(i), a[2].s(i))
		}), nil
	})
}

// rpad is PostgreSQL's rpad(s, n, fill).
func rpad(s string, n int64, fill string) (string, error) {
	if n <= 0 {
		return "", nil
	}
	if n > math.MaxInt32/4 {
		return "", fmt.Errorf("%w: requested length too large", ErrOutOfRange)
	}
	c := int64(0)
	for at := range s {
		if c == n {
			return s[:at], nil
		}
		c++
	}
	if fill == "" || c == n {
		return s, nil
	}
	var b strings.Builder
	b.WriteString(s)
	for c < n {
		for _, r := range fill {
			if c == n {
				break
			}
			b.WriteRune(r)
			c++
		}
	}
	return b.String(), nil
}
