package table_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// cleanupFixture is a table with appends, deletes, an update and two
// builds of a (fake) index, plus the rows of every version.
type cleanupFixture struct {
	st      store.Store
	tb      *table.Table
	history map[uint64]map[uint64]refRow
	// oldIndex holds the files of the superseded index build: only the
	// versions before the replacement reference them.
	oldIndex, newIndex []string
	// rowMap is the rowmap of a recluster with deferred remap: referenced
	// from the fragment reuse history in Extra, not by any fragment.
	rowMap string
	// reclustered are the data files of the fragments the recluster
	// replaced: only the versions before it reference them.
	reclustered []string
}

func newCleanupFixture(t *testing.T, st store.Store, mem memory.Allocator) *cleanupFixture {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 5))
	tb, err := table.Create(ctx, st, userSchema, table.Options{MaxRowsPerFragment: 50, BatchRows: 8})
	require.NoError(t, err)
	fx := &cleanupFixture{st: st, history: map[uint64]map[uint64]refRow{1: {}}}
	m := newModel()
	record := func() { fx.history[tb.Version()] = maps(m.rows) }
	appendRows := func(n int) {
		rows := genRows(r, n)
		b := rowsBatch(t, mem, rows, nil)
		tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
		b.Release()
		require.NoError(t, err)
		for _, row := range rows {
			m.rows[m.nextID] = row
			m.nextID++
		}
		record()
	}
	putIndex := func(prefix string, replace bool) []string {
		files := []string{prefix + "pages", prefix + "lookup"}
		for _, f := range files {
			require.NoError(t, st.Put(ctx, f, []byte("index bytes of "+f)))
		}
		tb, err = tb.CommitIndex(ctx, &table.IndexMeta{Name: "k_idx", Column: "k", Kind: "btree", Prefix: prefix,
			Fragments: roaring.BitmapOf(tb.FragmentIDs()...), DatasetVersion: tb.Version()}, replace)
		require.NoError(t, err)
		record()
		return files
	}
	appendRows(120)
	fx.oldIndex = putIndex("_indices/0001/", false)
	tb, _, err = tb.DeleteRowIDs(ctx, []uint64{3, 70, 71})
	require.NoError(t, err)
	for _, id := range []uint64{3, 70, 71} {
		delete(m.rows, id)
	}
	record()
	upd := genRows(r, 2)
	ub := rowsBatch(t, mem, upd, []uint64{10, 90})
	rdr, err := array.NewRecordReader(ub.Schema(), []arrow.RecordBatch{ub})
	require.NoError(t, err)
	tb, _, err = tb.Update(ctx, rdr, mem)
	rdr.Release()
	ub.Release()
	require.NoError(t, err)
	m.rows[10], m.rows[90] = upd[0], upd[1]
	record()
	appendRows(30)
	pre := tb
	tb, err = tb.Recluster(ctx, "k", table.ReclusterOptions{DeferIndexRemap: true, Mem: mem})
	require.NoError(t, err)
	fx.history[tb.Version()-1] = maps(m.rows) // the reserve commit
	record()
	hist, err := tb.History()
	require.NoError(t, err)
	require.NotEmpty(t, hist)
	fx.rowMap = hist[len(hist)-1].RowMap
	require.NotEmpty(t, fx.rowMap)
	for _, f := range pre.Fragments() {
		if !slices.ContainsFunc(tb.Fragments(), func(g *table.Fragment) bool { return g.DataFile == f.DataFile }) {
			fx.reclustered = append(fx.reclustered, f.DataFile)
		}
	}
	require.NotEmpty(t, fx.reclustered)
	fx.newIndex = putIndex("_indices/0002/", true)
	fx.tb = tb
	return fx
}

// plantOrphans stores files no version references and returns their paths.
func plantOrphans(t *testing.T, st store.Store) []string {
	t.Helper()
	ctx := context.Background()
	orphans := []string{"data/orphan-1.arrow", "data/orphan-2.arrow", "_indices/dead/pages", "_rowmaps/dead.rowmap"}
	for _, p := range orphans {
		require.NoError(t, st.Put(ctx, p, []byte("orphan "+p)))
	}
	return orphans
}

// plantTemps leaves the temporary files a killed local write leaves, in
// the store's own naming; returns their paths relative to the root.
func plantTemps(t *testing.T, l *store.Local) []string {
	t.Helper()
	temps := []string{"data/.tmp-0123456789abcdef-x.arrow", "_versions/.tmp-fedcba9876543210-00000000000000000009.manifest"}
	for _, p := range temps {
		full := filepath.Join(l.Root(), filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte("torn"), 0o644))
	}
	return temps
}

// storeFiles lists every object Cleanup may sweep, and for a local store
// also the temporary files List hides.
func storeFiles(t *testing.T, st store.Store) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"data/", "_indices/", "_rowmaps/", "_versions/"} {
		ps, err := st.List(context.Background(), dir)
		require.NoError(t, err)
		out = append(out, ps...)
	}
	if l, ok := st.(*store.Local); ok {
		require.NoError(t, filepath.WalkDir(l.Root(), func(f string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".tmp-") {
				rel, _ := filepath.Rel(l.Root(), f)
				out = append(out, filepath.ToSlash(rel))
			}
			return err
		}))
	}
	slices.Sort(out)
	return out
}

// checkVersions reopens every listed version and compares its rows.
func checkVersions(t *testing.T, st store.Store, history map[uint64]map[uint64]refRow, mem memory.Allocator) {
	t.Helper()
	infos, err := table.Versions(context.Background(), st)
	require.NoError(t, err)
	for _, vi := range infos {
		old, err := table.OpenVersion(context.Background(), st, vi.Version, table.Options{})
		require.NoError(t, err)
		require.Equal(t, history[vi.Version], scanAll(t, old, mem), "version %d", vi.Version)
		for _, ix := range old.Indexes() {
			ps, err := st.List(context.Background(), ix.Prefix)
			require.NoError(t, err)
			require.NotEmpty(t, ps, "version %d lost the files of index prefix %s", vi.Version, ix.Prefix)
		}
	}
}

func without(all []string, drop ...[]string) []string {
	var out []string
	for _, p := range all {
		if !slices.ContainsFunc(drop, func(d []string) bool { return slices.Contains(d, p) }) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func TestCleanupOrphans(t *testing.T) {
	for _, kind := range []string{"memory", "local"} {
		t.Run(kind, func(t *testing.T) {
			mem := exectest.Mem(t)
			ctx := context.Background()
			var st store.Store = store.NewMemory()
			if kind == "local" {
				l, err := store.NewLocal(t.TempDir())
				require.NoError(t, err)
				st = l
			}
			fx := newCleanupFixture(t, st, mem)
			before := storeFiles(t, st)
			orphans := plantOrphans(t, st)
			var temps []string
			if l, ok := st.(*store.Local); ok {
				temps = plantTemps(t, l)
			}
			var orphanBytes int64
			for _, p := range orphans {
				orphanBytes += int64(len("orphan " + p))
			}

			// A dry run reports and deletes nothing.
			dry, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1, DryRun: true})
			require.NoError(t, err)
			require.Equal(t, len(orphans), dry.FilesDeleted)
			require.Len(t, storeFiles(t, st), len(before)+len(orphans)+len(temps))

			rep, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1})
			require.NoError(t, err)
			require.Equal(t, dry, rep)
			require.Equal(t, len(orphans), rep.FilesDeleted)
			require.Equal(t, orphanBytes, rep.BytesDeleted)
			require.Equal(t, len(temps), rep.TempFilesDeleted)
			require.Equal(t, len(fx.history), rep.VersionsKept)
			require.Zero(t, rep.VersionsDeleted)
			require.Equal(t, before, storeFiles(t, st), "exactly the planted files go")
			require.Contains(t, before, fx.rowMap)
			checkVersions(t, st, fx.history, mem)

			// Nothing left to do.
			again, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1})
			require.NoError(t, err)
			require.Zero(t, again.FilesDeleted+again.TempFilesDeleted)
			if l, ok := st.(*store.Local); ok {
				_, err := os.Stat(filepath.Join(l.Root(), "_indices", "dead"))
				require.ErrorIs(t, err, fs.ErrNotExist, "the emptied index directory is removed")
			}
		})
	}
}

// TestCleanupKeepVersions expires old manifests and with them the files
// only they referenced (the superseded index build), never the latest.
func TestCleanupKeepVersions(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	st := store.NewMemory()
	fx := newCleanupFixture(t, st, mem)
	latest := fx.tb.Version()

	// The default age guard keeps versions whose successor is fresh.
	rep, err := table.Cleanup(ctx, st, table.CleanupOptions{KeepVersions: 1})
	require.NoError(t, err)
	require.Zero(t, rep.VersionsDeleted)
	require.Zero(t, rep.FilesDeleted)

	before := storeFiles(t, st)
	rep, err = table.Cleanup(ctx, st, table.CleanupOptions{KeepVersions: 2, MinAge: -1})
	require.NoError(t, err)
	require.Equal(t, 2, rep.VersionsKept)
	require.Equal(t, int(latest)-2, rep.VersionsDeleted)
	var expired []string
	for v := uint64(1); v <= latest-2; v++ {
		expired = append(expired, manifestName(v))
	}
	// The kept versions follow the recluster, so the files of the
	// fragments it replaced go; version latest-1 precedes the index
	// replacement, so the old build stays.
	require.Equal(t, len(fx.reclustered), rep.FilesDeleted)
	require.Equal(t, without(before, expired, fx.reclustered), storeFiles(t, st))
	checkVersions(t, st, fx.history, mem)

	rep, err = table.Cleanup(ctx, st, table.CleanupOptions{KeepVersions: 1, MinAge: -1})
	require.NoError(t, err)
	require.Equal(t, 1, rep.VersionsDeleted)
	require.Equal(t, len(fx.oldIndex), rep.FilesDeleted)
	require.Equal(t, without(before, expired, fx.reclustered, []string{manifestName(latest - 1)}, fx.oldIndex), storeFiles(t, st))
	checkVersions(t, st, fx.history, mem)

	// KeepVersions larger than the history keeps everything.
	rep, err = table.Cleanup(ctx, st, table.CleanupOptions{KeepVersions: 1000, MinAge: -1})
	require.NoError(t, err)
	require.Equal(t, 1, rep.VersionsKept)
	require.Zero(t, rep.VersionsDeleted+rep.FilesDeleted)
	got, err := table.Open(ctx, st, table.Options{})
	require.NoError(t, err)
	require.Equal(t, latest, got.Version())
}

func manifestName(v uint64) string { return fmt.Sprintf("_versions/%020d.manifest", v) }

// TestCleanupMinAge: fresh orphans survive the age guard; aged ones go.
// A store that cannot tell ages (memory) never loses a file to it.
func TestCleanupMinAge(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	l, err := store.NewLocal(t.TempDir())
	require.NoError(t, err)
	fx := newCleanupFixture(t, l, mem)
	before := storeFiles(t, l)
	orphans := plantOrphans(t, l)
	temps := plantTemps(t, l)

	rep, err := table.Cleanup(ctx, l, table.CleanupOptions{})
	require.NoError(t, err)
	require.Zero(t, rep.FilesDeleted+rep.TempFilesDeleted)
	require.Equal(t, len(orphans)+len(temps), rep.FilesTooYoung)

	// Age one orphan and one temp file past the guard.
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range []string{orphans[0], temps[0]} {
		require.NoError(t, os.Chtimes(filepath.Join(l.Root(), filepath.FromSlash(p)), old, old))
	}
	rep, err = table.Cleanup(ctx, l, table.CleanupOptions{MinAge: time.Hour})
	require.NoError(t, err)
	require.Equal(t, 1, rep.FilesDeleted)
	require.Equal(t, 1, rep.TempFilesDeleted)
	require.Equal(t, len(orphans)+len(temps)-2, rep.FilesTooYoung)
	require.Equal(t, without(append(append(before, orphans...), temps...), []string{orphans[0], temps[0]}),
		storeFiles(t, l))
	checkVersions(t, l, fx.history, mem)

	ms := store.NewMemory()
	newCleanupFixture(t, ms, mem)
	plantOrphans(t, ms)
	rep, err = table.Cleanup(ctx, ms, table.CleanupOptions{MinAge: time.Nanosecond})
	require.NoError(t, err)
	require.Zero(t, rep.FilesDeleted)
	require.Equal(t, 4, rep.FilesTooYoung)
}

// TestCleanupRefusesCorruptManifest: a kept version that does not decode
// stops Cleanup before it deletes anything.
func TestCleanupRefusesCorruptManifest(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	st := store.NewMemory()
	fx := newCleanupFixture(t, st, mem)
	plantOrphans(t, st)
	b, err := st.Get(ctx, manifestName(2))
	require.NoError(t, err)
	b[len(b)/2] ^= 0xff
	require.NoError(t, st.Put(ctx, manifestName(2), b))
	before := storeFiles(t, st)
	_, err = table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1})
	require.ErrorIs(t, err, table.ErrCorrupt)
	require.Equal(t, before, storeFiles(t, st))

	// Expiring the corrupt version is allowed: it is not read.
	rep, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1, KeepVersions: int(fx.tb.Version()) - 2})
	require.NoError(t, err)
	require.Equal(t, 2, rep.VersionsDeleted)

	_, err = table.Cleanup(ctx, store.NewMemory(), table.CleanupOptions{})
	require.ErrorIs(t, err, table.ErrNotFound)
}

// TestCreateOverExpiredFirstVersion: Cleanup may expire version 1 of a
// live table; Create must still see the table (any committed version) and
// refuse, not commit a fresh, empty version 1 beneath the real history.
func TestCreateOverExpiredFirstVersion(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	st := store.NewMemory()
	fx := newCleanupFixture(t, st, mem)
	_, err := table.Cleanup(ctx, st, table.CleanupOptions{KeepVersions: 1, MinAge: -1})
	require.NoError(t, err)
	_, err = st.Size(ctx, manifestName(1))
	require.ErrorIs(t, err, store.ErrNotFound, "version 1 expired")

	_, err = table.Create(ctx, st, userSchema, table.Options{})
	require.ErrorIs(t, err, table.ErrExists)
	vs, err := table.Versions(ctx, st)
	require.NoError(t, err)
	require.Len(t, vs, 1, "Create committed nothing")
	checkVersions(t, st, fx.history, mem)
}
