package sqltest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestPlanHonesty walks the plan of every query every .slt file runs (with
// and without indexes) and fails if a node reports rows it did not emit
// as batches, or if a kind of node appears in plans but never emits a
// batch in any of them (a node EXPLAIN prints that nothing executes).
func TestPlanHonesty(t *testing.T) {
	if raceOn && testing.Short() {
		// make test runs it in its second sqltest step, without the
		// detector: it audits plan metrics, not goroutines (the
		// partitioned runs of TestSQLLogic are the detector's).
		t.Skip("make test runs the plan audit without the race detector")
	}
	files, err := filepath.Glob("../testdata/sql/*.slt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no .slt files: %v", err)
	}
	audit := exectest.NewPlanAudit()
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := Parse(bytes.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range []Config{{BatchSize: 8192}, {BatchSize: 2}, {BatchSize: 8192, NoIndex: true}, {BatchSize: 8192, Threads: 4}, {BatchSize: 2, Threads: 2}} {
			if strings.HasSuffix(path, "_large.slt") && cfg.BatchSize < 1024 {
				continue
			}
			t.Run(filepath.Base(path)+"/"+cfg.String(), func(t *testing.T) {
				mem := exectest.Mem(t)
				db := engine.OpenMemory(engine.Options{Mem: mem, BatchSize: cfg.BatchSize, DisableIndexes: cfg.NoIndex, Threads: cfg.Threads})
				auditRecords(t, db, recs, cfg, audit, filepath.Base(path))
			})
		}
	}
	for _, p := range audit.Problems {
		t.Error(p)
	}
	for _, name := range audit.Unexecuted() {
		t.Errorf("%s appears in %d plan lines but never emits a batch", name, audit.Seen[name])
	}
	for _, name := range []string{"TakeByKeyExec", "IndexProbeExec", "RowAddrRemapExec", "UnindexedFallbackScan"} {
		if audit.Executed[name] == 0 {
			t.Errorf("no .slt file executes %s", name)
		}
	}
	t.Logf("%d plans audited", audit.Plans)
}

func auditRecords(t *testing.T, db *engine.DB, recs []*Record, cfg Config, audit *exectest.PlanAudit, file string) {
	ctx := context.Background()
	params := map[string]any{}
	for _, r := range recs {
		if (r.Skip == "noindex" && cfg.NoIndex) || (r.Skip == "index" && !cfg.NoIndex) {
			continue
		}
		switch r.Kind {
		case KindBind:
			v, err := bindValue(r.Args)
			if err != nil {
				t.Fatalf("%s:%d: %v", file, r.Line, err)
			}
			params[r.Param] = v
		case KindStatement, KindQuery:
			res, err := db.Exec(ctx, r.SQL, params)
			if err == nil && res != nil && res.Plan != "" {
				audit.Add(fmt.Sprintf("%s:%d (%s)", file, r.Line, cfg), res.Plan)
			}
			res.Release()
		}
	}
}
