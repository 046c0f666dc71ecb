package engine_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/errkind"
)

// TestOpenMissingDir: Open of a directory that does not exist is
// ErrNoDatabase (a NotFound, and fs.ErrNotExist) and creates nothing; it
// used to MkdirAll, so a mistyped path became a new empty database.
// Options.Create makes it; a file is no database.
func TestOpenMissingDir(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(root, "typo", "db")
	_, err := engine.Open(missing, engine.Options{})
	for _, want := range []error{engine.ErrNoDatabase, errkind.NotFound, fs.ErrNotExist} {
		if !errors.Is(err, want) {
			t.Errorf("Open(missing): %v, want errors.Is %v", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "typo")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open created the missing directory: %v", err)
	}
	db, err := engine.Open(missing, engine.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(db.Tables()); n != 0 {
		t.Fatalf("a created database has %d tables", n)
	}
	if fi, err := os.Stat(missing); err != nil || !fi.IsDir() {
		t.Fatalf("Create did not make the directory: %v", err)
	}
	if _, err := engine.Open(missing, engine.Options{}); err != nil {
		t.Fatalf("reopen of an existing empty database: %v", err)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, create := range []bool{false, true} {
		if _, err := engine.Open(file, engine.Options{Create: create}); err == nil {
			t.Errorf("Open of a file (Create %v): no error", create)
		}
	}
	if _, err := engine.Open(file, engine.Options{}); !errors.Is(err, engine.ErrNoDatabase) {
		t.Errorf("Open of a file: %v, want ErrNoDatabase", err)
	}
}
