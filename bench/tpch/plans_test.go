package tpch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestDumpPlans writes EXPLAIN of the 22 queries at SF 0.01 (spec DDL)
// into $STABLEROW_TPCH_PLANS/qNN.txt, so a change to the optimizer's join
// order can be diffed query by query (issue 28: "TPC-H plans no worse").
// Skipped unless the variable names a directory.
func TestDumpPlans(t *testing.T) {
	out := os.Getenv("STABLEROW_TPCH_PLANS")
	if out == "" {
		t.Skip("STABLEROW_TPCH_PLANS names no directory")
	}
	ctx := context.Background()
	cfg := Config{SF: 0.01, Seed: 1, Dir: filepath.Join(out, "data"), Mem: memory.DefaultAllocator}.withDefaults()
	data, _, err := ensureData(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenSrow(ctx, data, "", DDLSpec, cfg.Mem)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := Queries(cfg.SF)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		a, _, err := s.Run(ctx, "EXPLAIN "+q.SQL)
		if err != nil {
			t.Fatalf("%s: %v", q.Name, err)
		}
		var b strings.Builder
		for _, r := range a.Rows {
			b.WriteString(strings.Join(r, " "))
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("q%02d.txt", q.N)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
