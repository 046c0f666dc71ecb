package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/rowmap"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// runInspect describes a .rowmap file, a table directory, or every table
// of a database directory.
func runInspect(ctx context.Context, args []string) error {
	return inspect(ctx, os.Stdout, args)
}

func inspect(ctx context.Context, w io.Writer, args []string) error {
	fs := newFlags("inspect", "inspect [-segments] PATH: describe a table or database directory (manifest, fragments, row id segments, deletions, indexes, versions) or a .rowmap file")
	segments := fs.Bool("segments", false, "list every row id segment")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{errors.New("inspect takes one path: FILE.rowmap, a table directory or a database directory")}
	}
	path := fs.Arg(0)
	if engine.IsRemote(path) {
		return inspectRemote(ctx, w, path, *segments)
	}
	if strings.HasSuffix(path, ".rowmap") {
		return inspectRowmap(w, path)
	}
	if _, err := os.Stat(filepath.Join(path, "_versions")); err == nil {
		return inspectTable(ctx, w, path, *segments)
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	found := false
	for _, e := range ents {
		sub := filepath.Join(path, e.Name())
		if _, err := os.Stat(filepath.Join(sub, "_versions")); e.IsDir() && err == nil {
			found = true
			fmt.Fprintf(w, "== table %s (%s)\n", e.Name(), sub)
			if err := inspectTable(ctx, w, sub, *segments); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
	}
	if !found {
		return fmt.Errorf("inspect: %s holds no table", path)
	}
	return nil
}

func inspectTable(ctx context.Context, w io.Writer, dir string, segments bool) error {
	st, err := store.NewLocal(dir)
	if err != nil {
		return err
	}
	// A table of a database keeps its transaction records in the
	// database's directory (.txn/): needed when its newest version is a
	// transaction's claim.
	txns, err := store.NewLocal(filepath.Dir(st.Root()))
	if err != nil {
		return err
	}
	t, err := table.Open(ctx, st, table.Options{Txns: txns})
	if err != nil {
		return err
	}
	return t.Describe(ctx, w, segments)
}

// inspectRemote describes the table or the database at an object-store
// location (s3://bucket/prefix); it never looks at the local file system.
func inspectRemote(ctx context.Context, w io.Writer, loc string, segments bool) error {
	st, err := engine.OpenStore(ctx, loc, engine.Options{})
	if err != nil {
		return err
	}
	t, err := table.Open(ctx, st, table.Options{})
	if err == nil {
		return t.Describe(ctx, w, segments)
	}
	if !errors.Is(err, table.ErrNotFound) {
		return err
	}
	db, err := engine.Open(loc, engine.Options{})
	if err != nil {
		return err
	}
	if len(db.Tables()) == 0 {
		return fmt.Errorf("inspect: %s holds no table", loc)
	}
	for _, name := range db.Tables() {
		t, err := db.Table(ctx, name)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "== table %s (%s/%s)\n", name, strings.TrimSuffix(loc, "/"), name)
		if err := t.Describe(ctx, w, segments); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}

func inspectRowmap(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	src, err := rowmap.FileSource(f)
	if err != nil {
		return err
	}
	r, err := rowmap.Open(src)
	if err != nil {
		return fmt.Errorf("inspect %s: %w", path, err)
	}
	// Open checks only the tail (header, counts, directory); every block
	// carries its own CRC, read here before anything is printed, so a map
	// whose body is damaged is reported (first bad block) rather than
	// described as if it were sound.
	for b := range r.Counts().NumBlocks() {
		if _, err := r.DecodeBlock(b); err != nil {
			return fmt.Errorf("inspect %s: %w", path, err)
		}
	}
	return r.Describe(w)
}
