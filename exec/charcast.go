package exec

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// CharCast is PostgreSQL's length coercion of text into character
// varying(Len) or character(Len) on assignment (INSERT, UPDATE), and the
// character(n) to text conversion. Lengths count characters, not bytes.
//
//   - Trim: the trailing blanks are removed first (rtrim): a value read
//     padded (a table written before bpchar.go's representation).
//   - Len > 0: a value longer than Len characters is "value too long for
//     type character varying(Len)" (or character(Len) with Pad or Char),
//     unless every character past Len is a blank: then it is cut to Len.
//   - Char: the target is character(Len) in the engine's form: the value
//     loses its trailing blanks (bpchar.go).
//   - Pad: the value is blank-padded to Len characters, character(Len) as
//     PostgreSQL shows it (the SQL front end's constants, which Substrait
//     carries as fixedchar<Len> of Len characters).
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

func (e CharCast) typeName() string {
	switch {
	case e.Pad || e.Char:
		return fmt.Sprintf("character(%d)", e.Len)
	case e.Len > 0:
		return fmt.Sprintf("character varying(%d)", e.Len)
	}
	return "text"
}

func (e CharCast) String() string {
	if e.Trim {
		return fmt.Sprintf("CAST(rtrim(%s) AS %s)", e.E, e.typeName())
	}
	return fmt.Sprintf("CAST(%s AS %s)", e.E, e.typeName())
}
func (e CharCast) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e CharCast) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}
func (e CharCast) Bind(s *arrow.Schema) (Bound, error) {
	invalid := e.Len < 0 || ((e.Pad || e.Char) && e.Len == 0)
	return bindCharMap(e, e.E, s, !invalid, charMap{apply: e.Apply})
}

// Apply converts one value (the SQL front end folds literals with it).
func (e CharCast) Apply(s string) (string, error) {
	if e.Trim {
		s = strings.TrimRight(s, " ")
	}
	if e.Len == 0 {
		return s, nil
	}
	if e.Char {
		s = TrimBlanks(s)
	}
	n := utf8.RuneCountInString(s)
	if n > e.Len {
		cut := 0
		for i := 0; i < e.Len; i++ {
			_, w := utf8.DecodeRuneInString(s[cut:])
			cut += w
		}
		if strings.Trim(s[cut:], " ") != "" {
			return "", fmt.Errorf("%w: value too long for type %s", ErrOutOfRange, e.typeName())
		}
		s, n = s[:cut], e.Len
	}
	if e.Pad && n < e.Len {
		s += strings.Repeat(" ", e.Len-n)
	}
	return s, nil
}

// Truncate is the explicit cast to varchar(n) or char(n): a longer value
// is cut to n characters without an error (PostgreSQL's explicit cast),
// then char(n) pads.
func (e CharCast) Truncate(s string) string {
	if e.Trim {
		s = strings.TrimRight(s, " ")
	}
	if e.Len == 0 {
		return s
	}
	n, cut := 0, 0
	for cut < len(s) && n < e.Len {
		_, w := utf8.DecodeRuneInString(s[cut:])
		cut += w
		n++
	}
	s = s[:cut]
	if e.Char {
		return TrimBlanks(s)
	}
	if e.Pad && n < e.Len {
		s += strings.Repeat(" ", e.Len-n)
	}
	return s
}
