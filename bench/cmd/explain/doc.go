// Command explain prints the stablerow plan of each TPC-H or TPC-DS
// query: EXPLAIN (the plan chosen), or with -analyze EXPLAIN ANALYZE
// (each operator's actual rows and time). Diffing its output
// before and after a planner change lists the plans the change moves
// (issue 29: range estimates from zone maps).
//
//	go run ./cmd/explain -suite tpcds -dir /work/tpcdsdata/sf1-seed1 -q 36 -analyze
package main
