package adbctest

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-adbc/go/adbc/driver/flightsql"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/server"
)

// testServer is a stablerow Flight SQL server on a free loopback port,
// serving a database in a temporary directory whose allocator is checked:
// when the test ends (server shut down, every result closed) no byte of
// the engine's may be outstanding.
type testServer struct {
	db  *engine.DB
	dir string
	uri string
}

func startServer(t *testing.T, opt server.Options) *testServer {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Mem: mem})
	require.NoError(t, err)
	srv, err := server.New(db, opt)
	require.NoError(t, err)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lis) }()
	t.Cleanup(func() {
		srv.Shutdown()
		require.NoError(t, <-done)
		mem.AssertSize(t, 0)
	})
	scheme := "grpc://"
	if opt.TLS != nil {
		scheme = "grpc+tls://"
	}
	return &testServer{db: db, dir: dir, uri: scheme + lis.Addr().String()}
}

// connect opens an ADBC Flight SQL connection with the given options
// (the URI is the server's).
func connect(t *testing.T, uri string, opts map[string]string) (adbc.Connection, error) {
	t.Helper()
	o := map[string]string{adbc.OptionKeyURI: uri}
	for k, v := range opts {
		o[k] = v
	}
	drv := flightsql.NewDriver(memory.DefaultAllocator)
	db, err := drv.NewDatabase(o)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { db.Close() })
	cn, err := db.Open(context.Background())
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { cn.Close() })
	return cn, nil
}

func mustConnect(t *testing.T, uri string, opts map[string]string) adbc.Connection {
	t.Helper()
	cn, err := connect(t, uri, opts)
	require.NoError(t, err)
	return cn
}

// exec runs DML or DDL through ExecuteUpdate.
func exec(t *testing.T, cn adbc.Connection, sql string) int64 {
	t.Helper()
	n, err := execErr(cn, sql)
	require.NoError(t, err, sql)
	return n
}

func execErr(cn adbc.Connection, sql string) (int64, error) {
	st, err := cn.NewStatement()
	if err != nil {
		return 0, err
	}
	defer st.Close()
	if err := st.SetSqlQuery(sql); err != nil {
		return 0, err
	}
	return st.ExecuteUpdate(context.Background())
}

// rowsOf reads a result to the end as rows of Go values (int64, string,
// nil for NULL), checking every batch has the reader's schema.
func rowsOf(t *testing.T, rdr array.RecordReader) [][]any {
	t.Helper()
	rows, err := rowsErr(t, rdr)
	require.NoError(t, err)
	return rows
}

// rowsErr is rowsOf with the error that ended the stream: one found while
// the rows stream comes with the rows.
func rowsErr(t *testing.T, rdr array.RecordReader) ([][]any, error) {
	t.Helper()
	defer rdr.Release()
	var out [][]any
	for rdr.Next() {
		b := rdr.RecordBatch()
		require.True(t, b.Schema().Equal(rdr.Schema()))
		for i := 0; i < int(b.NumRows()); i++ {
			row := make([]any, b.NumCols())
			for j, c := range b.Columns() {
				if c.IsNull(i) {
					continue
				}
				switch a := c.(type) {
				case *array.Int64:
					row[j] = a.Value(i)
				case *array.Uint64:
					row[j] = int64(a.Value(i))
				case *array.String:
					row[j] = a.Value(i)
				default:
					row[j] = c.ValueStr(i)
				}
			}
			out = append(out, row)
		}
	}
	return out, rdr.Err()
}

// query runs SQL through ExecuteQuery.
func query(t *testing.T, cn adbc.Connection, sql string) [][]any {
	t.Helper()
	rows, err := queryErr(t, cn, sql)
	require.NoError(t, err, sql)
	return rows
}

func queryErr(t *testing.T, cn adbc.Connection, sql string) ([][]any, error) {
	t.Helper()
	st, err := cn.NewStatement()
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.SetSqlQuery(sql))
	rdr, _, err := st.ExecuteQuery(context.Background())
	if err != nil {
		return nil, err
	}
	return rowsErr(t, rdr)
}

// requireCode checks err is the ADBC error of a gRPC status with code c
// (the driver keeps the code as the vendor code) and its message holds
// every one of msgs.
func requireCode(t *testing.T, err error, c codes.Code, msgs ...string) {
	t.Helper()
	require.Error(t, err)
	var ae adbc.Error
	require.True(t, errors.As(err, &ae), "%T %v", err, err)
	require.Equal(t, int32(c), ae.VendorCode, "want %s: %v", c, err)
	for _, m := range msgs {
		require.Contains(t, ae.Msg, m)
	}
}

// int64List is a batch of one row: the ids as one list<int64>.
func int64List(ids []int64) arrow.RecordBatch {
	b := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Int64)
	defer b.Release()
	b.Append(true)
	b.ValueBuilder().(*array.Int64Builder).AppendValues(ids, nil)
	l := b.NewArray()
	defer l.Release()
	s := arrow.NewSchema([]arrow.Field{{Name: "ids", Type: l.DataType()}}, nil)
	return array.NewRecordBatch(s, []arrow.Array{l}, 1)
}

// int64Column is a batch of len(ids) rows: the ids as a column.
func int64Column(ids []int64) arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(ids, nil)
	c := b.NewArray()
	defer c.Release()
	s := arrow.NewSchema([]arrow.Field{{Name: "ids", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecordBatch(s, []arrow.Array{c}, int64(len(ids)))
}

// prepared is sql prepared on cn with params bound (and released), as a
// client binds the take's ids instead of building SQL strings; the
// statement closes when the test ends, before the server stops.
func prepared(t *testing.T, cn adbc.Connection, sql string, params arrow.RecordBatch) adbc.Statement {
	t.Helper()
	st, err := cn.NewStatement()
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	require.NoError(t, st.SetSqlQuery(sql))
	require.NoError(t, st.Prepare(context.Background()))
	require.NoError(t, st.Bind(context.Background(), params))
	params.Release()
	return st
}
