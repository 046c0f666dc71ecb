// Command beambench measures the Beam pipelines on Prism (in this
// process) against the single-process path, for BENCHMARKS.md
// ("Distributed tasks (Beam)"):
//
//	beambench -dir D -rows 10000000 -frag-rows 50000 -target-rows 500000 -ids 1000000 -workers 1,2,4
//
// It builds (once, kept in D/base) a table of -rows rows in fragments of
// -frag-rows with a _rowid index, then for each worker count copies it
// and compacts the copy by the pipeline (W shards) and in process
// (table.Compact, W goroutines); and takes -ids random ids by the pipeline
// (Parquet parts) and in process (DB.BulkTake, W goroutines, written to one
// Parquet file, so both paths encode and write what they take). Each
// pipeline answer is checked against the single-process one first.
package main
