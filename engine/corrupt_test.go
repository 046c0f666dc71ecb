package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
)

// corruptDB builds, on disk, a table whose seed query reads every kind of
// file: data files, the _rowid index's pages, and (after CLUSTER, which
// defers the index remap) the rowmap the index answers through. Nothing is
// queried here, so no file has been read before a test damages it.
func corruptDB(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Mem: exectest.Mem(t)})
	require.NoError(t, err)
	_, err = db.Exec(context.Background(), `CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
		INSERT INTO t SELECT (g * 7919) % 1000, 'v' FROM generate_series(0, 999) AS g(g);
		CREATE INDEX rid ON t USING btree (_rowid);
		CREATE INDEX kx ON t USING btree (k);
		CLUSTER t USING kx`, nil)
	require.NoError(t, err)
	return dir
}

// flipAt flips one bit of the file in place (no truncation: a mapping of
// it elsewhere in the process never sees a short file).
func flipAt(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	b := make([]byte, 1)
	_, err = f.ReadAt(b, off)
	require.NoError(t, err)
	b[0] ^= 0x08
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	require.NoError(t, err)
	require.NotEmpty(t, m, pattern)
	slices.Sort(m)
	return m
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Size()
}

// TestCorruptFilesThroughEngine damages one file of each kind and runs the
// query that reads it through the public API (engine.Open + db.Exec): the
// error must match errkind.Corrupt and name the file. Before data files
// had checksums the data file case returned wrong rows with no error.
func TestCorruptFilesThroughEngine(t *testing.T) {
	ctx := context.Background()
	all := make([]int64, 1000)
	for i := range all {
		all[i] = int64(i)
	}
	const takeAll = `SELECT v.ord, t._rowaddr, t.k, t.s FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`
	for _, c := range []struct {
		name    string
		damage  func(t *testing.T, tdir string) string // returns the damaged file's name
		query   string
		params  map[string]any
		indexed bool
	}{
		{"manifest", func(t *testing.T, tdir string) string {
			ms := glob(t, filepath.Join(tdir, "_versions", "*.manifest"))
			p := ms[len(ms)-1]
			flipAt(t, p, size(t, p)/2)
			return filepath.Base(p)
		}, "SELECT count(*) FROM t", nil, false},
		{"index page", func(t *testing.T, tdir string) string {
			// The _rowid index is the first one built; CLUSTER left it
			// in place.
			var p string
			for _, d := range glob(t, filepath.Join(tdir, "_indices", "*", "pages.srbt")) {
				if p == "" || modTime(t, d) < modTime(t, p) {
					p = d
				}
			}
			flipAt(t, p, size(t, p)/2)
			return "" // btree errors name the page, not the path
		}, seedQuery, map[string]any{"ids": all}, true},
		{"rowmap block", func(t *testing.T, tdir string) string {
			p := glob(t, filepath.Join(tdir, "_rowmaps", "*.rowmap"))[0]
			flipAt(t, p, 12) // inside block 0, which starts after the 8-byte header
			return "rowmap"  // fragreuse names the version, not the path
		}, seedQuery, map[string]any{"ids": all}, true},
		{"data file", func(t *testing.T, tdir string) string {
			ps := glob(t, filepath.Join(tdir, "data", "*.arrow"))
			for _, p := range ps {
				flipAt(t, p, size(t, p)/2)
			}
			return "data/"
		}, takeAll, map[string]any{"ids": all}, false},
		{"data file, scan", func(t *testing.T, tdir string) string {
			ps := glob(t, filepath.Join(tdir, "data", "*.arrow"))
			for _, p := range ps {
				flipAt(t, p, size(t, p)/3)
			}
			return "data/"
		}, "SELECT k, s FROM t WHERE k >= 0", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := corruptDB(t)
			name := c.damage(t, filepath.Join(dir, "t"))
			mem := exectest.Mem(t)
			db, err := engine.Open(dir, engine.Options{Mem: mem})
			require.NoError(t, err)
			res, err := db.Exec(ctx, c.query, c.params)
			if err == nil {
				res.Release()
			}
			require.Error(t, err, "a damaged %s went unnoticed", c.name)
			require.True(t, errors.Is(err, errkind.Corrupt), "%s: %v does not match errkind.Corrupt", c.name, err)
			require.Contains(t, err.Error(), name)
		})
	}
}

func modTime(t *testing.T, p string) int64 {
	t.Helper()
	st, err := os.Stat(p)
	require.NoError(t, err)
	return st.ModTime().UnixNano()
}
