package physexpr

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestCharMapKernel: CharPad and CharCast run through the one kernel
// (charmap.go) over an array with a NULL, a constant and a NULL constant;
// an error part way through an array frees what was built; the bind
// checks are each expression's own. Answers from PostgreSQL 15:
// rpad(v, 4) and an INSERT into a varchar(3) column of
// ('ab'),(NULL),('abc  '),('äöü') give 'ab  ', NULL, 'abc ', 'äöü ' and
// 'ab', NULL, 'abc', 'äöü'; adding ('abcd') fails "value too long for
// type character varying(3)".
func TestCharMapKernel(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	values := func(a arrow.Array) []any {
		s := a.(*array.String)
		out := make([]any, s.Len())
		for i := range out {
			if s.IsValid(i) {
				out[i] = s.Value(i)
			}
		}
		return out
	}
	v := Col{Index: 0, Name: "v"}
	b := stringBatch(mem, []string{"ab", "", "abc  ", "äöü"}, []bool{true, false, true, true})
	defer b.Release()

	out, err := CharPad{E: v, Len: 4}.Evaluate(ctx, mem, b)
	require.NoError(t, err)
	require.Equal(t, []any{"ab  ", nil, "abc  ", "äöü "}, values(out), "pad keeps a longer value")
	out.Release()
	out, err = CharCast{E: v, Len: 3}.Evaluate(ctx, mem, b)
	require.NoError(t, err)
	require.Equal(t, []any{"ab", nil, "abc", "äöü"}, values(out))
	out.Release()

	// Constants: one value each, a NULL stays NULL.
	for _, c := range []struct {
		e    Expr
		want any
	}{
		{CharPad{E: Lit{Value: "ab"}, Len: 4}, "ab  "},
		{CharCast{E: Lit{Value: "abc  "}, Len: 3}, "abc"},
		{CharPad{E: Lit{Value: nil, Type: arrow.BinaryTypes.String}, Len: 4}, nil},
		{CharCast{E: Lit{Value: nil, Type: arrow.BinaryTypes.String}, Len: 3}, nil},
	} {
		out, err := c.e.Evaluate(ctx, mem, b)
		require.NoError(t, err, c.e)
		require.Equal(t, c.want, values(out)[0], c.e)
		out.Release()
	}

	// An error part way through: nothing leaks (AssertSize above).
	bad := stringBatch(mem, []string{"ab", "", "abcd"}, []bool{true, false, true})
	defer bad.Release()
	_, err = CharCast{E: v, Len: 3}.Evaluate(ctx, mem, bad)
	require.ErrorIs(t, err, ErrOutOfRange)
	require.ErrorContains(t, err, "value too long for type character varying(3)")

	// Each expression's bind checks.
	_, err = CharPad{E: v, Len: 0}.Bind(b.Schema())
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, err = CharCast{E: v, Len: 0, Char: true}.Bind(b.Schema())
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, err = CharCast{E: v, Len: -1}.Bind(b.Schema())
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, err = CharCast{E: v}.Bind(b.Schema())
	require.NoError(t, err, "text: no length")
	_, err = CharPad{E: Lit{Value: int64(1)}, Len: 4}.Bind(b.Schema())
	require.ErrorIs(t, err, ErrSchema)
	cast := CharCast{E: v, Len: 3}
	bound, err := cast.Bind(b.Schema())
	require.NoError(t, err)
	require.Equal(t, cast.String(), bound.String(), "the bound names its expression")
	require.Equal(t, arrow.BinaryTypes.String, bound.Type())
}

// stringBatch is a batch of one nullable string column, v, of vals (valid:
// which are not NULL; nil: all).
func stringBatch(mem memory.Allocator, vals []string, valid []bool) arrow.RecordBatch {
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues(vals, valid)
	col := sb.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
}
