package server

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// prepareRaw sends CreatePreparedStatement as a Flight action and returns
// the result as it came on the wire (the client library decodes its
// schemas), and the FlightInfo of executing it without parameters.
func prepareRaw(t *testing.T, cl *flightsql.Client, query string) (*pb.ActionCreatePreparedStatementResult, *flight.FlightInfo) {
	t.Helper()
	ctx := context.Background()
	req, err := anypb.New(&pb.ActionCreatePreparedStatementRequest{Query: query})
	require.NoError(t, err)
	body, err := proto.Marshal(req)
	require.NoError(t, err)
	stream, err := cl.Client.DoAction(ctx, &flight.Action{Type: flightsql.CreatePreparedStatementActionType, Body: body})
	require.NoError(t, err)
	res, err := stream.Recv()
	require.NoError(t, err, query)
	var a anypb.Any
	require.NoError(t, proto.Unmarshal(res.Body, &a))
	var out pb.ActionCreatePreparedStatementResult
	require.NoError(t, a.UnmarshalTo(&out))
	cmd, err := anypb.New(&pb.CommandPreparedStatementQuery{PreparedStatementHandle: out.PreparedStatementHandle})
	require.NoError(t, err)
	desc, err := proto.Marshal(cmd)
	require.NoError(t, err)
	info, err := cl.Client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: desc})
	require.NoError(t, err, query)
	return &out, info
}

// TestPreparedDatasetSchema: a prepared statement's result carries the
// schema of its rows, planned and not run, byte for byte the schema its
// GetFlightInfo answers (and GetSchema, of the statement prepared or
// not); a statement without a result set has a schema of no fields and
// the is_update hint; a script's rows are unknown until it runs.
func TestPreparedDatasetSchema(t *testing.T) {
	s, cl, mem := testServer(t, Options{})
	ctx := context.Background()
	_, err := s.db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, i INTEGER, s TEXT, c CHAR(3), f DOUBLE PRECISION, b BOOLEAN, d DATE, ts TIMESTAMP, n NUMERIC(10,2));
		INSERT INTO t VALUES (1, 2, 'a', 'b', 1.5, true, DATE '2024-01-02', TIMESTAMP '2024-01-02 03:04:05', 1.25)`, nil)
	require.NoError(t, err)

	// On the wire: the dataset schema's bytes are GetFlightInfo's.
	for _, c := range []struct {
		sql    string
		fields int
	}{
		{`SELECT * FROM t`, 9},
		{`SELECT k, c, c || 'x' AS cx, n * 2 AS n2, d + 1 AS d1, ts FROM t WHERE b`, 6},
		{`SELECT d, sum(n) AS total, avg(f) AS a, max(s) FROM t GROUP BY d`, 4},
		{`EXPLAIN SELECT k FROM t WHERE k > 0`, 1},
		// Constants the plan holds as arrays: planning them for the
		// schema keeps no memory (the checked allocator, at the end).
		{`SELECT g, g * 2 AS h FROM generate_series(1, 3) AS s(g)`, 2},
		{`SELECT k FROM t WHERE s IN ('a', 'b', 'c') AND k IN (1, 2, 3)`, 1},
		{`SELECT x, t.k FROM UNNEST(ARRAY[1, 2, 3]) AS u(x) LEFT JOIN t ON t.k = u.x`, 2},
		{`INSERT INTO t (k, s) VALUES (2, 'z')`, 0},
		{`CREATE TABLE u (a BIGINT)`, 0},
	} {
		res, info := prepareRaw(t, cl, c.sql)
		require.NotEmpty(t, res.DatasetSchema, c.sql)
		require.True(t, bytes.Equal(res.DatasetSchema, info.Schema), "%s: the dataset schema is not GetFlightInfo's", c.sql)
		sc, err := flight.DeserializeSchema(res.DatasetSchema, mem)
		require.NoError(t, err)
		require.Equal(t, c.fields, sc.NumFields(), "%s: %s", c.sql, sc)
		require.NotNil(t, res.IsUpdate, c.sql)
		require.Equal(t, c.fields == 0, *res.IsUpdate, c.sql)
		readInfo(t, cl, info)
	}

	// Through the client: DatasetSchema and ParameterSchema, then bind by
	// the parameter schema and execute.
	const q = `SELECT t.k, t.s AS name, t.n FROM t WHERE t.k = $1 AND t.d < $2`
	ps, err := cl.Prepare(ctx, q)
	require.NoError(t, err)
	defer ps.Close(ctx)
	want := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
	}, nil)
	require.NotNil(t, ps.DatasetSchema())
	require.True(t, want.Equal(ps.DatasetSchema()), "got %s", ps.DatasetSchema())
	require.Equal(t, 2, ps.ParameterSchema().NumFields())
	isUpdate, ok := ps.IsUpdate()
	require.True(t, ok)
	require.False(t, isUpdate)
	rb := array.NewRecordBuilder(mem, ps.ParameterSchema())
	rb.Field(0).(*array.Int64Builder).Append(1)
	rb.Field(1).(*array.Date32Builder).Append(arrow.Date32(20000))
	rec := rb.NewRecordBatch()
	rb.Release()
	ps.SetParameters(rec)
	info, err := ps.Execute(ctx)
	rec.Release()
	require.NoError(t, err)
	require.True(t, bytes.Equal(flight.SerializeSchema(ps.DatasetSchema(), mem), info.Schema))
	n := 0
	for _, b := range readInfo(t, cl, info) {
		require.True(t, b.Schema().Equal(ps.DatasetSchema()))
		n += int(b.NumRows())
	}
	require.Equal(t, 1, n)
	sr, err := ps.GetSchema(ctx)
	require.NoError(t, err)
	require.True(t, bytes.Equal(sr.GetSchema(), info.Schema))
	sr, err = cl.GetExecuteSchema(ctx, q)
	require.NoError(t, err)
	require.True(t, bytes.Equal(sr.GetSchema(), info.Schema))

	// A Substrait plan is described as its SQL is.
	sp, _, err := s.db.SubstraitOf(ctx, q)
	require.NoError(t, err)
	pss, err := cl.PrepareSubstrait(ctx, flightsql.SubstraitPlan{Plan: sp})
	require.NoError(t, err)
	require.True(t, want.Equal(pss.DatasetSchema()), "got %s", pss.DatasetSchema())
	require.NoError(t, pss.Close(ctx))
	sr, err = cl.GetExecuteSubstraitSchema(ctx, flightsql.SubstraitPlan{Plan: sp})
	require.NoError(t, err)
	require.True(t, bytes.Equal(sr.GetSchema(), info.Schema))

	// A script: nothing to say before it runs; the client chooses how to
	// run it.
	psc, err := cl.Prepare(ctx, `SELECT 1; SELECT 2`)
	require.NoError(t, err)
	require.Nil(t, psc.DatasetSchema())
	_, ok = psc.IsUpdate()
	require.False(t, ok)
	_, err = psc.GetSchema(ctx)
	require.Equal(t, codes.Unimplemented, code(err), "%v", err)
	require.NoError(t, psc.Close(ctx))
}

// TestPrepareRunsNothing: preparing plans a statement and runs nothing:
// a prepared DELETE deletes when executed and not before, a query that
// fails on its rows prepares, and one that would run for hours prepares
// at once and starts no result.
func TestPrepareRunsNothing(t *testing.T) {
	s, cl, _ := testServer(t, Options{})
	ctx := context.Background()
	_, err := s.db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL); INSERT INTO t SELECT g FROM generate_series(1, 100) AS g(g)`, nil)
	require.NoError(t, err)
	count := func() int64 {
		res, err := s.db.Exec(ctx, `SELECT count(*) FROM t`, nil)
		require.NoError(t, err)
		defer res.Release()
		return res.Batches[0].Column(0).(*array.Int64).Value(0)
	}
	del, err := cl.Prepare(ctx, `DELETE FROM t WHERE k > 50`)
	require.NoError(t, err)
	require.Equal(t, 0, del.DatasetSchema().NumFields())
	require.Equal(t, int64(100), count())
	n, err := del.ExecuteUpdate(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(50), n)
	require.Equal(t, int64(50), count())
	require.NoError(t, del.Close(ctx))

	fails, err := cl.Prepare(ctx, `SELECT 1 / (k - k) AS x FROM t`)
	require.NoError(t, err)
	require.Equal(t, "x", fails.DatasetSchema().Field(0).Name)
	info, err := fails.Execute(ctx)
	if err == nil {
		_, err = readAll(ctx, cl, info)
	}
	require.ErrorContains(t, err, "division by zero") // what running it meets
	require.NoError(t, fails.Close(ctx))

	slow, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	start := time.Now()
	ps, err := cl.Prepare(slow, `SELECT count(*) AS n FROM generate_series(1, 1000000) AS a(x), generate_series(1, 1000000) AS b(y)`)
	require.NoError(t, err)
	require.Less(t, time.Since(start), 30*time.Second)
	require.Equal(t, "n", ps.DatasetSchema().Field(0).Name)
	require.Zero(t, s.results.len(), "preparing started the query")
	require.NoError(t, ps.Close(ctx))
}

// TestSplitTakeDatasetSchema: a take served by several endpoints answers
// the dataset schema its preparation did.
func TestSplitTakeDatasetSchema(t *testing.T) {
	s, cl, mem := testServer(t, Options{MaxEndpoints: 3})
	spreadTable(t, s.db, 20000)
	ctx := context.Background()
	ps, err := cl.Prepare(ctx, `SELECT v.ord, t._rowaddr, t.k, t.s FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`)
	require.NoError(t, err)
	defer ps.Close(ctx)
	info, err := executeIDs(ctx, ps, mem, randomIDs(8000, 20000, 3))
	require.NoError(t, err)
	require.Len(t, info.Endpoint, 3)
	require.True(t, bytes.Equal(flight.SerializeSchema(ps.DatasetSchema(), mem), info.Schema), "dataset %s", ps.DatasetSchema())
	for _, b := range readInfo(t, cl, info) {
		require.True(t, b.Schema().Equal(ps.DatasetSchema()))
	}
}
