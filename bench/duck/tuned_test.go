package duck

import (
	"context"
	"testing"

	"github.com/duckdb/duckdb-go/v2/mapping"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/bench/peer"
)

// setting reads a setting's current value from duckdb_settings().
func setting(t *testing.T, db *DB, name string) string {
	t.Helper()
	res, err := db.query("SELECT value FROM duckdb_settings() WHERE name = '" + name + "'")
	require.NoError(t, err)
	defer mapping.DestroyResult(res)
	cols, err := readColumns(res, nil)
	require.NoError(t, err)
	require.Len(t, cols[0].strs, 1, "DuckDB has no setting %s", name)
	return cols[0].strs[0]
}

// TestDefaultsAreDuckDBs checks that Defaults restate what a fresh DuckDB
// runs with, and that Tuned changes exactly those settings, so "default"
// and "tuned" in the report mean what they say.
func TestDefaultsAreDuckDBs(t *testing.T) {
	db, err := Open(1)
	require.NoError(t, err)
	defer db.Close()
	for _, s := range Defaults {
		require.Equal(t, s.Value, setting(t, db, s.Name), s.Name)
	}
	e := db.Engine("tuned").WithSettings(Tuned(100000))
	require.NoError(t, e.Prepare(context.Background()))
	require.Equal(t, "100000", setting(t, db, "dynamic_or_filter_threshold"))
	d := db.Engine("default").WithSettings(Defaults)
	require.NoError(t, d.Prepare(context.Background()))
	for i, s := range Tuned(1) {
		require.Equal(t, s.Name, Defaults[i].Name)
		require.Equal(t, Defaults[i].Value, setting(t, db, s.Name), s.Name)
	}
}

// TestTunedUsesTheIndex checks the point of the tuned variant: with an ART
// on _rowid and the threshold raised, a take of 100 ids is an index scan,
// not a scan of t, and with an ART on k so is an IN-list of 100 keys; at
// the default threshold the take scans t. The answers match the model.
func TestTunedUsesTheIndex(t *testing.T) {
	ctx := context.Background()
	const rows = 200_000
	db, tb := loaded(t, rows, true)
	require.NoError(t, db.IndexK())
	ids, err := peer.IDs(tb, 100, 3)
	require.NoError(t, err)
	keys, err := peer.Keys(tb, rows, 100, 3)
	require.NoError(t, err)
	def := db.Engine("duckdb+ART").WithSettings(Defaults)
	tuned := db.Engine("duckdb+ART+tuned").WithSettings(Tuned(10000))
	model := peer.Model{Generated: rows}
	for _, e := range []*Engine{def, tuned} {
		require.NoError(t, e.Prepare(ctx))
		got, err := e.Run(ctx, peer.Query{Kind: peer.KindContent, IDs: ids})
		require.NoError(t, err)
		require.NoError(t, model.Content(ids).Compare(got), e.Name())
	}
	require.NoError(t, def.Prepare(ctx))
	plan, err := def.Explain(ctx, peer.Query{Kind: peer.KindTake, IDs: ids})
	require.NoError(t, err)
	require.Contains(t, plan, "Sequential Scan, 200000 rows read", "default: %s", plan)
	require.NoError(t, tuned.Prepare(ctx))
	plan, err = tuned.Explain(ctx, peer.Query{Kind: peer.KindTake, IDs: ids})
	require.NoError(t, err)
	require.NotContains(t, plan, "200000 rows read", "tuned take: %s", plan)
	plan, err = tuned.Explain(ctx, peer.Query{Kind: peer.KindInK, Keys: keys})
	require.NoError(t, err)
	require.NotContains(t, plan, "200000 rows read", "tuned IN-list: %s", plan)
	t.Logf("tuned IN-list: %s", plan)
}
