package physexpr

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestBpcharShown: character(n) shown padded to n characters (CharPad)
// and rpad as PostgreSQL's (answers from PostgreSQL 15). The single-value
// forms are value's TestBpcharForms.
func TestBpcharShown(t *testing.T) {
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
