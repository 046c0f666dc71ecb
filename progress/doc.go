// Package progress counts a long statement's work for whoever watches it.
//
// A caller that wants progress (the CLI, on a terminal) puts a Meter in
// the statement's context; the layers that do the work add to it as they
// go: a table scan adds the rows it will read when it starts and the rows
// it has read after each batch, a table write adds the rows it has
// written. A context without a Meter costs one context lookup per scan or
// writer, not per row or batch, and nothing is counted.
//
// The package sits at the bottom of the import graph (it imports only the
// standard library), so any layer may feed one Meter; today table's scan
// and writer do (table/scan.go, table/write.go), and the CLI puts the
// Meter in the context and draws it (cmd/stablerow/progress.go).
package progress
