package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table"
)

// Expected answers in this file are PostgreSQL 15's to the same
// statements (COPY to a server-side file for the CSV ones).

// TestCharCopyRoundTrip: char(n) goes out blank-padded to n (COPY TO CSV
// writes "ab  ", Parquet holds the same text) and comes back in the
// engine's form: the copied rows group, join and compare with the ones
// INSERT stored, and a value too long for char(n) or varchar(n) is
// PostgreSQL's error.
func TestCharCopyRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: 2})
	mustExec(t, db, `CREATE TABLE cpy (c CHAR(4), v VARCHAR(4), k BIGINT);
		INSERT INTO cpy VALUES ('ab', 'ab ', 1), ('é', 'x', 2), (NULL, NULL, 3)`)
	csvPath := filepath.Join(dir, "cpy.csv")
	mustExec(t, db, fmt.Sprintf("COPY cpy TO '%s' WITH (FORMAT csv)", csvPath))
	raw, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	require.Equal(t, "ab  ,ab ,1\né   ,x,2\n,,3\n", string(raw))

	pqPath := filepath.Join(dir, "cpy.parquet")
	mustExec(t, db, fmt.Sprintf("COPY cpy TO '%s'", pqPath))
	require.Equal(t, [][]any{{"[ab  ]", int64(1)}, {"[é   ]", int64(2)}, {nil, int64(3)}},
		run(t, db, fmt.Sprintf("SELECT '[' || c || ']', k FROM read_parquet('%s') AS f(c, v, k) ORDER BY k", pqPath), nil))

	for _, src := range []string{fmt.Sprintf("'%s' WITH (FORMAT csv)", csvPath), fmt.Sprintf("'%s'", pqPath)} {
		mustExec(t, db, "DROP TABLE IF EXISTS back; CREATE TABLE back (c CHAR(4), v VARCHAR(4), k BIGINT); COPY back FROM "+src)
		require.Equal(t, [][]any{{"ab  ", int32(4), "[ab ]", int64(2)}, {"é   ", int32(5), "[x]", int64(2)}, {nil, nil, nil, int64(2)}},
			run(t, db, "SELECT c, octet_length(c), '[' || min(v) || ']', count(*) FROM (SELECT * FROM cpy UNION ALL SELECT * FROM back) u GROUP BY c ORDER BY c", nil), src)
		require.Equal(t, [][]any{{int64(1), int64(1)}, {int64(2), int64(2)}},
			run(t, db, "SELECT a.k, b.k FROM cpy a JOIN back b ON a.c = b.c ORDER BY 1", nil), src)
		require.Equal(t, [][]any{{int64(1)}}, run(t, db, "SELECT k FROM back WHERE c = 'ab' AND c = v", nil), src)
	}

	for file, want := range map[string]string{
		"long.csv":  "value too long for type character(4)",
		"longv.csv": "value too long for type character varying(4)",
	} {
		p := filepath.Join(dir, file)
		line := "abcde,x,1\n"
		if file == "longv.csv" {
			line = "x,abcde,1\n"
		}
		require.NoError(t, os.WriteFile(p, []byte(line), 0o644))
		_, err := db.Exec(context.Background(), fmt.Sprintf("COPY back FROM '%s' WITH (FORMAT csv)", p), nil)
		require.ErrorContains(t, err, want)
		require.ErrorIs(t, err, errkind.OutOfRange)
	}
	// Blanks past n are cut, as INSERT cuts them.
	p := filepath.Join(dir, "blank.csv")
	require.NoError(t, os.WriteFile(p, []byte("ab     ,xy   ,7\n"), 0o644))
	mustExec(t, db, fmt.Sprintf("COPY back FROM '%s' WITH (FORMAT csv)", p))
	require.Equal(t, [][]any{{"[ab]", int32(4), "[xy  ]"}}, run(t, db, "SELECT '[' || c || ']', octet_length(c), '[' || v || ']' FROM back WHERE k = 7", nil))
}

// TestCharIndexKeys: an index on a char(n) column holds the values as
// they compare (without their trailing blanks), so c = 'x  ' and
// c IN (...) are index scans of the column itself, answering as
// PostgreSQL does.
func TestCharIndexKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	db := engine.OpenMemory(engine.Options{Mem: mem})
	mustExec(t, db, `CREATE TABLE ix (c CHAR(4), k BIGINT);
		INSERT INTO ix VALUES ('ab', 1), ('ab ', 2), ('x  ', 3), (' y', 4), (NULL, 5);
		CREATE INDEX ix_c ON ix (c)`)
	for q, want := range map[string][][]any{
		"SELECT k FROM ix WHERE c IN ('ab', 'x  ') ORDER BY k": {{int64(1)}, {int64(2)}, {int64(3)}},
		"SELECT k FROM ix WHERE c = ' y  ' ORDER BY k":         {{int64(4)}},
		"SELECT c, k FROM ix WHERE c = 'x' ORDER BY k":         {{"x   ", int64(3)}},
	} {
		plan := fmt.Sprint(run(t, db, "EXPLAIN "+q, nil))
		require.Contains(t, plan, "IndexScanExec: btree ix_c(c)", q)
		require.Equal(t, want, run(t, db, q, nil), q)
	}
}

// TestCharPaddedTable: a table written before char(n) was stored
// without its trailing blanks declares "char(n)" and holds padded
// values; it reads as a new one does (compare, group, LIKE, lengths,
// padded output), and index probes leave it to the scan.
func TestCharPaddedTable(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: mem})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: arrow.NewMetadata([]string{table.SQLTypeKey}, []string{"char(4)"})},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: arrow.NewMetadata([]string{table.SQLTypeKey}, []string{"varchar(4)"})},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	tb, err := db.CreateTable(ctx, "old", schema)
	require.NoError(t, err)
	b := array.NewRecordBuilder(mem, tb.UserSchema())
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"ab  ", "ab  ", "x   ", ""}, []bool{true, true, true, false})
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"ab", "ab ", "x", ""}, []bool{true, true, true, false})
	b.Field(2).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, 4}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	rdr, err := array.NewRecordReader(tb.UserSchema(), []arrow.RecordBatch{rec})
	require.NoError(t, err)
	defer rdr.Release()
	_, err = tb.Append(ctx, rdr, mem)
	require.NoError(t, err)
	mustExec(t, db, "CREATE INDEX old_c ON old (c); INSERT INTO old VALUES ('ab', 'q', 5)")

	require.Equal(t, [][]any{{int64(3)}}, run(t, db, "SELECT count(*) FROM old WHERE c = v", nil))
	require.Equal(t, [][]any{{int64(1)}, {int64(2)}, {int64(5)}}, run(t, db, "SELECT k FROM old WHERE c = 'ab' ORDER BY k", nil))
	require.Equal(t, [][]any{{int64(1)}, {int64(2)}, {int64(5)}}, run(t, db, "SELECT k FROM old WHERE c IN ('ab  ', 'zz') ORDER BY k", nil))
	require.Equal(t, [][]any{{"ab  ", int64(3), int32(4), int32(2)}, {"x   ", int64(1), int32(4), int32(1)}, {nil, int64(1), nil, nil}},
		run(t, db, "SELECT c, count(*), octet_length(c), length(c) FROM old GROUP BY c ORDER BY c", nil))
	require.Equal(t, [][]any{{int64(0)}}, run(t, db, "SELECT count(*) FROM old WHERE c LIKE 'ab'", nil))
	require.Equal(t, [][]any{{"ab|"}}, run(t, db, "SELECT DISTINCT c || '|' FROM old WHERE k < 3", nil))
	plan := fmt.Sprint(run(t, db, "EXPLAIN SELECT k FROM old WHERE c IN ('ab', 'x')", nil))
	require.False(t, strings.Contains(plan, "IndexScanExec"), plan)
}

// TestCharAppend: rows appended through the library API take the
// declared types' rules as INSERT's rows do: char(n) loses its trailing
// blanks (so 'ab  ' groups and joins with an inserted 'ab'), a value too
// long for char(n) or varchar(n) is PostgreSQL's error.
func TestCharAppend(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	db := engine.OpenMemory(engine.Options{Mem: mem})
	mustExec(t, db, "CREATE TABLE ap (c CHAR(4), v VARCHAR(4), k BIGINT); INSERT INTO ap VALUES ('ab', 'ab', 1)")
	appendRows := func(c, v string) error {
		return appendBatch(t, mem, db.Append, "ap", []arrow.Array{
			oneString(mem, c), oneString(mem, v), oneInt64(mem, 2),
		})
	}
	require.NoError(t, appendRows("ab  ", "ab    "))
	require.Equal(t, [][]any{{"ab  ", int64(2), int64(2)}}, run(t, db, "SELECT c, count(*), count(DISTINCT v) FROM ap GROUP BY c", nil))
	require.Equal(t, [][]any{{int64(4)}}, run(t, db, "SELECT count(*) FROM ap a JOIN ap b ON a.c = b.c", nil))
	err := appendRows("abcde", "x")
	require.ErrorContains(t, err, "value too long for type character(4)")
	require.ErrorIs(t, err, errkind.OutOfRange)
	require.ErrorContains(t, appendRows("x", "abcde"), "value too long for type character varying(4)")
	require.Equal(t, [][]any{{int64(2)}}, run(t, db, "SELECT count(*) FROM ap", nil))
}

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
	db := engine.OpenMemory(engine.Options{Mem: mem})
	mustExec(t, db, "CREATE TABLE ac (k INTEGER, c CHAR(4), v VARCHAR(4))")
	appendRows := func(k int64, c, v string) error {
		return appendBatch(t, mem, db.AppendConformed, "ac", []arrow.Array{
			oneInt64(mem, k), oneString(mem, c), oneString(mem, v),
		})
	}
	require.NoError(t, appendRows(1, "ab  ", "ab    "))
	require.NoError(t, appendRows(2, "é", "xy"))
	require.Equal(t, [][]any{
		{int32(1), "ab", int32(2), "ab  ", int32(4), int32(4)},
		{int32(2), "é", int32(1), "xy", int32(2), int32(5)},
	}, run(t, db, "SELECT k, c::text, length(c), v, length(v), octet_length(c) FROM ac ORDER BY k", nil))
	require.Equal(t, [][]any{{int64(2)}}, run(t, db, "SELECT count(*) FROM ac a JOIN ac b ON a.c = b.c", nil))

	err := appendRows(2147483648, "a", "b")
	require.ErrorIs(t, err, errkind.OutOfRange, "integer out of range")
	err = appendRows(3, "abcde", "b")
	require.ErrorIs(t, err, errkind.OutOfRange)
	require.ErrorContains(t, err, "value too long for type character(4)")
	require.Equal(t, [][]any{{int64(2)}}, run(t, db, "SELECT count(*) FROM ac", nil))
	_, err = db.AppendConformed(context.Background(), "missing", nil)
	require.Error(t, err)
}

// appendBatch appends one batch of cols (named c0, c1, ...; released
// here) to table name through appendTo (DB.Append, DB.AppendConformed).
func appendBatch(t *testing.T, mem memory.Allocator, appendTo func(context.Context, string, array.RecordReader) (*table.Table, error), name string, cols []arrow.Array) error {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: c.DataType(), Nullable: true}
		defer c.Release()
	}
	schema := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(schema, cols, int64(cols[0].Len()))
	defer rec.Release()
	rdr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	require.NoError(t, err)
	defer rdr.Release()
	_, err = appendTo(context.Background(), name, rdr)
	return err
}

func oneString(mem memory.Allocator, s string) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Append(s)
	return b.NewArray()
}

func oneInt64(mem memory.Allocator, v int64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Append(v)
	return b.NewArray()
}
