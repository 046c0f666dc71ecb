package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestBpcharForms: character(n) held without its trailing blanks
// (TrimBlanks, CharCast's Char), shown padded to n characters (PadBlanks,
// CharPad), octet_length with the padding; rpad as PostgreSQL's (answers
// from PostgreSQL 15).
func TestBpcharForms(t *testing.T) {
	require.Equal(t, "ab", TrimBlanks("ab  "))
	require.Equal(t, " a", TrimBlanks(" a "))
	require.Equal(t, "é   ", PadBlanks("é", 4))
	require.Equal(t, "abcd", PadBlanks("abcd", 2))
	require.EqualValues(t, 5, CharOctetLength("é", 4))
	require.EqualValues(t, 4, CharOctetLength("", 4))

	got, err := CharCast{Len: 4, Char: true}.Apply("ab      ")
	require.NoError(t, err)
	require.Equal(t, "ab", got)
	_, err = CharCast{Len: 4, Char: true}.Apply("abcde")
	require.ErrorIs(t, err, ErrOutOfRange)
	require.ErrorContains(t, err, "character(4)")
	require.Equal(t, "ab", CharCast{Len: 3, Char: true}.Truncate("ab cd"))

	for _, c := range []struct {
		s    string
		n    int64
		fill string
		want string
	}{
		{"abc", 2, "x", "ab"}, {"ab", 5, "xy", "abxyx"}, {"ab", 5, "", "ab"}, {"ab", -1, "x", ""}, {"é", 3, " ", "é  "},
	} {
		got, err := rpad(c.s, c.n, c.fill)
		require.NoError(t, err)
		require.Equal(t, c.want, got, "rpad(%q, %d, %q)", c.s, c.n, c.fill)
	}

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"ab", "", "日本"}, nil)
	sb.AppendNull()
	col := sb.NewArray()
	sb.Release()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	defer b.Release()
	out, err := CharPad{E: Col{Index: 0, Name: "c"}, Len: 4}.Evaluate(context.Background(), mem, b)
	require.NoError(t, err)
	defer out.Release()
	s := out.(*array.String)
	require.Equal(t, []string{"ab  ", "    ", "日本  "}, []string{s.Value(0), s.Value(1), s.Value(2)})
	require.True(t, s.IsNull(3))
}
