package sqltest_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/sqltest"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/sql/*.slt")

func TestSQLLogic(t *testing.T) {
	files, err := filepath.Glob("../testdata/sql/*.slt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no .slt files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := sqltest.Parse(bytes.NewReader(src))
			if err != nil {
				t.Fatal(err)
			}
			configs := sqltest.Configs
			if strings.HasSuffix(path, "_large.slt") {
				configs = sqltest.LargeConfigs
			}
			for i, cfg := range configs {
				if raceOn && testing.Short() && !*rewrite && !raceConfig(cfg) {
					continue
				}
				t.Run(cfg.String(), func(t *testing.T) {
					mem := exectest.Mem(t)
					db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: cfg.BatchSize, DisableIndexes: cfg.NoIndex, Threads: cfg.Threads})
					fails := sqltest.Run(context.Background(), db, recs, cfg, *rewrite && i == 0)
					for _, f := range fails {
						t.Errorf("%s:%v", filepath.Base(path), f)
					}
				})
			}
			if *rewrite {
				var out bytes.Buffer
				if err := sqltest.Format(&out, recs); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestParseErrors: malformed files are rejected with a line number.
func TestParseErrors(t *testing.T) {
	for _, src := range []string{
		"bogus directive\n",
		"statement maybe\nSELECT 1\n",
		"query\nSELECT 1\n",
		"statement ok\n\n",
		"statement ok\nSELECT 1\n----\n1\n",
		"skipif sometimes\nstatement ok\nSELECT 1\n",
	} {
		if _, err := sqltest.Parse(bytes.NewReader([]byte(src))); err == nil {
			t.Errorf("accepted %q", src)
		}
	}
}

// TestFormatRoundTrip: -rewrite must not lose anything written by hand:
// every committed file formats back byte for byte (comments included).
func TestFormatRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../testdata/sql/*.slt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no .slt files: %v", err)
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := sqltest.Parse(bytes.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := sqltest.Format(&out, recs); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), src) {
			t.Errorf("%s does not format back to itself", path)
		}
	}
}

// raceConfig: make test runs every configuration without the race
// detector and, under it, two partitioned ones, where goroutines share
// state: threads 2 at full batches, and threads 4 at batches of 2 (the
// most interleaving) or over 1024-row batches (the large files). The
// detector makes each run ~8x slower; threads 4 at full batches adds
// little interleaving the other two do not have.
func raceConfig(cfg sqltest.Config) bool {
	return cfg.Threads >= 2 && !(cfg.Threads == 4 && cfg.BatchSize == 8192)
}
