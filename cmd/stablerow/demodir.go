package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stablerow/stablerow/errkind"
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
func prepareDemoDir(dir string) error {
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
