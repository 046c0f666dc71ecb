package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// The fixture of the tests that run `stablerow serve` as a subprocess and
// talk to it with arrow-go's Flight SQL client: start it, dial it, fill a
// table of several fragments, bind a take's ids, count what comes back.

// servedProcess is `stablerow serve` run as a subprocess: its address,
// its pid (to read its memory from /proc) and its standard error.
type servedProcess struct {
	addr string
	pid  int
	log  *serverLog
}

// serverLog is a serve subprocess's standard error, as read so far.
type serverLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *serverLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// serveProcess starts the binary as `stablerow serve ARGS -addr
// 127.0.0.1:0` and returns the address it reports; the process is
// stopped (SIGINT, as a user would) when the test ends.
func serveProcess(t *testing.T, args ...string) string {
	t.Helper()
	return startServe(t, nil, args...).addr
}

// serveLogged is serveProcess with extra environment variables that also
// returns the server's standard error (its log).
func serveLogged(t *testing.T, env []string, args ...string) (string, *serverLog) {
	t.Helper()
	sp := startServe(t, env, args...)
	return sp.addr, sp.log
}

// startServe starts `stablerow serve ARGS -addr 127.0.0.1:0` with env added
// to the test's environment (STABLEROW_DEBUG cleared) and returns its
// address, pid and log; the process is stopped (SIGINT) when the test
// ends, killed if it has not exited 30 s later.
func startServe(t *testing.T, env []string, args ...string) servedProcess {
	t.Helper()
	cmd := exec.Command(bin, append(append([]string{"serve"}, args...), "-addr", "127.0.0.1:0")...)
	cmd.Env = append(append(os.Environ(), "STABLEROW_DEBUG="), env...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan struct{}) // closed once the process is gone
	var werr error
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	log := &serverLog{}
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving Flight SQL on grpc://(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.mu.Lock()
			log.lines = append(log.lines, sc.Text())
			log.mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		werr = cmd.Wait()
		close(exited)
	}()
	select {
	case a := <-addr:
		return servedProcess{addr: a, pid: cmd.Process.Pid, log: log}
	case <-exited:
		t.Fatalf("serve exited before listening: %v\n%s", werr, log)
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not report its address")
	}
	return servedProcess{}
}

// flightClient dials addr without TLS; the client is closed when the
// test ends.
func flightClient(t *testing.T, addr string) *flightsql.Client {
	t.Helper()
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { cl.Close() })
	return cl
}

// countRows reads every endpoint of info through cl and counts its rows.
func countRows(t *testing.T, cl *flightsql.Client, info *flight.FlightInfo) int {
	t.Helper()
	n := 0
	for _, ep := range info.Endpoint {
		r, err := cl.DoGet(context.Background(), ep.Ticket)
		require.NoError(t, err)
		for r.Next() {
			n += int(r.RecordBatch().NumRows())
		}
		require.NoError(t, r.Err())
		r.Release()
	}
	return n
}

// fillTable creates table t (columns, as CREATE TABLE spells them) and
// inserts g = 0..n-1 as rows (selectList over generate_series's g), per
// rows to an INSERT so that the table has n/per fragments: the takes of
// the split tests span fragments.
func fillTable(t *testing.T, cl *flightsql.Client, columns, selectList string, n, per int) {
	t.Helper()
	ctx := context.Background()
	_, err := cl.ExecuteUpdate(ctx, "CREATE TABLE t ("+columns+")")
	require.NoError(t, err)
	for lo := 0; lo < n; lo += per {
		_, err = cl.ExecuteUpdate(ctx, fmt.Sprintf("INSERT INTO t SELECT %s FROM generate_series(%d, %d) AS g(g)", selectList, lo, lo+per-1))
		require.NoError(t, err)
	}
}

// takeStatement is the take the split tests prepare: bound row ids in, one
// row (ord, rowid, k) per id out.
const takeStatement = `SELECT v.ord, v.rowid, t.k FROM UNNEST($1) WITH ORDINALITY AS v(rowid, ord) JOIN t ON t._rowid = v.rowid`

// executeTake binds ids as ps's one parameter (a column "ids" of a
// one-row-per-id batch) and executes it, returning its endpoints.
func executeTake(t *testing.T, ps *flightsql.PreparedStatement, ids []int64) *flight.FlightInfo {
	t.Helper()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(ids, nil)
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "ids", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, int64(len(ids)))
	defer rec.Release()
	ps.SetParameters(rec)
	info, err := ps.Execute(context.Background())
	require.NoError(t, err)
	return info
}
