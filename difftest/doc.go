// Package difftest is a differential test of stablerow against a real
// PostgreSQL server: a seeded generator of schemas, data (NULLs, int64 and
// float64 extremes, NaN, signed zero, infinities, empty and non-ASCII
// strings), DML, expressions and queries over the SQL surface stablerow
// supports, run on both sides with the same SQL text and compared exactly.
//
//	Gen (seed, case i) --> Case{Tables, DML, Query}
//	                          |  Setup() + Query.SQL(): one text, two engines
//	             +------------+------------+
//	             v                         v
//	      PG (pgx, simple protocol)   Stablerow (engine.OpenMemory,
//	      text as the server wrote it  checked allocator) -> pgText
//	             |                         |
//	             +--------> Diff <---------+  normalize.go: the one place the
//	                          |               two forms are reconciled
//	                   divergence? -> Shrink (drop rows, clauses, operands
//	                          |        while the same Kind persists)
//	                          v
//	                   Report + .slt reproducer (expected = PostgreSQL)
//
// Errors count: both sides raise, or neither (SQLSTATE logged). Rows
// compare as lists when the query's ORDER BY is total (the generator
// appends unique keys as tiebreakers), else as multisets.
//
// The module is separate from the library's (its own go.mod) so the
// PostgreSQL driver never becomes a dependency of stablerow. run.sh
// starts a private server and runs cmd/difftest; `make difftest` calls it.
// regressions/*.slt are the divergences found so far, in sqltest's format
// with PostgreSQL's answers: the harness replays them first (checking
// PostgreSQL still gives the recorded answer), and a record passes once
// stablerow gives it too.
package difftest
