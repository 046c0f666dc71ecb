package table

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/stablerow/stablerow/table/store"
)

// DefaultCleanupMinAge is the age guard Cleanup uses when
// CleanupOptions.MinAge is zero. Writers of this package name their files
// in a write intent, which protects them at any age; the guard is for
// files written otherwise (index builds, task results awaiting their
// driver's commit) and for readers of expiring versions.
const DefaultCleanupMinAge = time.Hour

// tempFilePrefix names the in-flight writes of store.Local (its writeTemp).
// List hides them, so Cleanup finds them by walking the directory.
const tempFilePrefix = ".tmp-"

// cleanupDirs are the prefixes Cleanup sweeps. Everything else (the
// manifests, unknown files) is left alone.
var cleanupDirs = []string{"data/", "_indices/", "_rowmaps/"}

// CleanupOptions tune Cleanup. The zero value keeps every version and
// deletes only unreferenced files older than DefaultCleanupMinAge.
type CleanupOptions struct {
	// KeepVersions keeps the newest KeepVersions versions and deletes older
	// manifests (0: keep all). The latest version is always kept.
	KeepVersions int
	// MinAge protects files and versions from concurrent writers and
	// readers: an unreferenced file is deleted only once it is older than
	// MinAge, and a version only once its successor was committed more
	// than MinAge ago (a transaction based on it may still be rebasing).
	// 0 means DefaultCleanupMinAge; a negative value turns the guard off:
	// the files of running writes stay protected by their intents, those
	// of index builds and of task results not yet committed do not.
	MinAge time.Duration
	// DryRun reports what would be deleted without deleting anything.
	DryRun bool
	// Txns is the database's transaction store (Options.Txns): needed to
	// tell a claim of a transaction over several tables that committed (a
	// version), is pending (its files are kept) or aborted (its files are
	// orphans). A claim met without it is ErrNoTxnStore.
	Txns store.Store
}

// CleanupReport says what Cleanup removed (or, with DryRun, would remove).
type CleanupReport struct {
	VersionsKept    int
	VersionsDeleted int
	// FilesReferenced counts swept files that a kept version needs.
	FilesReferenced int
	FilesDeleted    int
	BytesDeleted    int64
	// TempFilesDeleted counts stray temporary files of interrupted writes.
	TempFilesDeleted int
	TempBytesDeleted int64
	// FilesTooYoung counts unreferenced files kept by the age guard
	// (including files of stores that cannot tell a file's age).
	FilesTooYoung int
	// FilesInFlight counts unreferenced files kept because a live write
	// intent names them (a writer still running; see intent.go).
	FilesInFlight int
	// IntentsLive counts the live write intents; IntentsExpired those
	// removed (or, with DryRun, that would be).
	IntentsLive    int
	IntentsExpired int
}

// ref is one thing a version needs: a file, or with prefix every file
// whose path starts with path (index packages own whole prefixes).
type ref struct {
	path   string
	prefix bool
}

// referenced lists what version m needs besides its manifest. Every
// feature that stores files must add them here, or Cleanup deletes them.
func referenced(m *Manifest) ([]ref, error) {
	refs := make([]ref, 0, len(m.Fragments)+len(m.Indexes))
	for _, f := range m.Fragments {
		refs = append(refs, ref{path: path.Clean(f.DataFile)})
	}
	for _, ix := range m.Indexes {
		// Index files are prefix+name (raw concatenation), so match the raw
		// prefix; store paths are cleaned, so clean it the same way.
		p := ix.Prefix
		if c := path.Clean(p); c != "." {
			if strings.HasSuffix(p, "/") {
				c += "/"
			}
			p = c
		}
		refs = append(refs, ref{path: p, prefix: true})
	}
	// Rowmaps of the fragment reuse history (in Extra).
	rms, err := m.rowMapPaths()
	if err != nil {
		return nil, fmt.Errorf("table: cleanup: version %d history: %w", m.Version, err)
	}
	for _, p := range rms {
		refs = append(refs, ref{path: path.Clean(p)})
	}
	return refs, nil
}

// refSet answers whether a store path is needed by any kept version.
type refSet struct {
	files    map[string]bool
	prefixes []string
}

func (s *refSet) add(refs []ref) {
	for _, r := range refs {
		if r.prefix {
			s.prefixes = append(s.prefixes, r.path)
		} else {
			s.files[r.path] = true
		}
	}
}

func (s *refSet) has(p string) bool {
	if s.files[p] {
		return true
	}
	for _, pre := range s.prefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

// Cleanup deletes what no kept version of the table in st needs: data
// files, index files and row maps referenced by none of them, stray
// temporary files of interrupted writes (local stores), and, with
// KeepVersions, old manifests.
//
// Manifests go first and files after, so an interrupted Cleanup leaves at
// worst more orphans, never a kept version with a missing file. Every kept
// manifest must decode; otherwise Cleanup deletes nothing, since it cannot
// know what that version needs.
//
// Against a concurrent writer Cleanup relies on write intents (intent.go):
// a commit only adds references to files it wrote itself, which its live
// intent names until the commit is published, or to files the latest
// version already references (always kept); and a commit checks its files
// before it publishes. MinAge still guards what is written without an
// intent (index builds, task results awaiting a driver). Expiring versions
// is for readers what it is in any versioned format: a snapshot of an
// expired version that has not read a data file yet may find it gone.
func Cleanup(ctx context.Context, st store.Store, opt CleanupOptions) (*CleanupReport, error) {
	minAge := opt.MinAge
	if minAge == 0 {
		minAge = DefaultCleanupMinAge
	}
	now := time.Now()
	// The order is what keeps a writer's files (see intent.go): files
	// first, then the intents, then the manifests. A file listed here was
	// stored after its writer's intent named it; that intent is either
	// still there when the intents are listed below, or its writer removed
	// it after publishing (the manifests read after that reference the
	// file) or after failing (the file is an orphan).
	swept := map[string][]string{}
	for _, dir := range cleanupDirs {
		paths, err := st.List(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("table: cleanup: list %s: %w", dir, err)
		}
		swept[dir] = paths
	}
	var temps []localTemp
	if l, ok := st.(*store.Local); ok {
		var err error
		if temps, err = listLocalTemps(ctx, l.Root()); err != nil {
			return nil, err
		}
	}
	intents, err := readIntents(ctx, st, now, opt.DryRun)
	if err != nil {
		return nil, err
	}
	vs, err := listVersions(ctx, st)
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		return nil, errorf(ErrNotFound, "cleanup: no table (no manifests under %s)", versionsDir)
	}
	// Read newest first: expiring stops at the first version still needed.
	refs := &refSet{files: map[string]bool{}}
	rep := &CleanupReport{}
	expireBelow := 0 // vs[:expireBelow] are deleted
	// kept counts the visible versions read, successor is the oldest of
	// them: a claim not committed is no version, so it neither counts
	// toward KeepVersions nor lets the version under it expire.
	var successor *Manifest
	kept := 0
	for i := len(vs) - 1; i >= 0; i-- {
		if successor != nil && opt.KeepVersions > 0 && kept >= opt.KeepVersions &&
			(minAge < 0 || now.Sub(time.Unix(0, successor.TimestampNanos)) >= minAge) {
			expireBelow = i + 1
			break
		}
		m, err := readManifest(ctx, st, vs[i])
		if err != nil {
			return nil, fmt.Errorf("table: cleanup: %w", err)
		}
		state, err := resolveClaim(ctx, opt.Txns, m)
		if err != nil {
			return nil, fmt.Errorf("table: cleanup: %w", err)
		}
		if state == TxnAborted {
			// Its files are orphans unless another version names them.
			// The claim itself stays until it expires with the versions
			// around it: its number must not be reused, and a rebase
			// reading the versions after its base reads it.
			continue
		}
		r, err := referenced(m)
		if err != nil {
			return nil, err
		}
		refs.add(r) // a pending claim's too: its transaction may commit
		if state == TxnCommitted {
			successor = m
			kept++
		}
	}
	rep.VersionsKept = len(vs) - expireBelow
	// Oldest first, so the kept versions stay a contiguous run if this is
	// interrupted.
	for _, v := range vs[:expireBelow] {
		if !opt.DryRun {
			if err := st.Delete(ctx, manifestPath(v)); err != nil {
				return rep, fmt.Errorf("table: cleanup: delete version %d: %w", v, err)
			}
		}
		rep.VersionsDeleted++
	}
	age := ageFunc(st)
	for _, dir := range cleanupDirs {
		for _, p := range swept[dir] {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			if refs.has(p) {
				rep.FilesReferenced++
				continue
			}
			if intents.refs.has(p) {
				rep.FilesInFlight++
				continue
			}
			if minAge >= 0 {
				if a, ok := age(p, now); !ok || a < minAge {
					rep.FilesTooYoung++
					continue
				}
			}
			size, err := st.Size(ctx, p)
			if errors.Is(err, store.ErrNotFound) {
				continue // deleted meanwhile (another Cleanup)
			}
			if err != nil {
				return rep, fmt.Errorf("table: cleanup: %w", err)
			}
			if !opt.DryRun {
				if err := st.Delete(ctx, p); err != nil {
					return rep, fmt.Errorf("table: cleanup: %w", err)
				}
			}
			rep.FilesDeleted++
			rep.BytesDeleted += size
		}
	}
	if l, ok := st.(*store.Local); ok {
		if err := cleanupLocal(ctx, l.Root(), temps, intents, minAge, now, opt.DryRun, rep); err != nil {
			return rep, err
		}
	}
	// Expired intents go last: their files were swept above like any
	// orphan (an expired writer fails its commit).
	for _, p := range intents.expired {
		if !opt.DryRun {
			if err := st.Delete(ctx, p); err != nil {
				return rep, fmt.Errorf("table: cleanup: %w", err)
			}
		}
		rep.IntentsExpired++
	}
	if !opt.DryRun {
		for _, p := range intents.stale {
			if err := st.Delete(ctx, p); err != nil && !errors.Is(err, store.ErrNotFound) {
				return rep, fmt.Errorf("table: cleanup: %w", err)
			}
		}
	}
	rep.IntentsLive = intents.live
	return rep, nil
}

// ageFunc returns how to learn an object's age in st; ok is false when
// the store cannot tell (the object is then never old enough).
func ageFunc(st store.Store) func(p string, now time.Time) (time.Duration, bool) {
	l, ok := st.(*store.Local)
	if !ok {
		return func(string, time.Time) (time.Duration, bool) { return 0, false }
	}
	return func(p string, now time.Time) (time.Duration, bool) {
		fi, err := os.Stat(filepath.Join(l.Root(), filepath.FromSlash(p)))
		if err != nil {
			return 0, false
		}
		return now.Sub(fi.ModTime()), true
	}
}

// localTemp is a temporary file of store.Local found by listLocalTemps.
type localTemp struct {
	full string    // file system path
	rel  string    // the store path of the object it will become
	mod  time.Time // modification time
	size int64
}

// listLocalTemps finds the temporary files of in-flight or interrupted
// writes under root (List hides them), with the store path each would
// become: store.Local names them dir/.tmp-<16 hex>-<base>.
func listLocalTemps(ctx context.Context, root string) ([]localTemp, error) {
	var out []localTemp
	err := filepath.WalkDir(root, func(f string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), tempFilePrefix) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed meanwhile (the write finished)
		}
		rel, err := filepath.Rel(root, f)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		base := strings.TrimPrefix(d.Name(), tempFilePrefix)
		if i := strings.IndexByte(base, '-'); i >= 0 {
			base = base[i+1:]
		}
		out = append(out, localTemp{full: f, rel: path.Join(path.Dir(rel), base), mod: fi.ModTime(), size: fi.Size()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("table: cleanup: %w", err)
	}
	return out, nil
}

// cleanupLocal removes the temporary files interrupted writes left under
// root (listed before the intents were read), and index directories the
// sweep emptied. A temporary file of an object a live intent names, or
// one its put still holds locked (store.TempInUse: a manifest or intent
// record being written), is a write in progress and stays; the others go
// by the grace period. (A temporary file taken in the instant between its
// creation and its lock makes store.Local write it again.)
func cleanupLocal(ctx context.Context, root string, temps []localTemp, intents *liveIntents, minAge time.Duration, now time.Time, dryRun bool, rep *CleanupReport) error {
	for _, tf := range temps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if intents.refs.has(tf.rel) || store.TempInUse(tf.full) {
			rep.FilesInFlight++
			continue
		}
		if minAge >= 0 && now.Sub(tf.mod) < minAge {
			rep.FilesTooYoung++
			continue
		}
		if !dryRun {
			if err := os.Remove(tf.full); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // the write finished meanwhile
				}
				return fmt.Errorf("table: cleanup: %w", err)
			}
		}
		rep.TempFilesDeleted++
		rep.TempBytesDeleted += tf.size
	}
	if dryRun {
		return nil
	}
	var dirs []string
	err := filepath.WalkDir(filepath.Join(root, "_indices"), func(f string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, f)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("table: cleanup: %w", err)
	}
	if len(dirs) > 0 {
		dirs = dirs[1:] // _indices itself stays, as before
	}
	// Deepest first; Remove fails on a directory that is not empty, which
	// is what keeps a live index's directory. A fresh, still empty one may
	// be an index build about to write, hence the age guard (emptying a
	// directory makes it young, so with the guard on the next Cleanup
	// removes it).
	for i := len(dirs) - 1; i >= 0; i-- {
		if fi, err := os.Stat(dirs[i]); err == nil && (minAge < 0 || now.Sub(fi.ModTime()) >= minAge) {
			_ = os.Remove(dirs[i])
		}
	}
	return nil
}
