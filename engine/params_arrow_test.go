package engine_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
)

// batchesOf reads a JSON array of rows per batch into record batches of
// schema (the caller releases them).
func batchesOf(t *testing.T, mem memory.Allocator, schema *arrow.Schema, jsons ...string) []arrow.RecordBatch {
	t.Helper()
	var out []arrow.RecordBatch
	for _, js := range jsons {
		b, _, err := array.RecordFromJSON(mem, schema, strings.NewReader(js))
		require.NoError(t, err)
		out = append(out, b)
	}
	return out
}

func release(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// TestParamsFromArrow: the seed query's ids bound as an Arrow list of one
// row, or as a column (in one batch or several, of any integer type, with
// NULLs), take the same rows as PostgreSQL gives for the same bigint[]
// (t holds k = 10 * row id, so the expected k is computed from the id; an
// id no row has, or a NULL id, gives NULLs). Scalars bind from a column of
// one row. Positional binding reaches a :name parameter.
func TestParamsFromArrow(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL);
		INSERT INTO t SELECT g * 10 FROM generate_series(0, 9) AS g(g);
		CREATE INDEX rid ON t USING btree (_rowid)`, nil)
	require.NoError(t, err)
	const seed = `SELECT v.ord, v.rowid, t.k FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
		LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`

	query := func(schema *arrow.Schema, jsons ...string) ([][]any, error) {
		recs := batchesOf(t, mem, schema, jsons...)
		defer release(recs)
		vals, err := engine.ParamsFromArrow(schema, recs)
		if err != nil {
			return nil, err
		}
		res, err := db.Exec(ctx, seed, engine.PositionalParams(vals))
		if err != nil {
			return nil, err
		}
		defer res.Release()
		return exectest.Rows(res.Batches...)
	}
	want := [][]any{{int64(1), int64(7), int64(70)}, {int64(2), int64(3), int64(30)}, {int64(3), int64(-1), nil}, {int64(4), int64(7), int64(70)}}

	list := arrow.NewSchema([]arrow.Field{{Name: "ids", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}}, nil)
	got, err := query(list, `[{"ids": [7, 3, -1, 7]}]`)
	require.NoError(t, err)
	require.Equal(t, want, got)

	col := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	got, err = query(col, `[{"x": 7}, {"x": 3}]`, `[{"x": -1}, {"x": 7}]`)
	require.NoError(t, err)
	require.Equal(t, want, got)

	small := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
	got, err = query(small, `[{"x": 2}, {"x": null}, {"x": 9}]`)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(1), int64(2), int64(20)}, {int64(2), nil, nil}, {int64(3), int64(9), int64(90)}}, got)

	// One row of a column is one value: the list of one where unnested.
	got, err = query(col, `[{"x": 4}]`)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(1), int64(4), int64(40)}}, got)

	u := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Uint64}}, nil)
	_, err = query(u, `[{"x": 3}, {"x": 9223372036854775808}]`)
	require.True(t, errors.Is(err, errkind.OutOfRange), "%v", err)

	// Shapes and types that bind nothing are errors naming the parameter.
	for _, c := range []struct {
		schema *arrow.Schema
		js     []string
		kind   error
		msg    string
	}{
		{list, []string{`[{"ids": [1]}, {"ids": [2]}]`}, errkind.InvalidArgument, "a list column binds one list, got 2 rows"},
		{list, []string{`[{"ids": null}]`}, errkind.InvalidArgument, "NULL"},
		{col, []string{`[]`}, errkind.InvalidArgument, "no value"},
		{arrow.NewSchema([]arrow.Field{{Name: "f", Type: arrow.PrimitiveTypes.Float64}}, nil), []string{`[{"f": 1.5}, {"f": 2}]`}, errkind.Unsupported, "float64"},
	} {
		_, err := query(c.schema, c.js...)
		require.True(t, errors.Is(err, c.kind), "%v", err)
		require.True(t, errors.Is(err, engine.ErrParam), "%v", err)
		require.ErrorContains(t, err, "parameter $1")
		require.ErrorContains(t, err, c.msg)
	}

	// A scalar parameter from a column of one row; several rows are a list
	// the planner refuses for a scalar.
	recs := batchesOf(t, mem, col, `[{"x": 30}]`)
	vals, err := engine.ParamsFromArrow(col, recs)
	release(recs)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(30)}}, run(t, db, "SELECT k FROM t WHERE k = $1", engine.PositionalParams(vals)))
	recs = batchesOf(t, mem, col, `[{"x": 30}, {"x": 40}]`)
	vals, err = engine.ParamsFromArrow(col, recs)
	release(recs)
	require.NoError(t, err)
	_, err = db.Exec(ctx, "SELECT k FROM t WHERE k = $1", engine.PositionalParams(vals))
	require.True(t, errors.Is(err, plan.ErrParamType), "%v", err)
}

// FuzzParamsFromArrow: parameter data of any bound shape and type (a
// column of several batches, a list column, NULLs anywhere) converts to
// values or to an error, never a panic, and a column of integers converts
// to exactly its values. The Arrow data is built from the fuzz input
// rather than IPC-decoded: the converter is the subject, not arrow-go's
// decoder (the server validates what it decodes).
func FuzzParamsFromArrow(f *testing.F) {
	f.Add(uint8(0), []byte{7, 3, 255, 7}, []byte{1})
	f.Add(uint8(1), []byte{1, 2, 3}, []byte{0, 2})
	f.Add(uint8(2), []byte{200, 1}, []byte{})
	f.Add(uint8(3), []byte("abc"), []byte{1, 1})
	f.Add(uint8(4), []byte{1, 0, 1}, []byte{})
	f.Add(uint8(5), []byte{1, 2, 3, 4}, []byte{0})
	f.Add(uint8(6), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, kind uint8, data, cuts []byte) {
		if len(data) > 4096 {
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Uint64,
			arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean, arrow.ListOf(arrow.PrimitiveTypes.Int32),
			arrow.PrimitiveTypes.Float64, arrow.LargeListOf(arrow.BinaryTypes.String)}
		typ := types[int(kind)%len(types)]
		schema := arrow.NewSchema([]arrow.Field{{Name: "p", Type: typ, Nullable: true}}, nil)
		// The bytes are the rows; a byte 255 is a NULL; cuts split the
		// rows into batches (and the lists into values).
		var recs []arrow.RecordBatch
		defer func() { release(recs) }()
		start := 0
		for k := 0; start < len(data) || k == 0; k++ {
			end := len(data)
			if k < len(cuts) {
				end = min(len(data), start+int(cuts[k]))
			}
			b := array.NewRecordBuilder(mem, schema)
			for _, x := range data[start:end] {
				appendFuzz(b.Field(0), x)
			}
			recs = append(recs, b.NewRecordBatch())
			b.Release()
			start = end
			if k > 16 {
				break
			}
		}
		vals, err := engine.ParamsFromArrow(schema, recs)
		if err != nil {
			return
		}
		if typ.ID() == arrow.INT64 && len(data) > 1 && !bytes.Contains(data, []byte{255}) {
			got := vals[0].([]int64)
			for i, x := range data[:len(got)] {
				if got[i] != int64(x) {
					t.Fatalf("value %d: %d, want %d", i, got[i], x)
				}
			}
		}
	})
}

// appendFuzz appends a row made from one byte (255: NULL).
func appendFuzz(b array.Builder, x byte) {
	if x == 255 {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.Int64Builder:
		b.Append(int64(x))
	case *array.Int16Builder:
		b.Append(int16(x) - 100)
	case *array.Uint64Builder:
		b.Append(uint64(x) << 56)
	case *array.StringBuilder:
		b.Append(string(rune('a' + x%26)))
	case *array.BooleanBuilder:
		b.Append(x%2 == 1)
	case *array.Float64Builder:
		b.Append(float64(x) / 3)
	case *array.ListBuilder:
		b.Append(true)
		for i := range x % 4 {
			b.ValueBuilder().(*array.Int32Builder).Append(int32(i))
		}
	case *array.LargeListBuilder:
		b.Append(true)
		for i := range x % 3 {
			b.ValueBuilder().(*array.StringBuilder).Append(string(rune('p' + i)))
		}
	}
}
