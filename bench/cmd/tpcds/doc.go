// Command tpcds is the TPC-DS benchmark (make tpcds): it generates the 24
// tables at a scale factor with bench/tpcds's generator (once, as Parquet),
// loads DuckDB and stablerow from the same files, runs the 99 queries on
// both, checks every stablerow answer against DuckDB's and prints a
// Markdown table of the answers and median times. It exits 1 when a query
// is refused or answered differently.
package main
