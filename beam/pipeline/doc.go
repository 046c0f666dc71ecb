// Package pipeline runs stablerow's heavy maintenance jobs as Apache Beam
// pipelines: the library splits each job into a plan, independent tasks
// and one commit (table/compact_tasks.go, access/bulktake.go); this
// package hands the tasks to Beam, so the same pipeline runs in-process on
// Prism or on Flink, Spark or Dataflow through the portable runner.
//
//	driver                   workers (any number, any machine)          one worker
//	──────                   ─────────────────────────────────          ──────────
//	Plan (reads one version)
//	  │ tasks as JSON
//	  ▼
//	Create ─► key by shard ─► GroupByKey ─► Execute each task ─┐
//	                          (fusion break,  (writes new files │ results
//	                           spreads the     only; retried    ▼ (side input)
//	                           shards)         in the DoFn)    Commit / manifest
//
// Compact, Recluster and Index (build or optimize) are one pipeline
// (jobs.go) that differs only in the library calls: the commit is
// table.CommitCompaction, table.CommitRecluster or
// access.CommitIndexBuild, one atomic commit; a pipeline that fails
// before it leaves the table at the version it had (the files written by
// finished tasks are orphans, for Vacuum).
// Take: each task writes one Parquet file part-NNNNNN.parquet (the columns
// plus "ord", the id's 1-based position in the input, as WITH ORDINALITY
// and the Flight SQL server's split takes number it; _missing.parquet's
// ord likewise) and the last step writes
// _manifest.json; a task's file name is fixed by its sequence number, so
// a retried or duplicated task overwrites its own file and never
// duplicates rows.
//
// Retries: Prism (v2.78.0) fails the job on the first failed bundle
// (prism/internal/stage.go: "TODO sort out rescheduling primary Roots on
// bundle failure"), so each task is retried inside the DoFn (Exec.Attempts
// times); that is correct because Execute is idempotent in effect. Runners
// that retry bundles (Dataflow, Flink) retry on top of that.
//
// Parallelism: Exec.Workers shards the tasks over that many keys (tasks of
// one shard run one after another); 0 gives every task its own key and
// lets the runner decide. Prism runs up to 8 bundles at once and splits a
// bundle that makes slow progress, so W shards give at most W tasks in
// flight.
package pipeline
