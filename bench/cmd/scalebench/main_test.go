package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSmall runs the whole measurement on small tables (local only):
// every table is built and reused, the cold and warm children answer with
// every id found, and the report, the figures and the plot are written.
func TestRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tables and runs child processes")
	}
	dir := t.TempDir()
	c := &config{rows: []int{3000, 30000}, dir: filepath.Join(dir, "tables"), out: filepath.Join(dir, "r.md"),
		plot: filepath.Join(dir, "p.png"), runs: 1, seed: 1, rowmapRows: 5000}
	// The children are this test binary: point them at main's dispatch.
	t.Setenv("SCALEBENCH_TEST_CHILD", "1")
	if err := run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	rep, err := os.ReadFile(c.out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 3K |", "| 30K |", "Rowmap of a 5K-row table", "3K → 30K"} {
		if !strings.Contains(string(rep), want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	var results []*result
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err == nil {
		err = json.Unmarshal(b, &results)
	}
	if err != nil || len(results) != 2 || results[1].Cold.Pages < 1 || results[1].Warm[10_000].Latency <= 0 {
		t.Fatalf("figures: %v %+v", err, results)
	}
	if fi, err := os.Stat(c.plot); err != nil || fi.Size() == 0 {
		t.Fatalf("plot: %v", err)
	}
}

func TestMain(m *testing.M) {
	// A child run of this test binary (cold-child, warm-child) is main's.
	if os.Getenv("SCALEBENCH_TEST_CHILD") != "" && len(os.Args) > 1 && strings.HasSuffix(os.Args[1], "-child") {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
