package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
)

// demoMarker is the file demo writes into a directory it creates (or
// finds empty): the mark that everything in it is the demo's own, so a
// later demo may delete it.
const demoMarker = ".stablerow-demo"

// errDemoDir: -d names a directory demo did not make; it is never emptied.
var errDemoDir = errkind.New(errkind.InvalidArgument, "demo: refusing to use the directory")

// prepareDemoDir readies dir for a fresh demo:
//
//	absent          -> created, marked
//	empty           -> marked
//	marked          -> emptied but for the marker (a previous demo's table)
//	anything else   -> errDemoDir, nothing touched
func prepareDemoDir(ctx context.Context, dir string) error {
	if engine.IsRemote(dir) {
		return prepareDemoPrefix(ctx, dir)
	}
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		return markDemoDir(dir)
	case err != nil:
		return fmt.Errorf("demo: %w", err)
	case len(ents) == 0:
		return markDemoDir(dir)
	}
	if _, err := os.Stat(filepath.Join(dir, demoMarker)); err != nil {
		return fmt.Errorf("%w: %s is not empty and demo did not make it (it has no %s file); give a new or an empty directory",
			errDemoDir, dir, demoMarker)
	}
	for _, e := range ents {
		if e.Name() == demoMarker {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	return nil
}

func markDemoDir(dir string) error {
	note := "This directory was made by `stablerow demo`, which deletes its contents when it runs again.\n"
	if err := os.WriteFile(filepath.Join(dir, demoMarker), []byte(note), 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

// prepareDemoPrefix is prepareDemoDir for an object-store location
// (s3://bucket/prefix): the same rules over the objects under the prefix,
// the marker an object of its own. It never touches the local file system.
func prepareDemoPrefix(ctx context.Context, loc string) error {
	st, err := engine.OpenStore(ctx, loc, engine.Options{})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	objs, err := st.List(ctx, "")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if len(objs) == 0 {
		return markDemoPrefix(ctx, st)
	}
	if _, err := st.Size(ctx, demoMarker); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%w: %s is not empty and demo did not make it (it has no %s object); give a new or an empty prefix",
				errDemoDir, loc, demoMarker)
		}
		return fmt.Errorf("demo: %w", err)
	}
	for _, p := range objs {
		if p == demoMarker {
			continue
		}
		if err := st.Delete(ctx, p); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	return nil
}

func markDemoPrefix(ctx context.Context, st store.Store) error {
	note := "This prefix was made by `stablerow demo`, which deletes its contents when it runs again.\n"
	if err := st.Put(ctx, demoMarker, []byte(note)); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}
