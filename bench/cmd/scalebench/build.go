package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stablerow/stablerow/bench/srow"
)

// builtMark is written into a database directory once its table and index
// are complete; a directory without it is rebuilt from scratch.
const builtMark = ".scalebench-built"

// dbDir is the database directory of the n-row table.
func dbDir(root string, n int) string { return filepath.Join(root, "rows-"+count(n)) }

// build makes the n-row table t (generated rows, 1M-row fragments) with a
// BTree on _rowid, unless a complete one is there. It returns the build
// time (0 when reused).
func build(ctx context.Context, root string, n int) (time.Duration, error) {
	dir := dbDir(root, n)
	if _, err := os.Stat(filepath.Join(dir, builtMark)); err == nil {
		return 0, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return 0, err
	}
	start := time.Now()
	e, err := srow.Open(dir, srow.Options{})
	if err != nil {
		return 0, err
	}
	if err := e.Load(ctx, uint64(n)); err != nil {
		return 0, fmt.Errorf("load %d rows: %w", n, err)
	}
	if _, err := e.Exec(ctx, "CREATE INDEX rid ON t USING btree (_rowid)"); err != nil {
		return 0, err
	}
	took := time.Since(start)
	return took, os.WriteFile(filepath.Join(dir, builtMark), []byte(took.String()+"\n"), 0o644)
}

// rowmapBytesPerRow builds a 1M-row table, reclusters it by its random
// payload (CLUSTER: a stable partition recorded as a rowmap, a real
// permutation of every row) and returns the rowmap's bytes per row.
func rowmapBytesPerRow(ctx context.Context, root string, n int) (float64, error) {
	dir := filepath.Join(root, "rowmap-"+count(n))
	if err := os.RemoveAll(dir); err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	e, err := srow.Open(dir, srow.Options{})
	if err != nil {
		return 0, err
	}
	if err := e.Load(ctx, uint64(n)); err != nil {
		return 0, err
	}
	for _, s := range []string{"CREATE INDEX px ON t USING btree (payload)", "CLUSTER t USING px"} {
		if _, err := e.Exec(ctx, s); err != nil {
			return 0, fmt.Errorf("%s: %w", s, err)
		}
	}
	b, _, err := treeBytes(filepath.Join(dir, "t", "_rowmaps"), "")
	if err != nil {
		return 0, err
	}
	if b == 0 {
		return 0, fmt.Errorf("CLUSTER wrote no rowmap")
	}
	return float64(b) / float64(n), nil
}

// treeBytes sums the sizes of the files under dir, and of those whose name
// ends in suffix.
func treeBytes(dir, suffix string) (all, matching int64, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		all += fi.Size()
		if suffix != "" && strings.HasSuffix(p, suffix) {
			matching += fi.Size()
		}
		return nil
	})
	return all, matching, err
}

func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dK", n/1000)
	}
	return fmt.Sprint(n)
}
