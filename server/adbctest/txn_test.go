package adbctest

import (
	"context"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/server"
)

// TestAutocommitOff: ADBC's autocommit=false runs a connection's
// statements in a Flight SQL transaction (the driver begins one as
// GetSqlInfo says transactions are supported): another connection sees
// its writes only after Commit, and nothing after Rollback.
func TestAutocommitOff(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, server.Options{})
	other := mustConnect(t, ts.uri, nil)
	exec(t, other, "CREATE TABLE u (k BIGINT)")
	cn := mustConnect(t, ts.uri, nil)
	require.NoError(t, cn.(adbc.PostInitOptions).SetOption(adbc.OptionKeyAutoCommit, adbc.OptionValueDisabled))
	require.Equal(t, int64(2), exec(t, cn, "INSERT INTO u VALUES (1), (2)"))
	require.Equal(t, [][]any{{int64(2)}}, query(t, cn, "SELECT count(*) FROM u"))
	require.Equal(t, [][]any{{int64(0)}}, query(t, other, "SELECT count(*) FROM u"))
	require.NoError(t, cn.Commit(ctx))
	require.Equal(t, [][]any{{int64(2)}}, query(t, other, "SELECT count(*) FROM u"))

	require.Equal(t, int64(2), exec(t, cn, "DELETE FROM u"))
	require.Equal(t, [][]any{{int64(0)}}, query(t, cn, "SELECT count(*) FROM u"))
	require.NoError(t, cn.Rollback(ctx))
	require.Equal(t, [][]any{{int64(2)}}, query(t, other, "SELECT count(*) FROM u"))
	require.Equal(t, [][]any{{int64(2)}}, query(t, cn, "SELECT count(*) FROM u"))
}
