// Command explain prints the stablerow plan of each TPC-H or TPC-DS
// query: EXPLAIN (COSTS) (the plan chosen, each node's estimated rows),
// or with -analyze EXPLAIN (ANALYZE, COSTS) (the estimates beside each
// node's actual rows); with -runs, each query's CPU. Diffing its output
// before and after a planner change lists the plans the change moves
// (issue 29: range estimates from zone maps).
//
//	go run ./cmd/explain -suite tpcds -dir /work/tpcdsdata/sf1-seed1 -q 36 -analyze
package main
