package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// A table of a local database lives in the directory <dir>/<name>/, but the
// directory is not the table: the table exists iff a manifest of it was
// committed (table.Create's put-if-absent of version 1). A CREATE TABLE
// that failed or was killed before that commit leaves a directory with no
// committed manifest; it is no table (Open skips it, a retried CREATE
// succeeds in it, reads say unknown table) and Vacuum of the whole
// database removes it once it is older than the grace period.
//
// DROP TABLE renames the directory out of the namespace first (one atomic
// rename, the drop's commit point) and deletes it after, so an interrupted
// drop never leaves half a table; Vacuum deletes what it left.

const (
	// droppedPrefix names the directory of a dropped table while it is
	// deleted; a dot keeps it out of the table namespace.
	droppedPrefix = ".dropped-"
	// sweptPrefix names a leftover directory Vacuum moved aside to delete.
	sweptPrefix = ".vacuum-"
)

// tableLayout is what a table directory may hold at its top level (the
// table package's layout, plus the store's temporary files). Vacuum leaves
// alone a directory with anything else in it: it is not ours.
var tableLayout = map[string]bool{"_versions": true, "data": true, "_indices": true, "_rowmaps": true, "_deletions": true, "_intents": true}

// newTableStore opens the store of a table directory. It is a variable so
// that tests can inject store failures into CREATE TABLE.
var newTableStore = func(dir string) (store.Store, error) { return store.NewLocal(dir) }

// committed reports whether st holds a table: at least one committed
// manifest.
func committed(ctx context.Context, st store.Store) (bool, error) {
	_, err := table.LatestVersion(ctx, st)
	if errors.Is(err, table.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// openTableDir opens the directory dir as a table; ok is false when it
// surely holds no committed manifest (not a table). A directory whose
// manifests cannot be listed counts as a table: Open then keeps it (its
// use reports the error) and Vacuum leaves it alone.
func openTableDir(ctx context.Context, dir string) (st *store.Local, ok bool, err error) {
	if st, err = store.NewLocal(dir); err != nil {
		return nil, false, err
	}
	if ok, err = committed(ctx, st); err != nil {
		return st, true, nil
	}
	return st, ok, nil
}

// dropDir drops the table directory dir/key: it renames it out of the
// namespace, then deletes it. A failed delete leaves a dropped directory
// for Vacuum; the table is gone either way.
func dropDir(dir, key string) error {
	from := filepath.Join(dir, key)
	to := filepath.Join(dir, droppedPrefix+table.NewID()+"-"+key)
	if err := os.Rename(from, to); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %q (dropped meanwhile)", ErrUnknownTable, key)
		}
		return fmt.Errorf("engine: drop %s: %w", key, err)
	}
	_ = os.RemoveAll(to) // what is left is swept by Vacuum
	return nil
}

// dirUsage walks dir and returns its files, their bytes and the newest
// modification time of any entry (directories included: creating a file
// touches its directory).
func dirUsage(dir string) (files int, bytes int64, newest time.Time, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		if fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
		if !d.IsDir() {
			files++
			bytes += fi.Size()
		}
		return nil
	})
	return files, bytes, newest, err
}

// foreignEntry returns the first top-level entry of dir that a table
// directory does not hold, or "".
func foreignEntry(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		if tableLayout[e.Name()] && e.IsDir() {
			continue
		}
		if strings.HasPrefix(e.Name(), ".tmp-") && !e.IsDir() {
			continue
		}
		return e.Name(), nil
	}
	return "", nil
}

// sweepDirs finds the directories of the database that are not tables —
// unfinished CREATE TABLEs, interrupted DROP TABLEs and Vacuums — and
// deletes them (unless dryRun). An unfinished CREATE is deleted only once
// nothing in it changed for grace (a negative grace turns the guard off):
// a CREATE may be writing its first manifest right now.
func (db *DB) sweepDirs(ctx context.Context, grace time.Duration, dryRun bool) ([]Leftover, error) {
	ents, err := os.ReadDir(db.dir)
	if err != nil {
		return nil, fmt.Errorf("engine: vacuum %s: %w", db.dir, err)
	}
	now := time.Now()
	var out []Leftover
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		name := e.Name()
		if !e.IsDir() {
			continue
		}
		var lo Leftover
		switch {
		case strings.HasPrefix(name, droppedPrefix):
			lo = Leftover{Dir: name, Kind: LeftoverDropped}
		case strings.HasPrefix(name, sweptPrefix):
			lo = Leftover{Dir: name, Kind: LeftoverSwept}
		case tableName.MatchString(name):
			db.mu.Lock()
			_, known := db.stores[strings.ToLower(name)]
			db.mu.Unlock()
			if known {
				continue
			}
			lo = Leftover{Dir: name, Kind: LeftoverUncommitted}
		default:
			continue
		}
		full := filepath.Join(db.dir, name)
		if lo.Kind != LeftoverDropped {
			// A table created by another process since Open is a table.
			_, ok, err := openTableDir(ctx, full)
			if err != nil {
				return out, err
			}
			if ok && lo.Kind == LeftoverSwept {
				// A Vacuum moved a table aside and died before it could move it
				// back: keep it, loudly.
				return out, fmt.Errorf("%w: %s holds a committed table; rename it back to its table name", ErrVacuumConflict, full)
			}
			if ok {
				continue
			}
			if f, err := foreignEntry(full); err != nil {
				return out, fmt.Errorf("engine: vacuum: %w", err)
			} else if f != "" {
				lo.Kind, lo.Note = LeftoverForeign, f
				out = append(out, lo)
				continue
			}
		}
		var newest time.Time
		if lo.Files, lo.Bytes, newest, err = dirUsage(full); err != nil {
			return out, fmt.Errorf("engine: vacuum: %w", err)
		}
		if lo.Kind == LeftoverUncommitted && grace >= 0 && now.Sub(newest) < grace {
			out = append(out, lo) // Removed false: too young
			continue
		}
		lo.Removed = true
		if !dryRun {
			gone, err := removeLeftover(ctx, db.dir, name, lo.Kind)
			if err != nil {
				return out, err
			}
			if !gone {
				continue // a CREATE committed in it meanwhile: a table now
			}
		}
		out = append(out, lo)
	}
	return out, nil
}

// sweepHook, when set (tests), runs after an unfinished CREATE's directory
// was moved aside and before it is checked again.
var sweepHook func(aside string)

// removeLeftover deletes the leftover directory dir/name; gone is false
// when it turned out to be a table. An unfinished CREATE is first moved
// aside with one rename and checked again: a CREATE that committed between
// the check and the rename is moved back.
func removeLeftover(ctx context.Context, dir, name string, kind LeftoverKind) (gone bool, err error) {
	full := filepath.Join(dir, name)
	if kind != LeftoverUncommitted {
		if err := os.RemoveAll(full); err != nil {
			return false, fmt.Errorf("engine: vacuum: %w", err)
		}
		return true, nil
	}
	aside := filepath.Join(dir, sweptPrefix+table.NewID()+"-"+name)
	if err := os.Rename(full, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return true, nil // removed meanwhile
		}
		return false, fmt.Errorf("engine: vacuum: %w", err)
	}
	if sweepHook != nil {
		sweepHook(aside)
	}
	if _, ok, _ := openTableDir(ctx, aside); !ok {
		if err := os.RemoveAll(aside); err != nil {
			return false, fmt.Errorf("engine: vacuum: %w", err)
		}
		return true, nil
	}
	// Committed meanwhile: put it back.
	if err := os.Rename(aside, full); err != nil {
		return false, fmt.Errorf("%w: %s was committed while being swept and cannot be moved back to %s: %v", ErrVacuumConflict, aside, full, err)
	}
	return false, nil
}
