// Package duck runs the peer benchmark's queries on DuckDB, through the C
// API that github.com/duckdb/duckdb-go/v2 exposes in its mapping package.
//
// Why the C API and not database/sql or the driver's Arrow interface:
// database/sql binds a list parameter one element at a time (about 1.2 µs
// per id) and scans results row by row, so for a million ids it measures the
// Go driver, not DuckDB (shared/reference/duckdb.md); the Arrow interface
// needs the duckdb_arrow build tag, which a plain `go run` does not set. Data
// chunks do neither: rows go in by copying Go slices into chunk vectors
// (appender) and come out by copying vectors into Go slices, 2048 rows at a
// time, so the timings are DuckDB's own plus two memcpy's.
//
// The id list of a take goes in as a table ids_v(rowid UBIGINT, ord BIGINT)
// appended per run, and the query joins it: `SELECT v.ord, t._rowaddr FROM
// ids_v AS v LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`. That is the
// fastest way to hand DuckDB a large list (duckdb.md: engine time 0.40 s for
// 1M ids over 10M rows against 0.9 s for UNNEST of a list parameter), so the
// comparison is against DuckDB at its best; the append is inside the timing,
// as binding :ids is on the stablerow side.
//
// Each DB is one in-memory database with one connection; it is not safe for
// concurrent use.
package duck
