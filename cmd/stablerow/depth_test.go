package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/stablerow/stablerow/internal/deepsql"
)

// deepStatement is one statement too deep to parse.
type deepStatement struct{ name, sql string }

// deepStatements are the statements of issue 32 that killed the process
// (1+1+...+1 of 25,000, 40,000 and 70,000 terms: SIGSEGV in
// libpg_query), and every other operator class nested 25,000 deep.
func deepStatements() []deepStatement {
	var out []deepStatement
	for _, n := range []int{25000, 40000, 70000} {
		out = append(out, deepStatement{fmt.Sprintf("%d terms", n), "SELECT 1" + strings.Repeat("+1", n-1)})
	}
	for c := range deepsql.NumClasses {
		if deepsql.Flat(c, 0) {
			continue
		}
		out = append(out, deepStatement{fmt.Sprintf("%v 25000", c), deepsql.Statement(c, 25000, 0)})
	}
	return out
}

// TestServeDeepStatements: `stablerow serve` as a subprocess answers each
// deep statement (as a query, an update and a prepared statement) with
// InvalidArgument naming the stack depth limit, and keeps serving: a
// SELECT 1 after each returns its row. Before the depth limit the first
// statement killed the server (SIGSEGV) and every later call failed
// with Unavailable.
func TestServeDeepStatements(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	addr := serveProcess(t, "-d", dir, "-create")
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20)))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	wantDepthError := func(what string, err error) {
		t.Helper()
		require.Error(t, err, what)
		require.Equal(t, codes.InvalidArgument, status.Code(err), "%s: %v", what, err)
		require.Contains(t, status.Convert(err).Message(), "stack depth limit exceeded", what)
	}
	selectOne := func(after string) {
		t.Helper()
		info, err := cl.Execute(ctx, "SELECT 1")
		require.NoError(t, err, "SELECT 1 after %s", after)
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		require.NoError(t, err, "SELECT 1 after %s", after)
		require.True(t, rdr.Next())
		require.Equal(t, "[1]", strings.TrimSpace(rdr.RecordBatch().Column(0).String()))
		rdr.Release()
	}
	for i, st := range deepStatements() {
		_, err := cl.Execute(ctx, st.sql)
		wantDepthError(st.name, err)
		selectOne(st.name)
		if i < 3 { // the statements through the other two entry points
			_, err = cl.ExecuteUpdate(ctx, st.sql)
			wantDepthError(st.name+" (update)", err)
			// Preparing parses and plans (for the parameter schema), as
			// PostgreSQL's PREPARE does: the depth error comes there.
			_, err = cl.Prepare(ctx, st.sql)
			wantDepthError(st.name+" (prepared)", err)
			selectOne(st.name + " (update, prepared)")
		}
	}
}

// TestCLIDeepStatements: `stablerow sql -e` with a deep statement prints
// the stack depth error and exits 1 (a statement failed), and so does a
// script piped to the prompt (the 70,000-term statement is longer than
// one command-line argument may be). Before the depth limit the process
// died with SIGSEGV (exit 2, Go's fatal signal status).
func TestCLIDeepStatements(t *testing.T) {
	dir := newDB(t)
	for _, st := range deepStatements() {
		var r result
		if len(st.sql) < 100000 {
			r = cli(t, "", "sql", "-d", dir, "-e", "SELECT 2; "+st.sql)
		} else {
			r = cli(t, "SELECT 2;\n"+st.sql+";\n", "sql", "-d", dir)
		}
		require.Equal(t, 1, r.code, "%s: stderr %s", st.name, r.stderr)
		require.Contains(t, r.stderr, "stack depth limit exceeded", st.name)
		require.NotContains(t, r.stderr, "SIGSEGV", st.name)
		require.Empty(t, r.stdout, st.name) // the script is refused whole: the statement before it did not run
	}
}
