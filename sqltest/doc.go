// Package sqltest runs sqllogictest files against the engine.
//
// A file is a sequence of records separated by blank lines:
//
//	statement ok
//	CREATE TABLE t (k BIGINT NOT NULL, s TEXT)
//
//	statement error <substring of the error>
//	SELECT nope FROM t
//
//	query IT rowsort
//	SELECT k, s FROM t WHERE k < 3
//	----
//	1 a
//	2 NULL
//
//	bind ids 5 3 NULL 9          (binds :ids to a list; NULL allowed)
//	bind ids series 1 100000     (the list 1, 2, ..., 100000)
//	bind names text ann NULL bob (a text list; NULL allowed)
//
// `query` types are one letter per column (I integer, R real, T text,
// B boolean); values print space-separated, NULL as NULL and the empty
// string as (empty); reals print as PostgreSQL's float8out (value.FormatFloat). `rowsort` compares rows sorted; without it order
// matters. `skipif noindex` / `onlyif noindex` before a record limit it to
// runs with or without indexes (EXPLAIN output differs, results do not);
// `skipif parallel` / `onlyif parallel` to runs with threads = 1 or above
// (EXPLAIN shows the partitions).
//
// Every file runs metamorphically — batch sizes 1, 2 and 8192, with and
// without indexes, at threads 1, 2 and 4 (partitioned plans: see
// Configs) — and every run must match the same expected output.
// Files named *_large.slt (100K-row inputs) run at batch sizes 8192 and
// 1024 instead, with and without indexes.
// `go test ./sqltest -rewrite` rewrites the expected output from the first
// configuration (batch 8192, indexes on); review the diff before committing.
package sqltest
