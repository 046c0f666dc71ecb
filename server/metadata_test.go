package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// readInfo reads every endpoint of info from cl into one list of batches.
func readInfo(t *testing.T, cl *flightsql.Client, info *flight.FlightInfo) []arrow.RecordBatch {
	t.Helper()
	var out []arrow.RecordBatch
	for _, ep := range info.Endpoint {
		r, err := cl.DoGet(context.Background(), ep.Ticket)
		require.NoError(t, err)
		for r.Next() {
			b := r.RecordBatch()
			b.Retain()
			out = append(out, b)
		}
		require.NoError(t, r.Err())
		r.Release()
	}
	t.Cleanup(func() {
		for _, b := range out {
			b.Release()
		}
	})
	return out
}

// TestPreparedParameterSchema: a prepared statement's result carries its
// parameters' schema, typed as the planner infers them, and a client that
// binds values of those types gets its rows; a bad statement fails at
// prepare, as PostgreSQL's PREPARE does.
func TestPreparedParameterSchema(t *testing.T) {
	s, cl, mem := testServer(t, Options{})
	ctx := context.Background()
	_, err := s.db.Exec(ctx, `CREATE TABLE t (k BIGINT NOT NULL, s TEXT, d DATE);
		INSERT INTO t VALUES (1, 'a', '2024-01-02'), (2, 'b', '2024-01-03'), (3, 'c', NULL)`, nil)
	require.NoError(t, err)
	ps, err := cl.Prepare(ctx, `SELECT t.k FROM UNNEST(:ids) AS v(id) JOIN t ON t.k = v.id WHERE t.s <> :skip AND t.d = :day`)
	require.NoError(t, err)
	defer ps.Close(ctx)
	want := arrow.NewSchema([]arrow.Field{
		{Name: "ids", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "skip", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}, nil)
	require.NotNil(t, ps.ParameterSchema())
	require.True(t, want.Equal(ps.ParameterSchema()), "got %s", ps.ParameterSchema())

	// Bind by the schema: a builder of exactly its types.
	rb := array.NewRecordBuilder(mem, ps.ParameterSchema())
	lb := rb.Field(0).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	rb.Field(1).(*array.StringBuilder).Append("b")
	rb.Field(2).(*array.Date32Builder).Append(arrow.Date32(19724)) // 2024-01-02
	rec := rb.NewRecordBatch()
	rb.Release()
	ps.SetParameters(rec)
	info, err := ps.Execute(ctx)
	rec.Release()
	require.NoError(t, err)
	var ks []int64
	for _, b := range readInfo(t, cl, info) {
		ks = append(ks, b.Column(0).(*array.Int64).Int64Values()...)
	}
	require.Equal(t, []int64{1}, ks)

	// No parameters: an empty schema.
	ps2, err := cl.Prepare(ctx, `SELECT k FROM t`)
	require.NoError(t, err)
	require.Equal(t, 0, ps2.ParameterSchema().NumFields())
	require.NoError(t, ps2.Close(ctx))

	// A Substrait plan's parameters, from the plan.
	sp, _, err := s.db.SubstraitOf(ctx, `SELECT k FROM t WHERE k > $1`)
	require.NoError(t, err)
	ps3, err := cl.PrepareSubstrait(ctx, flightsql.SubstraitPlan{Plan: sp})
	require.NoError(t, err)
	require.True(t, arrow.NewSchema([]arrow.Field{{Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil).Equal(ps3.ParameterSchema()), "%s", ps3.ParameterSchema())
	require.NoError(t, ps3.Close(ctx))

	_, err = cl.Prepare(ctx, `SELECT * FROM nosuch WHERE a = $1`)
	require.Equal(t, codes.NotFound, code(err), "%v", err)
	_, err = cl.Prepare(ctx, `SELECT k FROM t WHERE k = $1 AND s = $1`)
	require.Equal(t, codes.InvalidArgument, code(err), "%v", err)
}

// sqlInfoValues reads GetSqlInfo's answer as id -> Go value.
func sqlInfoValues(t *testing.T, cl *flightsql.Client) map[flightsql.SqlInfo]any {
	t.Helper()
	info, err := cl.GetSqlInfo(context.Background(), nil)
	require.NoError(t, err)
	got := map[flightsql.SqlInfo]any{}
	for _, b := range readInfo(t, cl, info) {
		ids := b.Column(0).(*array.Uint32)
		u := b.Column(1).(*array.DenseUnion)
		for i := 0; i < int(b.NumRows()); i++ {
			child := u.Field(u.ChildID(i))
			off := int(u.ValueOffset(i))
			var v any
			switch c := child.(type) {
			case *array.String:
				v = c.Value(off)
			case *array.Boolean:
				v = c.Value(off)
			case *array.Int64:
				v = c.Value(off)
			case *array.Int32:
				v = c.Value(off)
			case *array.List:
				lo, hi := c.ValueOffsets(off)
				var ss []string
				for j := lo; j < hi; j++ {
					ss = append(ss, c.ListValues().(*array.String).Value(int(j)))
				}
				v = ss
			default:
				t.Fatalf("sql info %d: unexpected %T", ids.Value(i), child)
			}
			got[flightsql.SqlInfo(ids.Value(i))] = v
		}
	}
	return got
}

// TestSqlInfoClaims: GetSqlInfo answers every id the server declares,
// and each capability it claims is true: a query exercising it runs (and
// gives the answer the claim implies); each one it disclaims is refused.
func TestSqlInfoClaims(t *testing.T) {
	s, cl, _ := testServer(t, Options{})
	ctx := context.Background()
	got := sqlInfoValues(t, cl)
	require.Len(t, got, len(sqlInfo))
	for id, v := range sqlInfo {
		require.Equal(t, v, got[id], "sql info %d", id)
	}
	mustRun := func(q string) [][]string {
		t.Helper()
		rows, err := s.db.Query(ctx, q, nil)
		require.NoError(t, err, q)
		defer rows.Close()
		var out [][]string
		for rows.Next() {
			b := rows.RecordBatch()
			for i := 0; i < int(b.NumRows()); i++ {
				var r []string
				for _, c := range b.Columns() {
					r = append(r, c.ValueStr(i))
				}
				out = append(out, r)
			}
		}
		require.NoError(t, rows.Err(), q)
		return out
	}
	exec := func(q string) error {
		res, err := s.db.Exec(ctx, q, nil)
		if err == nil {
			res.Release()
		}
		return err
	}
	// read_only false, DDL of tables: tables are made, written and dropped.
	require.NoError(t, exec(`CREATE TABLE t (k BIGINT NOT NULL, s TEXT); INSERT INTO t VALUES (1, 'a%'), (2, 'b'), (3, NULL)`))
	require.NoError(t, exec(`CREATE TABLE u (k BIGINT); INSERT INTO u VALUES (2), (4), (NULL)`))
	require.NoError(t, exec(`CREATE TABLE gone (a BIGINT); DROP TABLE gone`))
	// Minimum grammar: searched UPDATE and DELETE too.
	require.NoError(t, exec(`UPDATE u SET k = 5 WHERE k = 4; DELETE FROM u WHERE k = 5; INSERT INTO u VALUES (4)`))
	// No DDL of catalogs or schemas.
	require.Error(t, exec(`CREATE SCHEMA x`))
	// Non-nullable columns.
	require.Error(t, exec(`INSERT INTO t VALUES (NULL, 'x')`))
	// The identifier quote character, and a keyword quoted as a name.
	require.Equal(t, [][]string{{"1"}}, mustRun(`SELECT "k" FROM "t" WHERE "k" = 1`))
	for _, kw := range keywords {
		require.Error(t, exec(fmt.Sprintf(`CREATE TABLE %s (a BIGINT)`, kw)), "%s is reserved", kw)
		require.NoError(t, exec(fmt.Sprintf(`CREATE TABLE "%s" (a BIGINT)`, kw)), "quoted %s", kw)
		require.Equal(t, [][]string{{"0"}}, mustRun(fmt.Sprintf(`SELECT count(*) FROM "%s"`, kw)))
	}
	// All tables are selectable.
	for _, n := range s.db.Tables() {
		mustRun(fmt.Sprintf(`SELECT * FROM "%s"`, n))
	}
	// Column aliasing, table correlation names.
	require.Equal(t, [][]string{{"1"}}, mustRun(`SELECT a.k AS x FROM t AS a WHERE a.k = 1`))
	// NULL + NULL is NULL.
	require.Equal(t, [][]string{{"true"}}, mustRun(`SELECT (CAST(NULL AS BIGINT) + CAST(NULL AS BIGINT)) IS NULL`))
	// Expressions in ORDER BY; ORDER BY a column not selected; nulls sort
	// high: last ascending, first descending.
	require.Equal(t, [][]string{{"3"}, {"2"}, {"1"}}, mustRun(`SELECT k FROM t ORDER BY 0 - k`))
	require.Equal(t, [][]string{{"1"}, {"2"}, {"3"}}, mustRun(`SELECT k FROM t ORDER BY s`))
	require.Equal(t, [][]string{{"3"}, {"2"}, {"1"}}, mustRun(`SELECT k FROM t ORDER BY s DESC`))
	// GROUP BY unrelated to, and beyond, the select list.
	require.Len(t, mustRun(`SELECT count(*) FROM t GROUP BY s`), 3)
	require.Len(t, mustRun(`SELECT s FROM t GROUP BY s, k`), 3)
	// LIKE ... ESCAPE.
	require.Equal(t, [][]string{{"1"}}, mustRun(`SELECT k FROM t WHERE s LIKE 'a!%' ESCAPE '!'`))
	// Full outer joins: LEFT, RIGHT, FULL, nested.
	require.Len(t, mustRun(`SELECT t.k, u.k FROM t LEFT JOIN u ON t.k = u.k`), 3)
	require.Len(t, mustRun(`SELECT t.k, u.k FROM t RIGHT JOIN u ON t.k = u.k`), 3)
	require.Len(t, mustRun(`SELECT t.k, u.k FROM t FULL JOIN u ON t.k = u.k`), 5)
	require.Len(t, mustRun(`SELECT a.k FROM t a LEFT JOIN (u b FULL JOIN t c ON b.k = c.k) ON a.k = b.k`), 3)
	// Subqueries in comparisons, EXISTS, IN and quantified; correlated.
	require.Equal(t, [][]string{{"3"}}, mustRun(`SELECT k FROM t WHERE k = (SELECT max(k) FROM t)`))
	require.Equal(t, [][]string{{"2"}}, mustRun(`SELECT k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k)`))
	require.Equal(t, [][]string{{"2"}}, mustRun(`SELECT k FROM t WHERE k IN (SELECT k FROM u)`))
	// Quantified comparisons.
	require.Equal(t, [][]string{{"3"}}, mustRun(`SELECT k FROM t WHERE k > ALL (SELECT k FROM t WHERE k < 3)`))
	require.Equal(t, [][]string{{"2"}, {"3"}}, mustRun(`SELECT k FROM t WHERE k > ANY (SELECT k FROM t WHERE k < 3) ORDER BY k`))
	// UNION and UNION ALL.
	require.Len(t, mustRun(`SELECT k FROM t UNION SELECT k FROM t`), 3)
	require.Len(t, mustRun(`SELECT k FROM t UNION ALL SELECT k FROM t`), 6)
	// Transactions, REPEATABLE READ: a Flight transaction reads one
	// snapshot, whatever commits meanwhile, and its own writes. (BEGIN as
	// text is refused: a call without a transaction id is a session of
	// its own.)
	require.Error(t, exec(`BEGIN`))
	tx, err := cl.BeginTransaction(ctx)
	require.NoError(t, err)
	countIn := func() int64 {
		t.Helper()
		info, err := tx.Execute(ctx, `SELECT k FROM u`)
		require.NoError(t, err)
		n, err := readAll(ctx, cl, info)
		require.NoError(t, err)
		return n
	}
	require.Equal(t, int64(3), countIn())
	require.NoError(t, exec(`INSERT INTO u VALUES (7)`))
	require.Equal(t, int64(3), countIn())
	_, err = tx.ExecuteUpdate(ctx, `INSERT INTO u VALUES (8)`)
	require.NoError(t, err)
	require.Equal(t, int64(4), countIn())
	require.NoError(t, tx.Rollback(ctx))
	require.Equal(t, [][]string{{"4"}}, mustRun(`SELECT count(*) FROM u`))
	require.NoError(t, exec(`DELETE FROM u WHERE k = 7`))
	// No SELECT ... FOR UPDATE.
	require.Error(t, exec(`SELECT k FROM t FOR UPDATE`))
}

// TestXdbcTypeInfo: GetXdbcTypeInfo lists each type a column can have,
// ordered by data_type; each type_name declares a column, whose Arrow type
// is the one the data_type stands for; a data_type filter keeps its rows.
func TestXdbcTypeInfo(t *testing.T) {
	s, cl, _ := testServer(t, Options{})
	ctx := context.Background()
	info, err := cl.GetXdbcTypeInfo(ctx, nil)
	require.NoError(t, err)
	fs, err := flight.DeserializeSchema(info.Schema, memory.DefaultAllocator)
	require.NoError(t, err)
	require.True(t, fs.Equal(schema_ref.XdbcTypeInfo))
	arrowOf := map[pb.XdbcDataType]arrow.Type{
		pb.XdbcDataType_XDBC_SMALLINT: arrow.INT16, pb.XdbcDataType_XDBC_INTEGER: arrow.INT32,
		pb.XdbcDataType_XDBC_BIGINT: arrow.INT64, pb.XdbcDataType_XDBC_REAL: arrow.FLOAT32,
		pb.XdbcDataType_XDBC_DOUBLE: arrow.FLOAT64, pb.XdbcDataType_XDBC_NUMERIC: arrow.DECIMAL128,
		pb.XdbcDataType_XDBC_VARCHAR: arrow.STRING, pb.XdbcDataType_XDBC_CHAR: arrow.STRING,
		pb.XdbcDataType_XDBC_BIT: arrow.BOOL, pb.XdbcDataType_XDBC_DATE: arrow.DATE32,
		pb.XdbcDataType_XDBC_TIMESTAMP: arrow.TIMESTAMP,
	}
	var names []string
	last := int32(-1 << 31)
	seen := map[arrow.Type]bool{}
	for _, b := range readInfo(t, cl, info) {
		for i := 0; i < int(b.NumRows()); i++ {
			name := b.Column(0).(*array.String).Value(i)
			dt := b.Column(1).(*array.Int32).Value(i)
			require.GreaterOrEqual(t, dt, last, "ordered by data_type")
			last = dt
			decl := name
			if cp := b.Column(5).(*array.List); cp.ListValues().Len() > 0 {
				if lo, hi := cp.ValueOffsets(i); hi-lo == 1 {
					decl += "(5)"
				} else if hi-lo == 2 {
					decl += "(10, 2)"
				}
			}
			tn := fmt.Sprintf("c%d", len(names))
			_, err := s.db.Exec(ctx, fmt.Sprintf(`CREATE TABLE %s (c %s)`, tn, decl), nil)
			require.NoError(t, err, decl)
			tab, err := s.db.Table(ctx, tn)
			require.NoError(t, err)
			at := tab.UserSchema().Field(0).Type.ID()
			want, ok := arrowOf[pb.XdbcDataType(dt)]
			require.True(t, ok, "%s: data_type %d", name, dt)
			require.Equal(t, want, at, "%s", name)
			seen[at] = true
			names = append(names, name)
		}
	}
	require.Len(t, names, len(xdbcTypes))
	require.Len(t, seen, 10, "every Arrow type a column has: %v", seen)

	// A filter keeps the rows of its data_type.
	vc := int32(pb.XdbcDataType_XDBC_VARCHAR)
	info, err = cl.GetXdbcTypeInfo(ctx, &vc)
	require.NoError(t, err)
	var got []string
	for _, b := range readInfo(t, cl, info) {
		for i := 0; i < int(b.NumRows()); i++ {
			got = append(got, b.Column(0).(*array.String).Value(i))
			require.Equal(t, vc, b.Column(1).(*array.Int32).Value(i))
		}
	}
	require.ElementsMatch(t, []string{"text", "character varying"}, got)
}

// TestPrimaryKeys: GetPrimaryKeys answers a table's PRIMARY KEY columns
// in key order, named as the constraint (given, or <table>_pkey), in the
// spec's schema; a table with only a UNIQUE constraint, or none, answers
// no rows; an unknown table is NotFound.
func TestPrimaryKeys(t *testing.T) {
	s, cl, _ := testServer(t, Options{})
	ctx := context.Background()
	_, err := s.db.Exec(ctx, `CREATE TABLE pk2 (a BIGINT, b TEXT, c INT UNIQUE, PRIMARY KEY (b, a));
		CREATE TABLE pk1 (k INT CONSTRAINT pk1_named PRIMARY KEY, v INT);
		CREATE TABLE nopk (k INT UNIQUE)`, nil)
	require.NoError(t, err)
	keys := func(table string) [][]any {
		info, err := cl.GetPrimaryKeys(ctx, flightsql.TableRef{Table: table})
		require.NoError(t, err)
		var out [][]any
		for _, b := range readInfo(t, cl, info) {
			require.True(t, b.Schema().Equal(schema_ref.PrimaryKeys))
			for i := 0; i < int(b.NumRows()); i++ {
				require.True(t, b.Column(0).IsNull(i) && b.Column(1).IsNull(i))
				out = append(out, []any{b.Column(2).(*array.String).Value(i), b.Column(3).(*array.String).Value(i),
					b.Column(4).(*array.Int32).Value(i), b.Column(5).(*array.String).Value(i)})
			}
		}
		return out
	}
	require.Equal(t, [][]any{{"pk2", "b", int32(1), "pk2_pkey"}, {"pk2", "a", int32(2), "pk2_pkey"}}, keys("pk2"))
	require.Equal(t, [][]any{{"pk1", "k", int32(1), "pk1_named"}}, keys("pk1"))
	require.Empty(t, keys("nopk"))
	info, err := cl.GetPrimaryKeys(ctx, flightsql.TableRef{Table: "nope"})
	require.NoError(t, err)
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err == nil {
		for r.Next() {
		}
		err = r.Err()
		r.Release()
	}
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)
}

// TestKeysEmpty: a table without constraints answers no primary keys,
// and imported and exported keys and cross references answer no rows
// of the spec's schema (there are no foreign keys), not Unimplemented.
func TestKeysEmpty(t *testing.T) {
	s, cl, _ := testServer(t, Options{})
	ctx := context.Background()
	_, err := s.db.Exec(ctx, `CREATE TABLE t (k BIGINT)`, nil)
	require.NoError(t, err)
	ref := flightsql.TableRef{Table: "t"}
	for _, c := range []struct {
		name   string
		get    func() (*flight.FlightInfo, error)
		schema *arrow.Schema
	}{
		{"primary", func() (*flight.FlightInfo, error) { return cl.GetPrimaryKeys(ctx, ref) }, schema_ref.PrimaryKeys},
		{"imported", func() (*flight.FlightInfo, error) { return cl.GetImportedKeys(ctx, ref) }, schema_ref.ImportedKeys},
		{"exported", func() (*flight.FlightInfo, error) { return cl.GetExportedKeys(ctx, ref) }, schema_ref.ExportedKeys},
		{"cross", func() (*flight.FlightInfo, error) {
			return cl.GetCrossReference(ctx, ref, flightsql.TableRef{Table: "t"})
		}, schema_ref.CrossReference},
	} {
		info, err := c.get()
		require.NoError(t, err, c.name)
		fs, err := flight.DeserializeSchema(info.Schema, memory.DefaultAllocator)
		require.NoError(t, err)
		require.True(t, fs.Equal(c.schema), c.name)
		n := 0
		for _, b := range readInfo(t, cl, info) {
			require.True(t, b.Schema().Equal(c.schema), c.name)
			n += int(b.NumRows())
		}
		require.Zero(t, n, c.name)
	}
}

// TestEndpointLocations: the endpoints of a split take carry the
// server's own URI (then the reuse-connection fallback), and a client
// that dials each location reads its endpoint there; -advertise
// (Options.Location) replaces the URI, and a bad one is a config error.
func TestEndpointLocations(t *testing.T) {
	s, cl, mem, addr := testServerAt(t, Options{MaxEndpoints: 3})
	spreadTable(t, s.db, 20000)
	ctx := context.Background()
	ps, err := cl.Prepare(ctx, `SELECT v.ord, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid`)
	require.NoError(t, err)
	defer ps.Close(ctx)
	ids := randomIDs(8000, 20000, 7)
	info, err := executeIDs(ctx, ps, mem, ids)
	require.NoError(t, err)
	require.Len(t, info.Endpoint, 3)
	rows := 0
	for _, ep := range info.Endpoint {
		require.Len(t, ep.Location, 2)
		require.Equal(t, "grpc://"+addr, ep.Location[0].Uri)
		require.Equal(t, flight.LocationReuseConnection, ep.Location[1].Uri)
		// Dial the location as a client handed only the endpoint would.
		loc, err := flight.NewClientWithMiddleware(strings.TrimPrefix(ep.Location[0].Uri, "grpc://"), nil, nil,
			grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(t, err)
		stream, err := loc.DoGet(ctx, ep.Ticket)
		require.NoError(t, err)
		r, err := flight.NewRecordReader(stream)
		require.NoError(t, err)
		for r.Next() {
			rows += int(r.RecordBatch().NumRows())
		}
		require.NoError(t, r.Err())
		r.Release()
		require.NoError(t, loc.Close())
	}
	require.Equal(t, len(ids), rows)

	// A one-endpoint result keeps no location: it is read where it was
	// asked for.
	info, err = cl.Execute(ctx, `SELECT 1`)
	require.NoError(t, err)
	require.Len(t, info.Endpoint, 1)
	require.Empty(t, info.Endpoint[0].Location)
	readInfo(t, cl, info)

	s2, _, _ := testServer(t, Options{Location: "grpc+tls://db.example.com:443"})
	require.Eventually(t, func() bool { return s2.endpointLocations()[0].Uri == "grpc+tls://db.example.com:443" }, 5*time.Second, time.Millisecond)
	for _, bad := range []string{"db.example.com:443", "http://x:1", "grpc://nohost", "grpc://x:1/path"} {
		_, err := New(nil, Options{Location: bad})
		require.ErrorIs(t, err, ErrConfig, bad)
	}
}
