package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/sql"
)

// TestParamSchema: a statement's parameters are typed as the planner
// infers them from their use (the column they meet, a cast, UNNEST's
// list), named as written, for SQL text and for the Substrait plan the
// text lowers to alike.
func TestParamSchema(t *testing.T) {
	ctx := context.Background()
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, i INTEGER, s TEXT, v VARCHAR(5), f REAL, b BOOLEAN, d DATE, ts TIMESTAMP, n NUMERIC(10,2))`, nil)
	require.NoError(t, err)
	type f = arrow.Field
	i64, str := arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String
	for _, c := range []struct {
		sql  string
		want []f
	}{
		{`SELECT k FROM t WHERE k = $1`, []f{{Name: "", Type: i64, Nullable: true}}},
		// A narrower integer binds as bigint, range-checked (paramKind).
		{`SELECT k FROM t WHERE i = $1 AND s = $2 AND f < $3`, []f{{Type: i64, Nullable: true}, {Type: str, Nullable: true}, {Type: arrow.PrimitiveTypes.Float64, Nullable: true}}},
		{`SELECT k FROM t WHERE v = $1 OR b = $2 OR d = $3 OR ts > $4 OR n = $5`, []f{{Type: str, Nullable: true}, {Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
			{Type: arrow.FixedWidthTypes.Date32, Nullable: true}, {Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
			{Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true}}},
		{`SELECT $1::text`, []f{{Type: str, Nullable: true}}},
		{`SELECT v.ord, t.k FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid WHERE t.s = :name`,
			[]f{{Name: "ids", Type: arrow.ListOf(i64), Nullable: true}, {Name: "name", Type: str, Nullable: true}}},
		{`SELECT x FROM UNNEST($1::text[]) AS u(x)`, []f{{Type: arrow.ListOf(str), Nullable: true}}},
		{`INSERT INTO t (k, s) VALUES ($1, $2)`, []f{{Type: i64, Nullable: true}, {Type: str, Nullable: true}}},
		{`UPDATE t SET s = $2 WHERE k = $1`, []f{{Type: i64, Nullable: true}, {Type: str, Nullable: true}}},
		{`DELETE FROM t WHERE d < $1`, []f{{Type: arrow.FixedWidthTypes.Date32, Nullable: true}}},
		// PostgreSQL 15's parameter_types (pg_prepared_statements) of
		// the same PREPAREs: an unknown that nothing types is text in a
		// select list, and where all operands are unknown; IS NULL
		// leaves it to the next use.
		{`SELECT $1`, []f{{Type: str, Nullable: true}}},
		{`SELECT $1 = $2`, []f{{Type: str, Nullable: true}, {Type: str, Nullable: true}}},
		{`SELECT $1 IN ($2, $3)`, []f{{Type: str, Nullable: true}, {Type: str, Nullable: true}, {Type: str, Nullable: true}}},
		{`SELECT $1 BETWEEN $2 AND $3`, []f{{Type: str, Nullable: true}, {Type: str, Nullable: true}, {Type: str, Nullable: true}}},
		{`SELECT CASE WHEN true THEN $1 END`, []f{{Type: str, Nullable: true}}},
		{`SELECT coalesce($1, $2)`, []f{{Type: str, Nullable: true}, {Type: str, Nullable: true}}},
		{`SELECT $1 || 'x', length($2)`, []f{{Type: str, Nullable: true}, {Type: str, Nullable: true}}},
		{`VALUES ($1)`, []f{{Type: str, Nullable: true}}},
		{`SELECT $1 < 5`, []f{{Type: i64, Nullable: true}}}, // PostgreSQL: integer; bound as bigint here (paramKind)
		// A parameter an earlier use typed gives its type to the next
		// untyped operand, as PostgreSQL's fixed Param does.
		{`SELECT k FROM t WHERE k = $1 AND $1 = $2`, []f{{Type: i64, Nullable: true}, {Type: i64, Nullable: true}}},
		{`SELECT k FROM t WHERE s = $1 AND $2 IN ($1, 'x')`, []f{{Type: str, Nullable: true}, {Type: str, Nullable: true}}},
		// PostgreSQL finds these ambiguous (unknown + unknown, - unknown);
		// bigint here, an answer where it has an error.
		{`SELECT $1 + $2, -$3, abs($4), mod($5, $6)`, []f{{Type: i64, Nullable: true}, {Type: i64, Nullable: true}, {Type: i64, Nullable: true},
			{Type: i64, Nullable: true}, {Type: i64, Nullable: true}, {Type: i64, Nullable: true}}},
		{`SELECT k FROM t WHERE $1 IS NULL OR k = $1`, []f{{Type: i64, Nullable: true}}},
		{`SELECT k FROM t WHERE $1 IS NULL OR s = $1`, []f{{Type: str, Nullable: true}}},
		{`SELECT k FROM t WHERE s = $1 OR $1 IS NOT NULL`, []f{{Type: str, Nullable: true}}},
		{`SELECT k FROM t WHERE ($1 IS NULL OR d = $1) AND ($2 IS NULL OR n > $2)`, []f{{Type: arrow.FixedWidthTypes.Date32, Nullable: true},
			{Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true}}},
		{`SELECT k FROM t`, []f{}},
		{`CREATE TABLE u (a BIGINT)`, []f{}},
	} {
		got, err := db.ParamSchema(ctx, c.sql, nil)
		require.NoError(t, err, c.sql)
		require.True(t, arrow.NewSchema(c.want, nil).Equal(got), "%s:\n got %s\nwant %s", c.sql, got, arrow.NewSchema(c.want, nil))
	}
	// The same statement as a Substrait plan: the types are the plan's
	// (a plan carries no parameter names).
	sp, _, err := db.SubstraitOf(ctx, `SELECT k FROM t WHERE s = $1 AND k IN (SELECT x FROM UNNEST($2) AS u(x))`)
	require.NoError(t, err)
	got, err := db.ParamSchema(ctx, "", sp)
	require.NoError(t, err)
	require.True(t, arrow.NewSchema([]f{{Type: str, Nullable: true}, {Type: arrow.ListOf(i64), Nullable: true}}, nil).Equal(got), "%s", got)

	// Bad statements fail here, as PostgreSQL's PREPARE does.
	_, err = db.ParamSchema(ctx, `SELECT * FROM nosuch WHERE a = $1`, nil)
	require.ErrorIs(t, err, engine.ErrUnknownTable)
	_, err = db.ParamSchema(ctx, `SELECT k FROM t WHERE k = $1 AND s = $1`, nil)
	require.Error(t, err)
	_, err = db.ParamSchema(ctx, "", []byte("not a plan"))
	require.Error(t, err)
	// A parameter no use types: PostgreSQL's check_variable_parameters.
	_, err = db.ParamSchema(ctx, `SELECT k FROM t WHERE $1 IS NULL`, nil)
	require.ErrorIs(t, err, sql.ErrParam)
	require.ErrorContains(t, err, "could not determine data type of parameter $1")
	_, err = db.ParamSchema(ctx, `SELECT k FROM t WHERE :x IS NULL AND :x IS NOT NULL`, nil)
	require.ErrorContains(t, err, "could not determine data type of parameter :x")
}

// TestDateTimestampParams: a date and a timestamp bound as Arrow values
// (what the parameter schema tells a client to send) select their rows.
func TestDateTimestampParams(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT, d DATE, ts TIMESTAMP);
		INSERT INTO t VALUES (1, '2024-01-02', '2024-01-02 03:04:05.123456'), (2, '2024-03-04', '2024-03-04 00:00:00')`, nil)
	require.NoError(t, err)
	day := arrow.Date32FromTime(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC))
	db32 := array.NewDate32Builder(mem)
	db32.Append(day)
	dcol := db32.NewArray()
	defer dcol.Release()
	us := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC).UnixMicro()
	for _, c := range []struct {
		unit arrow.TimeUnit
		v    int64
		want int64 // the k selected; 0: an error
	}{
		{arrow.Microsecond, us, 1},
		{arrow.Nanosecond, us * 1000, 1},
		{arrow.Nanosecond, us*1000 + 1, 0}, // finer than timestamp holds
		{arrow.Second, us / 1_000_000, 0},  // 03:04:05 matches no row: none selected
	} {
		tb := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: c.unit})
		tb.Append(arrow.Timestamp(c.v))
		tcol := tb.NewArray()
		schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dcol.DataType()}, {Name: "ts", Type: tcol.DataType()}}, nil)
		rec := array.NewRecordBatch(schema, []arrow.Array{dcol, tcol}, 1)
		params, err := engine.ParamsFromArrow(schema, []arrow.RecordBatch{rec})
		rec.Release()
		tcol.Release()
		tb.Release()
		if c.want == 0 && c.unit == arrow.Nanosecond {
			require.ErrorIs(t, err, engine.ErrParam, "%v", c)
			continue
		}
		require.NoError(t, err, "%v", c)
		rows, err := db.Query(ctx, `SELECT k FROM t WHERE d = $1 AND ts = $2`, engine.PositionalParams(params))
		require.NoError(t, err, "%v", c)
		var ks []int64
		for rows.Next() {
			col := rows.RecordBatch().Column(0).(*array.Int64)
			ks = append(ks, col.Int64Values()...)
		}
		require.NoError(t, rows.Err())
		rows.Close()
		if c.want == 0 {
			require.Empty(t, ks, "%v", c)
		} else {
			require.Equal(t, []int64{c.want}, ks, "%v", c)
		}
	}
}

// TestDecimalParams: a numeric parameter binds from an Arrow decimal128
// of any scale, fitted exactly to the numeric(p, s) the plan types it as;
// one that would need rounding is refused, not rounded into a match
// PostgreSQL would not make.
func TestDecimalParams(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	db := engine.OpenMemory(engine.Options{Mem: exectest.Mem(t)})
	_, err := db.Exec(ctx, `CREATE TABLE t (k BIGINT, n NUMERIC(10,2)); INSERT INTO t VALUES (1, 1.23), (2, 4.50)`, nil)
	require.NoError(t, err)
	for _, c := range []struct {
		v     int64
		scale int32
		want  []int64 // nil: refused
	}{
		{1230, 3, []int64{1}},
		{45, 1, []int64{2}},
		{123, 2, []int64{1}},
		{7, 0, []int64{}},
		{1234, 3, nil}, // 1.234 is no numeric(10,2)
	} {
		dt := &arrow.Decimal128Type{Precision: 20, Scale: c.scale}
		b := array.NewDecimal128Builder(mem, dt)
		b.Append(decimal128.FromI64(c.v))
		col := b.NewArray()
		schema := arrow.NewSchema([]arrow.Field{{Name: "n", Type: dt}}, nil)
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, 1)
		params, err := engine.ParamsFromArrow(schema, []arrow.RecordBatch{rec})
		rec.Release()
		col.Release()
		b.Release()
		require.NoError(t, err)
		rows, err := db.Query(ctx, `SELECT k FROM t WHERE n = $1`, engine.PositionalParams(params))
		if err == nil {
			ks := []int64{}
			for rows.Next() {
				ks = append(ks, rows.RecordBatch().Column(0).(*array.Int64).Int64Values()...)
			}
			err = rows.Err()
			rows.Close()
			if err == nil {
				require.Equal(t, c.want, ks, "%v", c)
				continue
			}
		}
		require.Nil(t, c.want, "%v: %v", c, err)
		require.ErrorIs(t, err, engine.ErrParam, "%v", c)
		require.Contains(t, err.Error(), "does not fit numeric(10,2)")
	}
}
