package server

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
)

// TestPreparedParameterTypes: through arrow-go's Flight SQL client, a
// prepared statement's parameter schema has the types PostgreSQL 15's
// PREPARE gives (pg_prepared_statements.parameter_types): $1 compared with
// k is k's type, a lone $1 is text (unknown resolved to text), $1 IS NULL
// takes the type of its next use; a value of that type binds, one of a
// type that converts exactly (int32 for bigint) binds converted, and any
// other is InvalidArgument, as a parameter nothing types is at prepare.
func TestPreparedParameterTypes(t *testing.T) {
	s, cl, mem := testServer(t, Options{})
	ctx := context.Background()
	_, err := s.db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
		INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)`, nil)
	require.NoError(t, err)
	i64, str := arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String

	for _, c := range []struct {
		sql  string
		want []arrow.DataType
	}{
		{`SELECT * FROM t WHERE k = $1`, []arrow.DataType{i64}},
		{`SELECT $1`, []arrow.DataType{str}},
		{`SELECT coalesce($1, $2)`, []arrow.DataType{str, str}},
		{`SELECT k FROM t WHERE $1 IS NULL OR s = $1`, []arrow.DataType{str}},
		{`SELECT k FROM t WHERE $1 IS NULL OR k = $1`, []arrow.DataType{i64}},
	} {
		ps, err := cl.Prepare(ctx, c.sql)
		require.NoError(t, err, c.sql)
		var got []arrow.DataType
		for _, f := range ps.ParameterSchema().Fields() {
			got = append(got, f.Type)
		}
		require.Equal(t, c.want, got, c.sql)
		require.NoError(t, ps.Close(ctx))
	}

	// Bind one value of type typ (built by app) and run.
	run := func(ps *flightsql.PreparedStatement, typ arrow.DataType, app func(array.Builder)) ([]string, error) {
		rb := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{{Type: typ, Nullable: true}}, nil))
		app(rb.Field(0))
		rec := rb.NewRecordBatch()
		rb.Release()
		ps.SetParameters(rec)
		rec.Release()
		info, err := ps.Execute(ctx)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, b := range readInfo(t, cl, info) {
			for i := 0; i < int(b.NumRows()); i++ {
				out = append(out, b.Column(0).ValueStr(i))
			}
		}
		return out, nil
	}

	lone, err := cl.Prepare(ctx, `SELECT $1`)
	require.NoError(t, err)
	defer lone.Close(ctx)
	rows, err := run(lone, str, func(b array.Builder) { b.(*array.StringBuilder).Append("hello") })
	require.NoError(t, err)
	require.Equal(t, []string{"hello"}, rows)
	// A number is not text: no conversion by guess (issue 26's rule).
	_, err = run(lone, i64, func(b array.Builder) { b.(*array.Int64Builder).Append(12) })
	require.Equal(t, codes.InvalidArgument, code(err), "%v", err)
	require.ErrorContains(t, err, "want utf8")

	byKey, err := cl.Prepare(ctx, `SELECT s FROM t WHERE k = $1`)
	require.NoError(t, err)
	defer byKey.Close(ctx)
	rows, err = run(byKey, arrow.PrimitiveTypes.Int32, func(b array.Builder) { b.(*array.Int32Builder).Append(2) })
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, rows)
	_, err = run(byKey, str, func(b array.Builder) { b.(*array.StringBuilder).Append("2") })
	require.Equal(t, codes.InvalidArgument, code(err), "%v", err)

	// PostgreSQL: "could not determine data type of parameter $1".
	_, err = cl.Prepare(ctx, `SELECT k FROM t WHERE $1 IS NULL`)
	require.Equal(t, codes.InvalidArgument, code(err), "%v", err)
	require.ErrorContains(t, err, "could not determine data type of parameter $1")
}
