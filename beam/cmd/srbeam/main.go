package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/stablerow/stablerow/beam/pipeline"
)

const usage = `usage: srbeam compact|recluster|optimize-index|create-index|take [flags]   (srbeam CMD -h lists a command's flags)`

var (
	db         = flag.String("db", "", "database location: a directory or s3://bucket/prefix")
	tableName  = flag.String("table", "", "table name")
	workers    = flag.Int("workers", 0, "shards the tasks are spread over (0: one per task, the runner decides)")
	attempts   = flag.Int("attempts", 3, "tries of a failing task before the job fails")
	targetRows = flag.Int("target-rows", 0, "compact: rows per destination fragment (0: the table's default)")
	index      = flag.String("index", "", "recluster, optimize-index, create-index: the index name")
	column     = flag.String("column", "", "create-index: the column")
	tasks      = flag.Int("tasks", 0, "recluster, optimize-index, create-index: tasks (0: -workers, at least 1)")
	ids        = flag.String("ids", "", "take: Parquet file of row ids (path or s3://bucket/key)")
	idColumn   = flag.String("id-column", "id", "take: the ids file's column")
	out        = flag.String("out", "", "take: output directory or s3:// prefix (must hold no earlier take)")
	columns    = flag.String("columns", "", "take: comma-separated columns (default: all and _rowid)")
	taskRows   = flag.Int("task-rows", 0, "take: rows per task (0: 65536)")
	verify     = flag.Bool("verify", false, "take: check the output against the single-process take")
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	// A Beam worker binary is started with flags only (--worker ...): let
	// beam.Init take over then.
	cmd := os.Args[1]
	if !strings.HasPrefix(cmd, "-") {
		os.Args = append(os.Args[:1], os.Args[2:]...)
	}
	flag.Parse()
	beam.Init()
	if err := runCmd(context.Background(), cmd); err != nil {
		fmt.Fprintln(os.Stderr, "srbeam:", err)
		os.Exit(1)
	}
}

func runCmd(ctx context.Context, cmd string) error {
	if *db == "" || *tableName == "" {
		return fmt.Errorf("-db and -table are required\n%s", usage)
	}
	exec := pipeline.ExecOptions{Workers: *workers, Attempts: *attempts}
	switch cmd {
	case "compact":
		rep, err := pipeline.Compact(ctx, beamx.RunWithMetrics, pipeline.CompactConfig{
			DB: *db, Table: *tableName, TargetRows: *targetRows, Exec: exec})
		if err != nil {
			return err
		}
		return printJSON(rep)
	case "recluster":
		rep, err := pipeline.Recluster(ctx, beamx.RunWithMetrics, pipeline.ReclusterConfig{
			DB: *db, Table: *tableName, Index: *index, Tasks: *tasks, Exec: exec})
		if err != nil {
			return err
		}
		return printJSON(rep)
	case "optimize-index", "create-index":
		rep, err := pipeline.Index(ctx, beamx.RunWithMetrics, pipeline.IndexConfig{
			DB: *db, Table: *tableName, Name: *index, Column: *column, Optimize: cmd == "optimize-index", Tasks: *tasks, Exec: exec})
		if err != nil {
			return err
		}
		return printJSON(rep)
	case "take":
		c := pipeline.TakeConfig{DB: *db, Table: *tableName, IDs: *ids, IDColumn: *idColumn, Out: *out,
			MaxTaskRows: *taskRows, Exec: exec}
		if *columns != "" {
			c.Columns = strings.Split(*columns, ",")
		}
		rep, err := pipeline.Take(ctx, beamx.RunWithMetrics, c)
		if err != nil {
			return err
		}
		if *verify {
			if err := pipeline.VerifyTake(ctx, c, memory.DefaultAllocator); err != nil {
				return err
			}
		}
		rep.Manifest.Parts = nil // the manifest file lists them
		return printJSON(rep)
	default:
		return fmt.Errorf("unknown command %q\n%s", cmd, usage)
	}
}

func printJSON(v any) error {
	e := json.NewEncoder(os.Stdout)
	e.SetIndent("", "  ")
	return e.Encode(v)
}
