package physexpr

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/value"
)

// character(n) over columns. The engine's form of a character(n) value
// (held without its trailing blanks) and its single-value rules are
// value/bpchar.go's; here are the expressions that show the blanks
// (CharPad) and rpad.

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
		apply: func(v string) (string, error) { return value.PadBlanks(v, n), nil },
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
