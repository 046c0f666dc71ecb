package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/beam/pipeline"
	"github.com/stablerow/stablerow/engine"
)

// TestTakeOrdIsOneBased runs the srbeam binary's take (a subprocess, on
// Prism in that process) and reads what it wrote: the row of the first id
// in the ids file has ord 1, as SQL's WITH ORDINALITY and the Flight SQL
// server's partitions number it (issue 31 item 8; it was 0), and
// _missing.parquet lists the missing ids' ords in the same numbering.
func TestTakeOrdIsOneBased(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "srbeam")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dbDir := filepath.Join(tmp, "db")
	db, err := engine.Open(dbDir, engine.Options{Create: true})
	require.NoError(t, err)
	for _, q := range []string{
		"CREATE TABLE t (k BIGINT NOT NULL)",
		"INSERT INTO t SELECT g * 10 FROM generate_series(0, 9) AS g(g)", // _rowid g has k = 10 g
	} {
		res, err := db.Exec(ctx, q, nil)
		require.NoError(t, err, q)
		res.Release()
	}
	ids := filepath.Join(tmp, "ids.parquet")
	require.NoError(t, pipeline.WriteIDs(ctx, ids, []uint64{7, 3, 100, 0}, memory.DefaultAllocator))
	out := filepath.Join(tmp, "out")
	cmd := exec.Command(bin, "take", "-db", dbDir, "-table", "t", "-ids", ids, "-out", out, "-columns", "k")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "srbeam take:\n%s", b)

	rows, m, err := pipeline.ReadTakeOutput(ctx, out, memory.DefaultAllocator)
	require.NoError(t, err)
	require.Equal(t, 4, m.IDs)
	// ord i is the i-th id of the file, counted from 1: 7, 3, (100: no row), 0.
	require.Equal(t, pipeline.TakeRows{1: {"70"}, 2: {"30"}, 4: {"0"}}, rows)
	missing, err := pipeline.ReadIDs(ctx, filepath.Join(out, pipeline.MissingName), "ord", memory.DefaultAllocator)
	require.NoError(t, err)
	require.Equal(t, []uint64{3}, missing)
}
