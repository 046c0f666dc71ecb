// Package tpch is the TPC-H benchmark for stablerow next to DuckDB (issue
// 18, make tpch): a deterministic, seeded TPC-H data generator written
// here (dbgen is not used: DuckDB's tpch extension is not statically
// linked in duckdb-go and cannot be downloaded offline), the 22 queries
// with the substitution parameters of the specification's validation run,
// a loader that puts the same Parquet files into both engines, and a
// runner that checks every answer of stablerow (from SQL and from the
// query's own Substrait plan loaded back) against DuckDB's.
//
// RunPaired (make tpch-ddl, -ddl both) is the paired comparison of issue
// 26 item 1: stablerow with the specification's DDL against stablerow
// with TEXT/BIGINT on the same data, the two runs of each repetition back
// to back in alternating order, CPU time measured per run.
//
// The generator follows TPC-H 3.0.1, clause 4.2: the table sizes and keys
// of 4.2.5 (sparse order keys, customers with custkey mod 3 = 0 place no
// orders, the four suppliers of a part), the column domains and
// distributions of 4.2.3 (dates, prices, discounts, the derived return
// flag, line status and order status, phone numbers from the nation),
// the word lists of 4.2.2.13 (part names from the 92 colors, types,
// containers, segments, priorities, ship modes and instructions) and the
// text grammar of 4.2.2.14 for comments (a pool of sentences, each
// comment a random substring of it, as dbgen does). Values are not
// byte-identical to dbgen's (a different random generator), so answers
// are compared between the two engines on the same data, never with the
// specification's published answer set.
package tpch
