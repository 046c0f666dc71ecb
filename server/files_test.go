package server

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
)

// TestFilesRefusedWithoutRoot: a server started without -files refuses
// COPY even to a plain relative name, though the engine alone would
// allow it.
func TestFilesRefusedWithoutRoot(t *testing.T) {
	ctx := context.Background()
	_, cl, _ := testServer(t, Options{})
	_, err := cl.ExecuteUpdate(ctx, "CREATE TABLE t (k BIGINT)")
	require.NoError(t, err)
	wd := t.TempDir()
	t.Chdir(wd)
	for _, q := range []string{"COPY t TO 'x.csv'", "COPY t FROM 'x.csv'", "COPY (SELECT 1 AS k) TO 'y.parquet'"} {
		_, err = cl.ExecuteUpdate(ctx, q)
		require.Equal(t, codes.PermissionDenied, code(err), "%s: %v", q, err)
	}
	_, err = os.Stat(filepath.Join(wd, "x.csv"))
	require.True(t, os.IsNotExist(err), "a refused COPY wrote a file")
}

// TestFilesInsideRoot: with -files DIR, names resolve inside DIR and every
// escape (.., absolute, a symlink out, a symlink loop) is PermissionDenied,
// for plain statements and prepared ones alike.
func TestFilesInsideRoot(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	root := filepath.Join(base, "files")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "secret.csv"), []byte("42\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(base, "secret.csv"), filepath.Join(root, "out.csv")))
	require.NoError(t, os.Symlink(base, filepath.Join(root, "updir")))
	require.NoError(t, os.Symlink("loopb.csv", filepath.Join(root, "loopa.csv")))
	require.NoError(t, os.Symlink("loopa.csv", filepath.Join(root, "loopb.csv")))
	_, cl, _ := testServer(t, Options{Files: root})

	_, err := cl.ExecuteUpdate(ctx, "CREATE TABLE t (k BIGINT); INSERT INTO t VALUES (1), (2)")
	require.NoError(t, err)
	_, err = cl.ExecuteUpdate(ctx, "COPY t TO 'sub/t.parquet'")
	require.NoError(t, err)
	n, err := cl.ExecuteUpdate(ctx, "COPY t FROM 'sub/t.parquet'")
	require.NoError(t, err)
	require.EqualValues(t, 2, n)

	for _, q := range []string{
		"COPY t FROM '../secret.csv'",
		"COPY t FROM 'sub/../../secret.csv'",
		"COPY t FROM '" + filepath.Join(base, "secret.csv") + "'",
		"COPY t FROM 'out.csv'",
		"COPY t FROM 'updir/secret.csv'",
		"COPY t FROM 'loopa.csv'",
		"COPY t TO '../escape.csv'",
		"COPY t TO 'updir/escape.csv'",
		"COPY t TO '/tmp/escape.csv'",
	} {
		_, err = cl.ExecuteUpdate(ctx, q)
		require.Equal(t, codes.PermissionDenied, code(err), "%s: %v", q, err)
		stmt, err := cl.Prepare(ctx, q)
		require.NoError(t, err)
		_, err = stmt.ExecuteUpdate(ctx)
		require.Equal(t, codes.PermissionDenied, code(err), "prepared %s: %v", q, err)
		require.NoError(t, stmt.Close(ctx))
	}
	_, err = os.Stat(filepath.Join(base, "escape.csv"))
	require.True(t, os.IsNotExist(err), "an escape wrote outside the root")

	// read_parquet in a query: inside reads, outside is refused at plan time.
	_, err = cl.Execute(ctx, "SELECT count(*) FROM read_parquet('sub/t.parquet')")
	require.NoError(t, err)
	_, err = cl.ExecuteUpdate(ctx, "COPY t TO 'sub/../../t.parquet'")
	require.Equal(t, codes.PermissionDenied, code(err))
	for _, q := range []string{
		"SELECT * FROM read_parquet('../t.parquet')",
		"SELECT * FROM read_parquet('updir/files/sub/t.parquet')",
		"SELECT * FROM read_parquet('" + filepath.Join(root, "sub", "t.parquet") + "')",
	} {
		_, err = cl.Execute(ctx, q)
		require.Equal(t, codes.PermissionDenied, code(err), "%s: %v", q, err)
	}
}
