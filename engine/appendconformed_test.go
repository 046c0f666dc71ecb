package engine_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
)

// TestAppendConformed: rows whose columns only fit the table's (BIGINT
// keys into INTEGER) append once cast, as COPY FROM casts a file's, and
// take the declared types' rules as INSERT's rows do (char(n) loses its
// trailing blanks, varchar(n) its blanks past n); a key past INTEGER and a
// value too long for char(n) are PostgreSQL's errors, and add no row.
// Answers from PostgreSQL 15 to INSERT INTO ac SELECT * FROM (VALUES
// (1::bigint, 'ab  '::text, 'ab    '::text), (2, 'é', 'xy')) s.
func TestAppendConformed(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem})
	mustExec(t, db, "CREATE TABLE ac (k INTEGER, c CHAR(4), v VARCHAR(4))")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	appendRows := func(ks []int64, cs, vs []string) error {
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues(ks, nil)
		b.Field(1).(*array.StringBuilder).AppendValues(cs, nil)
		b.Field(2).(*array.StringBuilder).AppendValues(vs, nil)
		rec := b.NewRecordBatch()
		defer rec.Release()
		rdr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
		require.NoError(t, err)
		defer rdr.Release()
		_, err = db.AppendConformed(ctx, "ac", rdr)
		return err
	}
	require.NoError(t, appendRows([]int64{1, 2}, []string{"ab  ", "é"}, []string{"ab    ", "xy"}))
	require.Equal(t, [][]any{
		{int32(1), "ab", int64(2), "ab  ", int64(4), int64(4)},
		{int32(2), "é", int64(1), "xy", int64(2), int64(5)},
	}, run(t, db, "SELECT k, c::text, length(c), v, length(v), octet_length(c) FROM ac ORDER BY k", nil))
	require.Equal(t, [][]any{{int64(2)}}, run(t, db, "SELECT count(*) FROM ac a JOIN ac b ON a.c = b.c", nil))

	err := appendRows([]int64{2147483648}, []string{"a"}, []string{"b"})
	require.ErrorIs(t, err, errkind.OutOfRange, "integer out of range")
	err = appendRows([]int64{3}, []string{"abcde"}, []string{"b"})
	require.ErrorIs(t, err, errkind.OutOfRange)
	require.ErrorContains(t, err, "value too long for type character(4)")
	require.Equal(t, [][]any{{int64(2)}}, run(t, db, "SELECT count(*) FROM ac", nil))
	_, err = db.AppendConformed(ctx, "missing", nil)
	require.Error(t, err)
}
