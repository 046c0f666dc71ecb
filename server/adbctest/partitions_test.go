package adbctest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/server"
)

// takeQuery is the seed query without ORDER BY: the shape the server
// splits into endpoints (ADBC's partitions) by fragment (with ORDER BY it
// keeps one ordered endpoint). ord is in every row.
const takeQuery = `SELECT v.ord, v.rowid, t._rowaddr, t.k, t.s FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
	LEFT JOIN t ON t._rowid = v.rowid`

const spreadRows = 40000

// spreadTable makes t through the server so that its rows spread over
// many fragments: eight appends (the _rowid index built after four), then
// updates (the rows move to new fragments) and deletes.
func spreadTable(t *testing.T, cn adbc.Connection) {
	t.Helper()
	exec(t, cn, "CREATE TABLE t (k BIGINT NOT NULL, s TEXT)")
	step := spreadRows / 8
	for lo := 0; lo < spreadRows; lo += step {
		exec(t, cn, fmt.Sprintf("INSERT INTO t SELECT g, 's' || g FROM generate_series(%d, %d) AS g(g)", lo, lo+step-1))
		if lo == 4*step {
			exec(t, cn, "CREATE INDEX rid ON t USING btree (_rowid)")
		}
	}
	exec(t, cn, "UPDATE t SET s = 'u' || k WHERE k % 7 = 0")
	exec(t, cn, "DELETE FROM t WHERE k % 11 = 0")
	exec(t, cn, "UPDATE t SET k = k + 1000000 WHERE k % 13 = 0")
}

// spreadIds are n ids: mostly live rows, some deleted, past the end or
// negative, with repeats.
func spreadIds(n int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 2))
	ids := make([]int64, n)
	for i := range ids {
		switch x := r.IntN(100); {
		case x < 3:
			ids[i] = -1 - r.Int64N(5)
		case x < 6:
			ids[i] = spreadRows + r.Int64N(100)
		case x < 10 && i > 0:
			ids[i] = ids[r.IntN(i)]
		default:
			ids[i] = r.Int64N(spreadRows)
		}
	}
	return ids
}

// inProcess is the engine's own answer to q with ids bound, ordered by
// ord: the oracle the partitions' union must equal.
func inProcess(t *testing.T, db *engine.DB, q string, ids []int64) [][]any {
	t.Helper()
	rows, err := db.Query(context.Background(), q+" ORDER BY v.ord", engine.PositionalParams([]any{ids}))
	require.NoError(t, err)
	return rowsOf(t, rows)
}

// byOrd orders rows on their first column, ord.
func byOrd(rows [][]any) [][]any {
	slices.SortStableFunc(rows, func(a, b []any) int { return int(a[0].(int64) - b[0].(int64)) })
	return rows
}

// TestPartitionedTake: a take of 10K ids over a table whose rows spread
// over many fragments comes back from ExecutePartitions as several
// partitions; read with ReadPartition on several goroutines (each on a
// connection of its own, as distributed readers would), their union,
// ordered by ord, is the engine's answer row for row. Each partition reads
// once.
func TestPartitionedTake(t *testing.T) {
	ts := startServer(t, server.Options{MaxEndpoints: 4})
	cn := mustConnect(t, ts.uri, nil)
	spreadTable(t, cn)
	ids := spreadIds(10000, 1)
	st := prepared(t, cn, takeQuery, int64Column(ids))
	schema, parts, n, err := st.ExecutePartitions(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"ord", "rowid", "_rowaddr", "k", "s"}, fieldNames(schema))
	require.Equal(t, uint64(4), parts.NumPartitions)
	want := inProcess(t, ts.db, takeQuery, ids)
	require.Equal(t, int64(len(want)), n, "FlightInfo's total_records")

	got := make([][][]any, len(parts.PartitionIDs))
	errs := make([]error, len(parts.PartitionIDs))
	var wg sync.WaitGroup
	for i, p := range parts.PartitionIDs {
		wg.Go(func() {
			c, err := connect(t, ts.uri, nil)
			if err != nil {
				errs[i] = err
				return
			}
			rdr, err := c.ReadPartition(context.Background(), p)
			if err != nil {
				errs[i] = err
				return
			}
			got[i], errs[i] = rowsErr(t, rdr)
		})
	}
	wg.Wait()
	var all [][]any
	for i := range got {
		require.NoError(t, errs[i], "partition %d", i)
		require.NotEmpty(t, got[i], "partition %d", i)
		all = append(all, got[i]...)
	}
	require.Equal(t, len(want), len(all))
	require.Equal(t, want, byOrd(all))

	_, err = cn.ReadPartition(context.Background(), parts.PartitionIDs[1])
	requireCode(t, err, codes.NotFound)
}

// TestPartitionTicketForged: a partition whose ticket was altered is
// refused with InvalidArgument, and the others still read.
func TestPartitionTicketForged(t *testing.T) {
	ts := startServer(t, server.Options{MaxEndpoints: 2})
	cn := mustConnect(t, ts.uri, nil)
	spreadTable(t, cn)
	st := prepared(t, cn, takeQuery, int64List(spreadIds(8000, 2)))
	_, parts, _, err := st.ExecutePartitions(context.Background())
	require.NoError(t, err)
	require.Equal(t, uint64(2), parts.NumPartitions)
	// A partition is a serialized FlightInfo of one endpoint, whose
	// ticket ends with the signature: flip its last bit.
	var info flight.FlightInfo
	require.NoError(t, proto.Unmarshal(parts.PartitionIDs[0], &info))
	tk := info.Endpoint[0].Ticket.Ticket
	tk[len(tk)-1] ^= 1
	p, err := proto.Marshal(&info)
	require.NoError(t, err)
	rdr, err := cn.ReadPartition(context.Background(), p)
	if err == nil {
		_, err = rowsErr(t, rdr)
	}
	requireCode(t, err, codes.InvalidArgument, "endpoint ticket")
	for _, p := range parts.PartitionIDs {
		rdr, err := cn.ReadPartition(context.Background(), p)
		require.NoError(t, err)
		require.NotEmpty(t, rowsOf(t, rdr))
	}
}
