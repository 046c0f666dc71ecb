// Command peerbench measures stablerow against DuckDB on the same data
// (issue 7) and writes a markdown report and a PNG plot.
//
//	cd bench && go run ./cmd/peerbench -rows 1000000,10000000 -out ../bench-report.md -plot ../docs/bench.png
//	cd bench && go run ./cmd/peerbench -quick
//
// For each table size it builds t in stablerow (CreateTable + Append in 1M
// row fragments, then CREATE INDEX on _rowid and on k), reads the rows back
// with their _rowid and _rowaddr, loads exactly those rows into two DuckDB
// databases (one plain, one with a unique ART index on _rowid), and runs
// every workload: first once per engine with a differential check (any
// difference exits non-zero), then alternating timed runs. The workloads
// are the take (with and without payload), an IN-list on k, the take after
// a delete of ~10%, after a recluster by k with the index remap deferred,
// and after OptimizeIndex. See package peer.
package main
