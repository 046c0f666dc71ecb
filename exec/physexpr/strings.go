package physexpr

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// The string functions of PostgreSQL over UTF-8 text. Positions and
// lengths count characters, never bytes (length('héllo') is 5). Case
// mapping is Unicode's simple per-character mapping, which is what
// PostgreSQL does with a UTF-8 LC_CTYPE (lower('É') is 'é', upper('ß')
// stays 'ß'); under LC_CTYPE=C PostgreSQL folds ASCII only.

var (
	tString  = arrow.BinaryTypes.String
	tInt64   = arrow.PrimitiveTypes.Int64
	tFloat64 = arrow.PrimitiveTypes.Float64
)

func init() {
	register("lower", strMap(strings.ToLower))
	register("upper", strMap(strings.ToUpper))
	register("reverse", strMap(reverseChars))
	// functions_string's predicates (DuckDB writes LIKE '%x%' as contains
	// and LIKE 'x%' as starts_with; PostgreSQL has starts_with): bytewise,
	// as the engine compares text (C collation).
	register("contains", strPred(strings.Contains))
	register("starts_with", strPred(strings.HasPrefix))
	register("ends_with", strPred(strings.HasSuffix))
	register("char_length", func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if err := want(ts, isString); err != nil {
			return nil, nil, err
		}
		return tInt64, fixedRows(tInt64, func(a []arg, i int) (int64, error) {
			return int64(utf8.RuneCountInString(a[0].s(i))), nil
		}), nil
	})
	register("strpos", func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if err := want(ts, isString, isString); err != nil {
			return nil, nil, err
		}
		return tInt64, fixedRows(tInt64, func(a []arg, i int) (int64, error) {
			return strpos(a[0].s(i), a[1].s(i)), nil
		}), nil
	})
	register("substr", func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if want(ts, isString, isIntT) != nil {
			if err := want(ts, isString, isIntT, isIntT); err != nil {
				return nil, nil, err
			}
		}
		return tString, substrKernel, nil
	})
	for _, side := range []string{"btrim", "ltrim", "rtrim"} {
		register(side, trimDef(side))
	}
	register("replace", func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if err := want(ts, isString, isString, isString); err != nil {
			return nil, nil, err
		}
		return tString, stringRows(func(a []arg, i int) (string, error) {
			return replace(a[0].s(i), a[1].s(i), a[2].s(i))
		}), nil
	})
	// textcat is ||: strict (NULL || 'x' is NULL), unlike concat().
	register("textcat", func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if len(ts) < 2 {
			return nil, nil, fmt.Errorf("%d arguments, want 2 or more", len(ts))
		}
		for i, t := range ts {
			if !isString(t) {
				return nil, nil, fmt.Errorf("argument %d has type %s", i+1, t)
			}
		}
		return tString, stringRows(func(a []arg, i int) (string, error) {
			n := 0
			for _, x := range a {
				n += len(x.s(i))
			}
			if n > math.MaxInt32 {
				return "", fmt.Errorf("%w: string too long (%d bytes)", ErrOutOfRange, n)
			}
			var b strings.Builder
			b.Grow(n)
			for _, x := range a {
				b.WriteString(x.s(i))
			}
			return b.String(), nil
		}), nil
	})
}

// strPred is a (string, string) -> boolean function.
func strPred(f func(s, sub string) bool) funcDef {
	return func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if err := want(ts, isString, isString); err != nil {
			return nil, nil, err
		}
		return arrow.FixedWidthTypes.Boolean, boolRows(func(a []arg, i int) (bool, error) { return f(a[0].s(i), a[1].s(i)), nil }), nil
	}
}

// strMap is a string -> string function of one argument.
func strMap(f func(string) string) funcDef {
	return func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if err := want(ts, isString); err != nil {
			return nil, nil, err
		}
		return tString, stringRows(func(a []arg, i int) (string, error) { return f(a[0].s(i)), nil }), nil
	}
}

// reverseChars is PostgreSQL's reverse(s): the characters (code points)
// in reverse order, never the bytes, so a multi-byte character stays whole.
func reverseChars(s string) string {
	rs := []rune(s)
	slices.Reverse(rs)
	return string(rs)
}

// strpos is PostgreSQL's strpos(s, sub) (and position(sub IN s)): the
// character position of the first occurrence, 1-based; 0 when absent; 1
// for the empty string.
func strpos(s, sub string) int64 {
	at := strings.Index(s, sub)
	if at < 0 {
		return 0
	}
	return int64(utf8.RuneCountInString(s[:at])) + 1
}

// substr is PostgreSQL's text_substring: characters from position start
// (1-based; positions before the first character count but yield
// nothing), count of them when hasCount. substr('hello', 0, 2) is 'h',
// substr('hello', -1, 3) is 'h'; a negative count is an error.
func substr(s string, start, count int64, hasCount bool) (string, error) {
	first := max(start, 1) // first character taken
	end := int64(math.MaxInt64)
	if hasCount {
		if count < 0 {
			return "", fmt.Errorf("%w: negative substring length not allowed", ErrSubstring)
		}
		if start <= math.MaxInt64-count { // else the end is past any string
			end = start + count // first character not taken
		}
		if end <= first {
			return "", nil
		}
	}
	pos := int64(1)
	from := len(s)
	for bi := range s {
		if pos == first {
			from = bi
			break
		}
		pos++
	}
	if from == len(s) || end == math.MaxInt64 {
		return s[from:], nil
	}
	to := len(s)
	for bi := range s[from:] {
		if pos == end {
			to = from + bi
			break
		}
		pos++
	}
	return s[from:to], nil
}

// trimDef is btrim/ltrim/rtrim(s [, chars]): remove the longest prefix
// and/or suffix made only of characters in chars (default ' ').
func trimDef(side string) funcDef {
	return func(ts []arrow.DataType) (arrow.DataType, kernel, error) {
		if want(ts, isString) != nil {
			if err := want(ts, isString, isString); err != nil {
				return nil, nil, err
			}
		}
		return tString, stringRows(func(a []arg, i int) (string, error) {
			chars := " "
			if len(a) == 2 {
				chars = a[1].s(i)
			}
			return trim(side, a[0].s(i), chars), nil
		}), nil
	}
}

func trim(side, s, chars string) string {
	switch side {
	case "ltrim":
		return strings.TrimLeft(s, chars)
	case "rtrim":
		return strings.TrimRight(s, chars)
	}
	return strings.Trim(s, chars)
}

// replace is PostgreSQL's replace(s, from, to): every non-overlapping
// occurrence, left to right; an empty from changes nothing.
func replace(s, from, to string) (string, error) {
	if from == "" {
		return s, nil
	}
	if k := strings.Count(s, from); k > 0 && int64(len(s))+int64(k)*(int64(len(to))-int64(len(from))) > math.MaxInt32 {
		return "", fmt.Errorf("%w: string too long", ErrOutOfRange)
	}
	return strings.ReplaceAll(s, from, to), nil
}
