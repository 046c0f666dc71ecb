// Command windowbench measures stablerow's window operator against DuckDB
// on one table of N rows (default 10M): ranking functions, a moving sum
// over a ROWS frame and over a RANGE frame, and lag, each as a query that
// folds the window's output into one row, so the answer is small and
// compared between the engines (a difference is reported, never timed).
//
// Each run is a fresh child process (this binary again) that opens the
// engine's on-disk database, sets threads and the memory limit, runs one
// query and reports its wall time, its process's CPU time (getrusage of
// the child) and peak RSS (the child's VmHWM). stablerow's child sets Go's
// GC soft limit to twice memory_limit, as the CLI's -memory-limit does.
// The parent alternates the engines per repetition (stablerow first in
// odd repetitions, DuckDB first in even ones) and reports medians. Both
// databases are built once under -dir and reused: stablerow's by INSERT ... SELECT from generate_series,
// DuckDB's (a file database, not in memory, so neither holds the table
// in its heap) by CREATE TABLE AS from range().
//
// WINDOWBENCH_CPUPROFILE=FILE makes each child write a CPU profile of its
// query there (run with -reps 1 and one engine's interest in mind).
// WINDOWBENCH_HEAPPROFILE=FILE makes a stablerow child write a heap
// profile taken near its live heap's peak, and print that peak
// (heapprof.go). WINDOWBENCH_GCLIMIT=F sets stablerow's GC soft limit to
// F times memory_limit instead of twice it.
//
//	windowbench -rows 10000000 -dir /tmp/windowbench -reps 5 -threads 2 -mem 1GB -out window.md
package main
