package adbctest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-adbc/go/adbc/driver/flightsql"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/server"
)

// docSnippet is docs/flight-sql.md's Go ADBC example, verbatim between
// the markers but for the server address (uri here, the default
// address there); TestDocsGoSnippet checks the two are the same text and
// runs it. It returns what the example computes: the rows deleted, the
// partitions, the last error.
func docSnippet(ctx context.Context, uri string, manyIDs arrow.RecordBatch, use func(arrow.RecordBatch)) (int64, int, error) {
	// snippet:begin
	drv := flightsql.NewDriver(memory.DefaultAllocator)
	db, _ := drv.NewDatabase(map[string]string{
		adbc.OptionKeyURI: uri,
		// adbc.OptionKeyUsername: "alice", adbc.OptionKeyPassword: "s3cret",
		// flightsql.OptionAuthorizationHeader: "Bearer TOKEN",
		// flightsql.OptionSSLRootCerts: string(pemBytes),          // with grpc+tls://
	})
	defer db.Close()
	cn, _ := db.Open(ctx)
	defer cn.Close()

	st, _ := cn.NewStatement()
	defer st.Close()
	st.SetSqlQuery(`SELECT v.ord, t._rowaddr, t.k FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
		LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`)
	st.Prepare(ctx)

	b := array.NewInt64Builder(memory.DefaultAllocator) // the ids as a column, one row per id
	b.AppendValues([]int64{5, 3, 99999999, 5}, nil)
	ids := b.NewArray()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "ids", Type: arrow.PrimitiveTypes.Int64}}, nil),
		[]arrow.Array{ids}, int64(ids.Len()))
	st.Bind(ctx, rec)

	rdr, _, err := st.ExecuteQuery(ctx) // an array.RecordReader
	for rdr.Next() {
		use(rdr.RecordBatch())
	}
	err = rdr.Err() // a *adbc.Error; VendorCode is the gRPC code
	rdr.Release()

	// A large take without ORDER BY comes in partitions (one per group of
	// fragments); read them anywhere, at once, and sort on ord if the order
	// matters.
	pt, _ := cn.NewStatement()
	defer pt.Close()
	pt.SetSqlQuery(`SELECT v.ord, t._rowaddr, t.k FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
		LEFT JOIN t ON t._rowid = v.rowid`)
	pt.Prepare(ctx)
	pt.Bind(ctx, manyIDs) // e.g. 1M ids, bound as above
	_, parts, _, err := pt.ExecutePartitions(ctx)
	var wg sync.WaitGroup
	for _, p := range parts.PartitionIDs {
		wg.Go(func() {
			r, err := cn.ReadPartition(ctx, p) // or on another connection, another machine
			if err != nil {
				return
			}
			defer r.Release()
			for r.Next() {
				use(r.RecordBatch())
			}
		})
	}
	wg.Wait()

	up, _ := cn.NewStatement()
	defer up.Close()
	up.SetSqlQuery("DELETE FROM t WHERE k < 10")
	n, err := up.ExecuteUpdate(ctx) // rows affected
	// snippet:end
	return n, len(parts.PartitionIDs), err
}

// TestDocsGoSnippet: the Go example of docs/flight-sql.md is docSnippet's
// code, and it runs against a server: the take by id answers as the
// engine does, the partitioned take comes in several partitions whose
// union (ordered by ord) is the engine's answer, and the DELETE reports
// the rows it deleted.
func TestDocsGoSnippet(t *testing.T) {
	doc, err := os.ReadFile("../../docs/flight-sql.md")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(doc), "```go\n")
	require.True(t, ok, "docs/flight-sql.md has no go block")
	block, _, _ = strings.Cut(block, "```\n")
	_, body, ok := strings.Cut(block, ")\n\n") // after the import block
	require.True(t, ok)
	src, err := os.ReadFile("docs_test.go")
	require.NoError(t, err)
	_, code, _ := strings.Cut(string(src), "\t// snippet:begin\n")
	code, _, _ = strings.Cut(code, "\t// snippet:end\n")
	var lines []string
	for _, l := range strings.Split(code, "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	require.Equal(t, strings.ReplaceAll(body, `"grpc://127.0.0.1:31337"`, "uri"), strings.Join(lines, "\n"),
		"docs/flight-sql.md's Go example and docSnippet differ")

	ts := startServer(t, server.Options{})
	cn := mustConnect(t, ts.uri, nil)
	spreadTable(t, cn)
	deleted := query(t, cn, "SELECT CAST(count(*) AS BIGINT) FROM t WHERE k < 10")[0][0].(int64)
	require.Positive(t, deleted)
	few := []int64{5, 3, 99999999, 5}
	wantFew := inProcess(t, ts.db, `SELECT v.ord, t._rowaddr, t.k FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
		LEFT JOIN t ON t._rowid = v.rowid`, few)
	ids := spreadIds(8000, 9)
	wantMany := inProcess(t, ts.db, `SELECT v.ord, t._rowaddr, t.k FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
		LEFT JOIN t ON t._rowid = v.rowid`, ids)
	many := int64Column(ids)
	defer many.Release()

	var (
		mu  sync.Mutex
		got [][]any
	)
	use := func(b arrow.RecordBatch) {
		rdr, err := array.NewRecordReader(b.Schema(), []arrow.RecordBatch{b})
		if err != nil {
			panic(err)
		}
		rows, err := rowsErr(t, rdr)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			got = append(got, []any{fmt.Sprint(err)})
		}
		got = append(got, rows...)
	}
	n, nparts, err := docSnippet(context.Background(), ts.uri, many, use)
	require.NoError(t, err)
	require.Equal(t, deleted, n)
	require.Greater(t, nparts, 1)
	require.GreaterOrEqual(t, len(got), len(few))
	require.Equal(t, wantFew, got[:len(few)])
	require.Equal(t, wantMany, byOrd(got[len(few):]))
}
