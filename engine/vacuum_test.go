package engine_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

var errInjected = errors.New("injected: disk full")

// tornCommitStore fails every manifest commit the way a write that dies
// between storing the manifest's temporary file and linking it into place
// does: the temporary file (the first file of a CREATE) stays behind.
type tornCommitStore struct{ *store.Local }

func (s tornCommitStore) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	dir, base := filepath.Split(p)
	if err := s.Local.Put(ctx, dir+".tmp-0123456789abcdef-"+base, data); err != nil {
		return err
	}
	return errInjected
}

// treeFiles lists every file under root (temporary ones included),
// relative and sorted.
func treeFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	}))
	slices.Sort(out)
	return out
}

// backdate moves the modification time of root and everything under it
// past the default grace period.
func backdate(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-2 * table.DefaultCleanupMinAge)
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	}))
}

// TestCreateTableFailureLeavesNoTable: a CREATE TABLE whose first manifest
// never got committed made no table — not in this process, not after a
// reopen — so a retry succeeds, and VACUUM removes the directory once it
// is older than the grace period.
func TestCreateTableFailureLeavesNoTable(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Mem: mem})
	require.NoError(t, err)

	restore := engine.SetTableStoreForTest(func(d string) (store.Store, error) {
		l, err := store.NewLocal(d)
		return tornCommitStore{l}, err
	})
	_, err = db.Exec(ctx, "CREATE TABLE t (k BIGINT)", nil)
	restore()
	require.ErrorIs(t, err, errInjected, "the store's error comes through every layer")
	require.Equal(t, []string{"_versions/.tmp-0123456789abcdef-00000000000000000001.manifest"}, treeFiles(t, filepath.Join(dir, "t")),
		"the failure left a half-made directory")

	check := func(db *engine.DB) {
		t.Helper()
		require.Empty(t, db.Tables())
		_, err := db.Exec(ctx, "SELECT k FROM t", nil)
		require.ErrorIs(t, err, errkind.NotFound)
		require.ErrorContains(t, err, "unknown table")
	}
	check(db)
	reopened, err := engine.Open(dir, engine.Options{Mem: mem})
	require.NoError(t, err)
	check(reopened)

	// VACUUM keeps the directory while it is young: a CREATE may be about
	// to commit in it.
	rep, err := reopened.Vacuum(ctx, "", engine.VacuumOptions{})
	require.NoError(t, err)
	require.Equal(t, []engine.Leftover{{Dir: "t", Kind: engine.LeftoverUncommitted, Files: 1, Bytes: rep.Leftovers[0].Bytes}}, rep.Leftovers)
	require.DirExists(t, filepath.Join(dir, "t"))

	// A retry succeeds in it.
	run(t, reopened, "CREATE TABLE t (k BIGINT); INSERT INTO t VALUES (1), (2)", nil)
	require.Equal(t, [][]any{{int64(1)}, {int64(2)}}, run(t, reopened, "SELECT k FROM t ORDER BY k", nil))

	// A second failed CREATE, aged past the grace period: VACUUM (dry run
	// first) removes it, counting the torn file.
	restore = engine.SetTableStoreForTest(func(d string) (store.Store, error) {
		l, err := store.NewLocal(d)
		return tornCommitStore{l}, err
	})
	_, err = db.Exec(ctx, "CREATE TABLE u (k BIGINT)", nil)
	restore()
	require.ErrorIs(t, err, errInjected)
	torn := filepath.Join(dir, "u", "_versions", ".tmp-0123456789abcdef-00000000000000000001.manifest")
	fi, err := os.Stat(torn)
	require.NoError(t, err)
	backdate(t, filepath.Join(dir, "u"))
	want := []engine.Leftover{{Dir: "u", Kind: engine.LeftoverUncommitted, Files: 1, Bytes: fi.Size(), Removed: true}}
	rep, err = reopened.Vacuum(ctx, "", engine.VacuumOptions{DryRun: true})
	require.NoError(t, err)
	require.Equal(t, want, rep.Leftovers)
	require.DirExists(t, filepath.Join(dir, "u"))
	rep, err = reopened.Vacuum(ctx, "", engine.VacuumOptions{})
	require.NoError(t, err)
	require.Equal(t, want, rep.Leftovers)
	require.NoDirExists(t, filepath.Join(dir, "u"))
	require.Equal(t, []string{"t"}, tableNames(rep))
	require.Equal(t, [][]any{{int64(1)}, {int64(2)}}, run(t, reopened, "SELECT k FROM t ORDER BY k", nil))
}

func tableNames(rep *engine.VacuumReport) []string {
	var out []string
	for _, t := range rep.Tables {
		out = append(out, t.Table)
	}
	return out
}

// TestVacuumReclaimsAndVacuumFullCompacts: plain VACUUM removes what an
// interrupted INSERT left (a data file no version references and a
// temporary file) once it is older than the grace period, reports it as
// rows, and changes no version; VACUUM FULL compacts.
func TestVacuumReclaimsAndVacuumFullCompacts(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Mem: mem, Table: table.Options{MaxRowsPerFragment: 100}})
	require.NoError(t, err)
	run(t, db, `CREATE TABLE t (k BIGINT NOT NULL, s TEXT);
		INSERT INTO t SELECT g, 'a' FROM generate_series(1, 250) AS g(g);
		INSERT INTO t SELECT g, 'b' FROM generate_series(251, 300) AS g(g);
		DELETE FROM t WHERE k % 3 = 0`, nil)
	want := run(t, db, "SELECT _rowid, k, s FROM t ORDER BY _rowid", nil)
	root := filepath.Join(dir, "t")
	committed := treeFiles(t, root)

	// What a killed INSERT leaves: a finished data file and a torn one.
	tb, err := db.Table(ctx, "t")
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(tb.Fragments()[0].DataFile)))
	require.NoError(t, err)
	orphans := map[string]int64{"data/0123456789abcdef0123456789abcdef.arrow": int64(len(data)), "data/.tmp-00000000deadbeef-fedcba.arrow": 7}
	for p, n := range orphans {
		require.NoError(t, os.WriteFile(filepath.Join(root, filepath.FromSlash(p)), data[:n], 0o644))
	}
	young := run(t, db, "VACUUM t", nil)
	require.Equal(t, [][]any{{"t", "table", int64(0), int64(0), int64(2)}}, young, "young files are kept")
	require.Len(t, treeFiles(t, root), len(committed)+2)

	for p := range orphans {
		old := time.Now().Add(-2 * time.Hour)
		require.NoError(t, os.Chtimes(filepath.Join(root, filepath.FromSlash(p)), old, old))
	}
	res, err := db.Exec(ctx, "VACUUM", nil)
	require.NoError(t, err)
	require.Equal(t, "name, kind, files_removed, bytes_removed, files_kept_young", fieldNames(res.Schema))
	got, err := exectest.Rows(res.Batches...)
	res.Release()
	require.NoError(t, err)
	require.Equal(t, [][]any{{"t", "table", int64(2), int64(len(data)) + 7, int64(0)}}, got)
	require.Equal(t, committed, treeFiles(t, root), "exactly the orphans went")
	require.Equal(t, want, run(t, db, "SELECT _rowid, k, s FROM t ORDER BY _rowid", nil))
	require.Equal(t, [][]any{{"t", "table", int64(0), int64(0), int64(0)}}, run(t, db, "VACUUM t", nil), "nothing left")

	// VACUUM FULL rewrites: fewer fragments, the same rows under the same ids.
	before := len(tb.Fragments())
	got = run(t, db, "VACUUM FULL t", nil)
	require.Len(t, got, 1)
	require.Equal(t, []any{"t", int64(before)}, got[0][:2])
	require.Less(t, got[0][2], int64(before))
	require.Equal(t, want, run(t, db, "SELECT _rowid, k, s FROM t ORDER BY _rowid", nil))
	// The compacted-away files are still referenced by the old versions.
	require.Equal(t, [][]any{{"t", "table", int64(0), int64(0), int64(0)}}, run(t, db, "VACUUM t", nil))
	_, err = db.Exec(ctx, "VACUUM nope", nil)
	require.ErrorIs(t, err, errkind.NotFound)
}

func fieldNames(sc *arrow.Schema) string {
	var out []string
	for _, f := range sc.Fields() {
		out = append(out, f.Name)
	}
	return strings.Join(out, ", ")
}

// pausingStore stops a writer at its commit: the data files are stored,
// the manifest that references them is not, until release is closed.
type pausingStore struct {
	*store.Local
	reached, release chan struct{}
}

func (s pausingStore) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	if strings.HasPrefix(p, "_versions/") {
		close(s.reached)
		<-s.release
	}
	return s.Local.PutIfAbsent(ctx, p, data)
}

// TestVacuumKeepsConcurrentWritersFiles: while a writer is mid-commit its
// data files are unreferenced; VACUUM keeps them, with the default grace
// period and without any (issue 26: without the guard it used to delete
// them and the commit published a broken version), because the writer's
// intent names them. The commit then succeeds and its rows read back.
func TestVacuumKeepsConcurrentWritersFiles(t *testing.T) {
	for _, guard := range []bool{true, false} {
		t.Run(map[bool]string{true: "grace", false: "no-guard"}[guard], func(t *testing.T) {
			mem := exectest.Mem(t)
			ctx := context.Background()
			dir := t.TempDir()
			db, err := engine.Open(dir, engine.Options{Mem: mem})
			require.NoError(t, err)
			run(t, db, "CREATE TABLE t (k BIGINT NOT NULL); INSERT INTO t SELECT g FROM generate_series(1, 100) AS g(g)", nil)
			root := filepath.Join(dir, "t")
			before := treeFiles(t, root)

			l, err := store.NewLocal(root)
			require.NoError(t, err)
			ps := pausingStore{Local: l, reached: make(chan struct{}), release: make(chan struct{})}
			tb, err := table.Open(ctx, ps, table.Options{})
			require.NoError(t, err)
			b := array.NewInt64Builder(mem)
			for k := int64(101); k <= 1100; k++ {
				b.Append(k)
			}
			col := b.NewArray()
			b.Release()
			rec := array.NewRecordBatch(tb.UserSchema(), []arrow.Array{col}, int64(col.Len()))
			col.Release()
			defer rec.Release()
			done := make(chan error, 1)
			go func() {
				_, err := tb.AppendBatches(ctx, []arrow.RecordBatch{rec}, mem)
				done <- err
			}()
			<-ps.reached
			var pending, intents []string
			for _, p := range without(treeFiles(t, root), before) {
				if strings.HasPrefix(p, "_intents/") {
					intents = append(intents, p)
				} else {
					pending = append(pending, p)
				}
			}
			require.NotEmpty(t, pending, "the writer stored its data file")
			require.Len(t, intents, 1, "the writer's intent is stored")

			opt := engine.VacuumOptions{}
			if !guard {
				opt.Grace = -1
			}
			rep, err := db.Vacuum(ctx, "", opt)
			require.NoError(t, err)
			require.Len(t, rep.Tables, 1)
			require.Equal(t, len(pending), rep.Tables[0].FilesInFlight)
			require.Equal(t, 1, rep.Tables[0].IntentsLive)
			files, bytes := rep.Removed()
			require.Zero(t, files)
			require.Zero(t, bytes)
			if guard {
				require.Equal(t, [][]any{{"t", "table", int64(0), int64(0), int64(0)}}, run(t, db, "VACUUM t", nil))
			}
			close(ps.release)
			require.NoError(t, <-done, "the writer's commit succeeds")
			require.Equal(t, [][]any{{int64(1100)}}, run(t, db, "SELECT count(*) FROM t", nil))
			require.Equal(t, [][]any{{int64(101)}, {int64(1100)}}, run(t, db, "SELECT k FROM t WHERE k = 101 OR k = 1100 ORDER BY k", nil))
			_, err = os.Stat(filepath.Join(root, filepath.FromSlash(intents[0])))
			require.ErrorIs(t, err, fs.ErrNotExist, "the intent went with the commit")
		})
	}
}

func without(all, drop []string) []string {
	var out []string
	for _, p := range all {
		if !slices.Contains(drop, p) {
			out = append(out, p)
		}
	}
	return out
}

// TestDropTableIsAtomic: DROP TABLE takes the table out of the namespace
// with one rename; what an interrupted drop leaves is no table and VACUUM
// deletes it whatever its age. A directory named like a table that holds
// something no table holds is reported and left alone.
func TestDropTableIsAtomic(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Mem: mem})
	require.NoError(t, err)
	run(t, db, "CREATE TABLE t (k BIGINT); INSERT INTO t VALUES (1); DROP TABLE t", nil)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "the drop left nothing")
	run(t, db, "CREATE TABLE t (k BIGINT); INSERT INTO t VALUES (2)", nil)
	require.Equal(t, [][]any{{int64(2)}}, run(t, db, "SELECT k FROM t", nil))

	// An interrupted drop: the table renamed away, half deleted.
	run(t, db, "CREATE TABLE gone (k BIGINT); INSERT INTO gone VALUES (1)", nil)
	require.NoError(t, os.Rename(filepath.Join(dir, "gone"), filepath.Join(dir, ".dropped-0001-gone")))
	files := treeFiles(t, filepath.Join(dir, ".dropped-0001-gone"))
	require.NotEmpty(t, files)
	var bytes int64
	for _, f := range files {
		fi, err := os.Stat(filepath.Join(dir, ".dropped-0001-gone", f))
		require.NoError(t, err)
		bytes += fi.Size()
	}
	// A user's directory that happens to have a table's name.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "mine", "_versions"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine", "notes.txt"), []byte("keep me"), 0o644))
	backdate(t, filepath.Join(dir, "mine"))

	db2, err := engine.Open(dir, engine.Options{Mem: mem})
	require.NoError(t, err)
	require.Equal(t, []string{"t"}, db2.Tables())
	rep, err := db2.Vacuum(ctx, "", engine.VacuumOptions{})
	require.NoError(t, err)
	require.Equal(t, []engine.Leftover{
		{Dir: ".dropped-0001-gone", Kind: engine.LeftoverDropped, Files: len(files), Bytes: bytes, Removed: true},
		{Dir: "mine", Kind: engine.LeftoverForeign, Note: "notes.txt"},
	}, rep.Leftovers)
	require.NoDirExists(t, filepath.Join(dir, ".dropped-0001-gone"))
	require.FileExists(t, filepath.Join(dir, "mine", "notes.txt"))
	require.Equal(t, [][]any{{int64(2)}}, run(t, db2, "SELECT k FROM t", nil))
}

// TestVacuumKeepsStrandedTable: a committed table that an interrupted
// VACUUM left moved aside is never deleted; VACUUM says what to do.
func TestVacuumKeepsStrandedTable(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Mem: mem})
	require.NoError(t, err)
	run(t, db, "CREATE TABLE s (k BIGINT); INSERT INTO s VALUES (1)", nil)
	aside := filepath.Join(dir, ".vacuum-0001-s")
	require.NoError(t, os.Rename(filepath.Join(dir, "s"), aside))
	backdate(t, aside)
	before := treeFiles(t, aside)

	db2, err := engine.Open(dir, engine.Options{Mem: mem})
	require.NoError(t, err)
	_, err = db2.Vacuum(ctx, "", engine.VacuumOptions{Grace: -1})
	require.ErrorIs(t, err, engine.ErrVacuumConflict)
	require.ErrorIs(t, err, errkind.Conflict)
	require.ErrorContains(t, err, "rename it back")
	require.Equal(t, before, treeFiles(t, aside))
}

// TestVacuumRacingCreate: a CREATE TABLE that commits in an old unfinished
// directory just as VACUUM moves it aside keeps its table: VACUUM checks
// again after the move and moves the table back.
func TestVacuumRacingCreate(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "u", "_versions"), 0o755))
	backdate(t, filepath.Join(dir, "u"))
	db, err := engine.Open(dir, engine.Options{Mem: mem})
	require.NoError(t, err)
	restore := engine.SetSweepHookForTest(func(aside string) {
		l, err := store.NewLocal(aside)
		require.NoError(t, err)
		_, err = table.Create(ctx, l, arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil), table.Options{})
		require.NoError(t, err)
	})
	rep, err := db.Vacuum(ctx, "", engine.VacuumOptions{})
	restore()
	require.NoError(t, err)
	require.Empty(t, rep.Leftovers, "the directory became a table: nothing was removed")
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 1)
	require.Equal(t, "u", ents[0].Name())
	db2, err := engine.Open(dir, engine.Options{Mem: mem})
	require.NoError(t, err)
	require.Equal(t, []string{"u"}, db2.Tables())
	require.Equal(t, [][]any{{int64(0)}}, run(t, db2, "SELECT count(*) FROM u", nil))
}
