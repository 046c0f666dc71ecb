package adbctest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"

	"github.com/stablerow/stablerow/server"
)

const seedQuery = `SELECT v.ord, v.rowid, t.k FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
	LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`

// nRows rows of t: row id g holds k = 10*g; the rows of id < nDeleted
// are deleted. So the oracle of the seed query is arithmetic.
const (
	nRows    = 20000
	nDeleted = 10
)

// seedTable makes t through the server (DDL and DML by ExecuteUpdate).
func seedTable(t *testing.T, cn adbc.Connection) {
	t.Helper()
	exec(t, cn, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT)")
	require.Equal(t, int64(nRows), exec(t, cn, fmt.Sprintf("INSERT INTO t SELECT g * 10, 'row' FROM generate_series(0, %d) AS g(g)", nRows-1)))
	exec(t, cn, "CREATE INDEX rid ON t USING btree (_rowid)")
	require.Equal(t, int64(nDeleted), exec(t, cn, fmt.Sprintf("DELETE FROM t WHERE k < %d", 10*nDeleted)))
}

// oracle is what PostgreSQL answers for the seed query over t: one row per
// id in order, k = 10*id for a live row, NULL otherwise.
func oracle(ids []int64) [][]any {
	out := make([][]any, len(ids))
	for i, id := range ids {
		var k any
		if id >= nDeleted && id < nRows {
			k = 10 * id
		}
		out[i] = []any{int64(i + 1), id, k}
	}
	return out
}

// someIds are n ids with repeats, misses (negative, deleted, past the
// end) and hits, in no order.
func someIds(n int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 1))
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = r.Int64N(nRows+200) - 100
	}
	return ids
}

// TestSeedQueryBoundIds: the seed query with 10K ids bound through
// Prepare/Bind, as one list<int64> and as an int64 column, answers as the
// oracle; executing again without a new Bind reuses the bound ids.
func TestSeedQueryBoundIds(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	seedTable(t, cn)
	ids := someIds(10000, 1)
	st, err := cn.NewStatement()
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.SetSqlQuery(seedQuery))
	require.NoError(t, st.Prepare(context.Background()))
	for _, b := range []arrow.RecordBatch{int64List(ids), int64Column(ids)} {
		require.NoError(t, st.Bind(context.Background(), b))
		b.Release()
		rdr, _, err := st.ExecuteQuery(context.Background())
		require.NoError(t, err)
		require.Equal(t, oracle(ids), rowsOf(t, rdr))
	}
	rdr, _, err := st.ExecuteQuery(context.Background())
	require.NoError(t, err)
	require.Equal(t, oracle(ids), rowsOf(t, rdr))
}

// TestExecuteUpdate: DDL and DML through ExecuteUpdate report the rows
// they affected, plain and prepared with a bound parameter, and the
// queries after see them.
func TestExecuteUpdate(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	require.Equal(t, int64(0), exec(t, cn, "CREATE TABLE u (k BIGINT NOT NULL, s TEXT)"))
	require.Equal(t, int64(5), exec(t, cn, "INSERT INTO u SELECT g, 'a' FROM generate_series(1, 5) AS g(g)"))
	require.Equal(t, int64(2), exec(t, cn, "UPDATE u SET s = 'b' WHERE k > 3"))
	require.Equal(t, int64(1), exec(t, cn, "DELETE FROM u WHERE k = 1"))

	st := prepared(t, cn, "DELETE FROM u WHERE k = $1", int64Column([]int64{2}))
	n, err := st.ExecuteUpdate(context.Background())
	require.NoError(t, err)
	require.Equal(t, int64(1), n)

	require.Equal(t, [][]any{{int64(3), "a"}, {int64(4), "b"}, {int64(5), "b"}}, query(t, cn, "SELECT k, s FROM u ORDER BY k"))
	// A query through ExecuteUpdate runs and affects nothing.
	require.Equal(t, int64(0), exec(t, cn, "SELECT k FROM u"))
}

// TestSubstraitPlan: an outside producer's Substrait plan of the seed
// query (testdata/substrait/seed_take.json, JSON; a binary plan works the
// same) through SetSubstraitPlan, prepared with the ids bound, answers as
// the SQL seed query does (ord, _rowaddr NULL exactly where the oracle
// has no row); a plan needing parameters executed without them is
// InvalidArgument.
func TestSubstraitPlan(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	seedTable(t, cn)
	plan, err := os.ReadFile(filepath.Join("..", "..", "testdata", "substrait", "seed_take.json"))
	require.NoError(t, err)
	ids := someIds(2000, 2)

	st, err := cn.NewStatement()
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.SetSubstraitPlan(plan))
	require.NoError(t, st.Prepare(context.Background()))
	b := int64List(ids)
	require.NoError(t, st.Bind(context.Background(), b))
	b.Release()
	rdr, _, err := st.ExecuteQuery(context.Background())
	require.NoError(t, err)
	got := rowsOf(t, rdr)

	want := oracle(ids)
	require.Len(t, got, len(want))
	for i, r := range got {
		require.Equal(t, want[i][0], r[0])
		require.Equal(t, want[i][2] == nil, r[1] == nil, "row %d id %d", i, ids[i])
	}
	// The same through SQL.
	sq := prepared(t, cn, `SELECT v.ord, t._rowaddr FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord)
		LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`, int64Column(ids))
	rdr, _, err = sq.ExecuteQuery(context.Background())
	require.NoError(t, err)
	require.Equal(t, rowsOf(t, rdr), got)

	plain, err := cn.NewStatement()
	require.NoError(t, err)
	defer plain.Close()
	require.NoError(t, plain.SetSubstraitPlan(plan))
	_, _, err = plain.ExecuteQuery(context.Background())
	requireCode(t, err, codes.InvalidArgument, "parameter $1")

	// A plan without parameters executes as it is (the plan SQL lowers
	// to, in protobuf JSON), as a query and through ExecuteUpdate.
	js, _, err := ts.db.SubstraitOf(context.Background(), "SELECT k FROM t WHERE k < 130 ORDER BY k")
	require.NoError(t, err)
	require.NoError(t, plain.SetSubstraitPlan(js))
	rdr, _, err = plain.ExecuteQuery(context.Background())
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(100)}, {int64(110)}, {int64(120)}}, rowsOf(t, rdr))
	n, err := plain.ExecuteUpdate(context.Background())
	require.NoError(t, err)
	require.Equal(t, int64(0), n)
}

// TestPartitionedRead: ExecutePartitions hands out the result's endpoints
// and another connection reads them with ReadPartition. Each result is one
// endpoint today (see package server); its ticket reads once.
func TestPartitionedRead(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	seedTable(t, cn)
	ids := someIds(5000, 3)
	st := prepared(t, cn, seedQuery, int64List(ids))
	schema, parts, _, err := st.ExecutePartitions(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"ord", "rowid", "k"}, fieldNames(schema))
	require.Equal(t, uint64(1), parts.NumPartitions)

	other := mustConnect(t, ts.uri, nil)
	var got [][]any
	for _, p := range parts.PartitionIDs {
		rdr, err := other.ReadPartition(context.Background(), p)
		require.NoError(t, err)
		got = append(got, rowsOf(t, rdr)...)
	}
	require.Equal(t, oracle(ids), got)
	_, err = other.ReadPartition(context.Background(), parts.PartitionIDs[0])
	if err == nil {
		t.Fatal("a partition read twice")
	}
	requireCode(t, err, codes.NotFound, "no such result")
}

func fieldNames(s *arrow.Schema) []string {
	var out []string
	for _, f := range s.Fields() {
		out = append(out, f.Name)
	}
	return out
}

// TestCatalogCalls: what clients ask on connect and to browse.
func TestCatalogCalls(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	seedTable(t, cn)
	exec(t, cn, "CREATE TABLE other (x TEXT)")
	ctx := context.Background()

	rdr, err := cn.GetInfo(ctx, []adbc.InfoCode{adbc.InfoVendorName, adbc.InfoVendorVersion})
	require.NoError(t, err)
	info := rowsOf(t, rdr)
	require.Len(t, info, 2)
	require.Contains(t, fmt.Sprint(info), "stablerow")

	rdr, err = cn.GetTableTypes(ctx)
	require.NoError(t, err)
	// Views are relations of their own table type (issue 29 item 4).
	require.Equal(t, [][]any{{"TABLE"}, {"VIEW"}}, rowsOf(t, rdr))

	s, err := cn.GetTableSchema(ctx, nil, nil, "t")
	require.NoError(t, err)
	require.Equal(t, []string{"k", "s"}, fieldNames(s))
	require.Equal(t, arrow.PrimitiveTypes.Int64, s.Field(0).Type)
	_, err = cn.GetTableSchema(ctx, nil, nil, "nope")
	require.Error(t, err)

	rdr, err = cn.GetObjects(ctx, adbc.ObjectDepthTables, nil, nil, nil, nil, nil)
	require.NoError(t, err)
	objs := fmt.Sprint(rowsOf(t, rdr))
	require.Contains(t, objs, "other")
}

// TestErrorCodes: each kind of failure reaches the client as its gRPC code
// with a message that says what went wrong.
func TestErrorCodes(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	seedTable(t, cn)

	_, err := queryErr(t, cn, "SELECT k FROM t WHERE")
	requireCode(t, err, codes.InvalidArgument, "syntax", "line 1, column")
	_, err = execErr(cn, "SELEC 1")
	requireCode(t, err, codes.InvalidArgument, "line 1, column 1")
	_, err = queryErr(t, cn, "SELECT k FROM missing")
	requireCode(t, err, codes.NotFound, "missing")
	_, err = execErr(cn, "DELETE FROM missing")
	requireCode(t, err, codes.NotFound, "missing")
	_, err = queryErr(t, cn, "SELECT k + 9223372036854775807 FROM t")
	requireCode(t, err, codes.OutOfRange, "bigint out of range")

	// A bad parameter: a column of several ids where one value is wanted.
	st := prepared(t, cn, "SELECT k FROM t WHERE k = $1", int64Column([]int64{1, 2}))
	_, _, err = st.ExecuteQuery(context.Background())
	requireCode(t, err, codes.InvalidArgument, "parameter $1")

	// Corruption: a bit flipped in the middle of a data file of a table.
	exec(t, cn, "CREATE TABLE bad (k BIGINT NOT NULL)")
	exec(t, cn, "INSERT INTO bad SELECT g FROM generate_series(1, 1000) AS g(g)")
	files, err := filepath.Glob(filepath.Join(ts.dir, "bad", "data", "*.arrow"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		flip(t, f)
	}
	_, err = queryErr(t, cn, "SELECT count(k) FROM bad")
	requireCode(t, err, codes.DataLoss, "corrupt")

	// A conflict: concurrent UPDATEs of the same rows; the losers are
	// Aborted (retry) and no update is lost.
	exec(t, cn, "CREATE TABLE w (k BIGINT NOT NULL)")
	exec(t, cn, "INSERT INTO w VALUES (0)")
	var (
		mu      sync.Mutex
		ok      int64
		aborted []error
	)
	for round := 0; round < 30 && len(aborted) == 0; round++ {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				c := mustConnect(t, ts.uri, nil)
				_, err := execErr(c, "UPDATE w SET k = k + 1")
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					ok++
				} else {
					aborted = append(aborted, err)
				}
			})
		}
		wg.Wait()
	}
	require.NotEmpty(t, aborted, "no concurrent UPDATE conflicted")
	for _, err := range aborted {
		requireCode(t, err, codes.Aborted)
	}
	require.Equal(t, [][]any{{ok}}, query(t, cn, "SELECT k FROM w"))
}

func flip(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(t, err)
	b := make([]byte, 1)
	_, err = f.ReadAt(b, fi.Size()/2)
	require.NoError(t, err)
	b[0] ^= 0x08
	_, err = f.WriteAt(b, fi.Size()/2)
	require.NoError(t, err)
}

// TestAuth: with users and tokens configured, a client without
// credentials, with a wrong password or a wrong token is Unauthenticated;
// the right password (Basic in a Handshake, then the bearer token it
// issued) and a configured bearer token work.
func TestAuth(t *testing.T) {
	// A nanosecond's delay after a failed login: these attempts come one
	// after another from one address (TestAuthFailureDelay has the default).
	ts := startServer(t, server.Options{Auth: &server.Auth{Users: map[string]string{"alice": "s3cret"}, Tokens: []string{"tok-1"},
		FailDelay: time.Nanosecond, FailMaxDelay: time.Nanosecond}})
	// Probed with a query: its GetFlightInfo is a unary call, which always
	// brings the server's status back. (arrow-go's client ExecuteUpdate
	// returns the io.EOF of its Send when the server refused the DoPut
	// before reading it, instead of receiving the status.)
	try := func(opts map[string]string) error {
		cn, err := connect(t, ts.uri, opts)
		if err != nil {
			return err
		}
		_, err = queryErr(t, cn, "SELECT 1")
		return err
	}
	requireCode(t, try(nil), codes.Unauthenticated)
	requireCode(t, try(map[string]string{adbc.OptionKeyUsername: "alice", adbc.OptionKeyPassword: "wrong"}), codes.Unauthenticated, "invalid user name or password")
	requireCode(t, try(map[string]string{adbc.OptionKeyUsername: "bob", adbc.OptionKeyPassword: "s3cret"}), codes.Unauthenticated)
	requireCode(t, try(map[string]string{"adbc.flight.sql.authorization_header": "Bearer tok-2"}), codes.Unauthenticated, "bearer token")
	require.NoError(t, try(map[string]string{adbc.OptionKeyUsername: "alice", adbc.OptionKeyPassword: "s3cret"}))
	require.NoError(t, try(map[string]string{"adbc.flight.sql.authorization_header": "Bearer tok-1"}))
}

// TestAuthFailureDelay: after a wrong password, an ADBC client logging in
// from the same address, even with the right password, is refused with
// ResourceExhausted until the delay has passed.
func TestAuthFailureDelay(t *testing.T) {
	ts := startServer(t, server.Options{Auth: &server.Auth{Users: map[string]string{"alice": "s3cret"}, FailDelay: time.Minute}})
	try := func(pw string) error {
		cn, err := connect(t, ts.uri, map[string]string{adbc.OptionKeyUsername: "alice", adbc.OptionKeyPassword: pw})
		if err != nil {
			return err
		}
		_, err = queryErr(t, cn, "SELECT 1")
		return err
	}
	requireCode(t, try("wrong"), codes.Unauthenticated, "retry in 1m0s")
	requireCode(t, try("s3cret"), codes.ResourceExhausted, "too many failed authentications")
}

// TestConcurrentClients: readers take rows by id while writers append to
// the same table and update another; every reader's answer is the
// oracle's (appends do not change the rows read), every writer's
// statement commits or is Aborted, and no committed update is lost.
func TestConcurrentClients(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	seedTable(t, cn)
	exec(t, cn, "CREATE TABLE w (k BIGINT NOT NULL)")
	exec(t, cn, "INSERT INTO w VALUES (0)")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		updates int64
		errs    []string
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err.Error())
		mu.Unlock()
	}
	for r := range 6 {
		wg.Go(func() {
			c := mustConnect(t, ts.uri, nil)
			st, err := c.NewStatement()
			if err != nil {
				fail(err)
				return
			}
			defer st.Close()
			if err := st.SetSqlQuery(seedQuery); err != nil {
				fail(err)
				return
			}
			if err := st.Prepare(context.Background()); err != nil {
				fail(err)
				return
			}
			for i := range 5 {
				ids := someIds(1000, uint64(100*r+i))
				for j, id := range ids { // ids past the end get rows as writers append
					ids[j] = min(id, nRows-1)
				}
				b := int64List(ids)
				err := st.Bind(context.Background(), b)
				b.Release()
				if err != nil {
					fail(err)
					return
				}
				rdr, _, err := st.ExecuteQuery(context.Background())
				if err != nil {
					fail(err)
					return
				}
				if got := rowsOf(t, rdr); !slices.EqualFunc(got, oracle(ids), func(a, b []any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
					fail(fmt.Errorf("reader %d query %d: wrong answer", r, i))
				}
			}
		})
	}
	for range 3 {
		wg.Go(func() {
			c := mustConnect(t, ts.uri, nil)
			for range 5 {
				if _, err := execErr(c, "INSERT INTO t VALUES (-1, 'new')"); err != nil && !isAborted(err) {
					fail(err)
				}
				_, err := execErr(c, "UPDATE w SET k = k + 1")
				switch {
				case err == nil:
					mu.Lock()
					updates++
					mu.Unlock()
				case !isAborted(err):
					fail(err)
				}
			}
		})
	}
	wg.Wait()
	require.Empty(t, errs)
	require.Equal(t, [][]any{{updates}}, query(t, cn, "SELECT k FROM w"))
}

func isAborted(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Aborted")
}

// TestLargeBind: 600K ids bound as one list are one 4.8 MB message, over
// gRPC's default limit of 4 MiB a server must lift.
func TestLargeBind(t *testing.T) {
	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	seedTable(t, cn)
	ids := someIds(600000, 4)
	st := prepared(t, cn, seedQuery, int64List(ids))
	rdr, _, err := st.ExecuteQuery(context.Background())
	require.NoError(t, err)
	got, want := rowsOf(t, rdr), oracle(ids)
	require.Len(t, got, len(want))
	for i := range want { // testify's Equal is slow on 600K rows
		if got[i][0] != want[i][0] || got[i][1] != want[i][1] || got[i][2] != want[i][2] {
			t.Fatalf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
}
