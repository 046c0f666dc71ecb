// Command tpch runs TPC-H on stablerow next to DuckDB (make tpch): it
// generates the data at -sf into -dir (once; reused), loads both engines
// from the same Parquet files, runs the 22 queries on DuckDB, on
// stablerow from SQL and on stablerow from each query's binary Substrait
// plan, compares every answer with DuckDB's and writes a Markdown report.
// It exits 1 when an answer differs or stablerow fails a query.
//
// With -ddl both (make tpch-ddl) it runs the paired comparison of
// stablerow with the specification's DDL against stablerow with
// TEXT/BIGINT instead (tpch.RunPaired; DuckDB is not loaded): the report
// flags every query whose spec/text CPU ratio exceeds 1.10, and the exit
// status is 1 only when the two variants' answers differ or a run fails
// (a ratio on a shared machine is a measurement, not a failure).
package main
