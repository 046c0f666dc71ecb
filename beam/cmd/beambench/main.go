package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/stablerow/stablerow/beam/pipeline"
	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/table"
)

var (
	dir        = flag.String("dir", ".beambench", "working directory (the base table is kept and reused)")
	rows       = flag.Int("rows", 1_000_000, "table rows")
	fragRows   = flag.Int("frag-rows", 50_000, "rows per fragment of the base table")
	targetRows = flag.Int("target-rows", 500_000, "compaction: rows per destination fragment (one task each)")
	nIDs       = flag.Int("ids", 100_000, "take: random ids (5% of them match no row)")
	workerList = flag.String("workers", "1,2,4", "worker counts")
	skipVerify = flag.Bool("no-verify", false, "skip the equality checks")
)

func main() {
	flag.Parse()
	beam.Init()
	if err := bench(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "beambench:", err)
		os.Exit(1)
	}
}

func bench(ctx context.Context) error {
	var ws []int
	for _, f := range strings.Split(*workerList, ",") {
		w, err := strconv.Atoi(f)
		if err != nil || w <= 0 {
			return fmt.Errorf("bad -workers %q", *workerList)
		}
		ws = append(ws, w)
	}
	base := filepath.Join(*dir, fmt.Sprintf("base-%d-%d", *rows, *fragRows))
	if err := ensureBase(ctx, base); err != nil {
		return err
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("machine: %d CPUs (GOMAXPROCS %d), load at start %s", runtime.NumCPU(), runtime.GOMAXPROCS(0), load)
	fmt.Printf("table: %d rows in fragments of %d; compaction target %d rows/task; take of %d ids\n\n", *rows, *fragRows, *targetRows, *nIDs)
	fmt.Println("| job | path | workers | tasks | wall s | max tasks in flight | task s (sum) | per task s |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|")
	for _, w := range ws {
		if err := benchCompact(ctx, base, w); err != nil {
			return err
		}
	}
	for _, w := range ws {
		if err := benchTake(ctx, base, w); err != nil {
			return err
		}
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("\nload at end %s", load)
	return nil
}

func ensureBase(ctx context.Context, base string) error {
	if _, err := os.Stat(filepath.Join(base, "t")); err == nil {
		return nil
	}
	_ = os.RemoveAll(base)
	db, err := engine.Open(base, engine.Options{Create: true, Table: table.Options{MaxRowsPerFragment: *fragRows}})
	if err != nil {
		return err
	}
	start := time.Now()
	for _, q := range []string{
		"CREATE TABLE t (k BIGINT NOT NULL, v DOUBLE PRECISION, s TEXT)",
		fmt.Sprintf("INSERT INTO t SELECT g, g * 0.5, 'row ' || CAST(g AS TEXT) FROM generate_series(0, %d) AS g(g)", *rows-1),
		"CREATE INDEX rid ON t USING btree (_rowid)",
	} {
		res, err := db.Exec(ctx, q, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		res.Release()
	}
	fmt.Fprintf(os.Stderr, "built %s in %.1fs\n", base, time.Since(start).Seconds())
	return nil
}

// fresh copies the base database to a new directory (compaction changes it).
func fresh(base, name string) (string, error) {
	dst := filepath.Join(*dir, name)
	_ = os.RemoveAll(dst)
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	return dst, err
}

func row(job, path string, w, tasks int, wall time.Duration, inflight int64, taskMicros int64) {
	per := ""
	sum := ""
	if taskMicros > 0 && tasks > 0 {
		sum = fmt.Sprintf("%.2f", float64(taskMicros)/1e6)
		per = fmt.Sprintf("%.3f", float64(taskMicros)/1e6/float64(tasks))
	}
	inf := ""
	if inflight > 0 {
		inf = strconv.FormatInt(inflight, 10)
	}
	fmt.Printf("| %s | %s | %d | %d | %.2f | %s | %s | %s |\n", job, path, w, tasks, wall.Seconds(), inf, sum, per)
}

func benchCompact(ctx context.Context, base string, w int) error {
	a, err := fresh(base, "compact-beam")
	if err != nil {
		return err
	}
	pipeline.ResetInFlight()
	start := time.Now()
	rep, err := pipeline.Compact(ctx, prism.Execute, pipeline.CompactConfig{DB: a, Table: "t", TargetRows: *targetRows,
		Exec: pipeline.ExecOptions{Workers: w}})
	if err != nil {
		return err
	}
	row("compact", "Beam (Prism)", w, rep.Tasks, time.Since(start), pipeline.MaxInFlight(), rep.Metrics.TaskMicros)

	b, err := fresh(base, "compact-local")
	if err != nil {
		return err
	}
	st, err := engine.OpenStore(ctx, pipeline.TableLocation(b, "t"), engine.Options{})
	if err != nil {
		return err
	}
	t, err := table.Open(ctx, st, table.Options{})
	if err != nil {
		return err
	}
	start = time.Now()
	nt, err := t.Compact(ctx, table.CompactOptions{TargetRows: *targetRows, DeferIndexRemap: true, Workers: w})
	if err != nil {
		return err
	}
	row("compact", "single process", w, rep.Tasks, time.Since(start), 0, 0)
	if rep.FragmentsAfter != len(nt.Fragments()) {
		return fmt.Errorf("compaction: %d fragments by the pipeline, %d in process", rep.FragmentsAfter, len(nt.Fragments()))
	}
	_ = os.RemoveAll(a)
	return os.RemoveAll(b)
}

func benchTake(ctx context.Context, base string, w int) error {
	ids := make([]uint64, *nIDs)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range ids {
		ids[i] = uint64(r.Int64N(int64(*rows) * 105 / 100))
	}
	idsFile := filepath.Join(*dir, "ids.parquet")
	if err := pipeline.WriteIDs(ctx, idsFile, ids, memory.DefaultAllocator); err != nil {
		return err
	}
	out := filepath.Join(*dir, "take-out")
	_ = os.RemoveAll(out)
	c := pipeline.TakeConfig{DB: base, Table: "t", IDs: idsFile, Out: out, Exec: pipeline.ExecOptions{Workers: w}}
	pipeline.ResetInFlight()
	start := time.Now()
	rep, err := pipeline.Take(ctx, prism.Execute, c)
	if err != nil {
		return err
	}
	row("take", "Beam (Prism)", w, rep.Tasks, time.Since(start), pipeline.MaxInFlight(), rep.Metrics.TaskMicros)
	if !*skipVerify {
		if err := pipeline.VerifyTake(ctx, c, memory.DefaultAllocator); err != nil {
			return err
		}
	}

	db, err := engine.Open(base, engine.Options{Workers: w})
	if err != nil {
		return err
	}
	start = time.Now()
	var buf bytes.Buffer
	var fw *pqarrow.FileWriter
	_, err = db.BulkTake(ctx, "t", ids, rep.Manifest.Columns, func(b arrow.RecordBatch) error {
		if fw == nil {
			var err error
			fw, err = pqarrow.NewFileWriter(b.Schema(), &buf, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd)),
				pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
			if err != nil {
				return err
			}
		}
		return fw.Write(b)
	})
	if err == nil && fw != nil {
		err = fw.Close()
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(*dir, "take-local.parquet"), buf.Bytes(), 0o644)
	}
	if err != nil {
		return err
	}
	row("take", "single process", w, rep.Tasks, time.Since(start), 0, 0)
	return os.RemoveAll(out)
}
