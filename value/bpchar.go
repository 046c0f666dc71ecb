package value

import (
	"fmt"
	"strings"
	"unicode/utf8"
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
// declared length (PadBlanks, physexpr.CharPad): a query's result column of type
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
// physexpr.CharCast applies it to a column. Text and varchar are one Arrow
// string type, so the cast keeps the type and changes the values only.
type CharCast struct {
	Len  int
	Pad  bool
	Char bool
	Trim bool
}

// TypeName is the target type as PostgreSQL names it in its errors.
func (e CharCast) TypeName() string {
	switch {
	case e.Pad || e.Char:
		return fmt.Sprintf("character(%d)", e.Len)
	case e.Len > 0:
		return fmt.Sprintf("character varying(%d)", e.Len)
	}
	return "text"
}

// Apply converts one value (physexpr runs it per row; the SQL front end
// folds literals with it).
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
			return "", fmt.Errorf("%w: value too long for type %s", ErrOutOfRange, e.TypeName())
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
