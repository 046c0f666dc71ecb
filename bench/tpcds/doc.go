// Package tpcds is the TPC-DS benchmark for stablerow next to DuckDB
// (issue 29 item 8, make tpcds): a deterministic, seeded generator of the
// specification's 24 tables written here from the TPC-DS specification
// (its DDL's column types, Table 3-2's row counts at SF 1, 10 and 100,
// complete date_dim and time_dim, fact keys that point into their
// dimensions, and the text domains the 99 queries filter on), since
// DuckDB's tpcds extension (dsdgen) is not statically linked in duckdb-go;
// the 99 queries as DuckDB publishes them (queries/README.md names the
// source); and the runner that loads both engines from the same Parquet
// files, runs each query on both with the engines alternated per
// repetition, and compares every answer with DuckDB's (compare.go: in
// order where ORDER BY fixes it, else as a bag of rows; numbers at the
// printed scale; CHAR(n) padding aside only where listed, charPadded).
//
// The values follow the specification's shapes, not dsdgen's exact
// values, so answers are checked against DuckDB on the same data, never
// against the official answer set.
package tpcds
