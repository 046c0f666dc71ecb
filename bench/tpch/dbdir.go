package tpch

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// dbPaths makes cfg.DBDir afresh and returns DuckDB's file and
// stablerow's directory in it ("", "" when DBDir is "": in memory).
func (cfg Config) dbPaths() (duck, srow string, err error) {
	if cfg.DBDir == "" {
		return "", "", nil
	}
	if err := os.RemoveAll(cfg.DBDir); err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(cfg.spillDir(), 0o755); err != nil {
		return "", "", err
	}
	return filepath.Join(cfg.DBDir, "duckdb.db"), filepath.Join(cfg.DBDir, "stablerow"), nil
}

// spillDir is stablerow's spill directory under DBDir ("": none given).
func (cfg Config) spillDir() string {
	if cfg.DBDir == "" {
		return ""
	}
	return filepath.Join(cfg.DBDir, "spill")
}

// sampleDirSize samples the bytes of the files under dir every 200 ms
// until the returned function is called, which returns the largest
// sample (0 when dir is ""). A sample misses a file that lived less
// than the interval.
func sampleDirSize(dir string) func() int64 {
	if dir == "" {
		return func() int64 { return 0 }
	}
	var mu sync.Mutex
	var peak int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			n := dirBytes(dir)
			mu.Lock()
			peak = max(peak, n)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// dirBytes is the size of the files under dir (files removed while it
// walks are skipped).
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
