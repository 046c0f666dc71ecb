package main

import "fmt"

// query is one measured statement: the same SQL on both engines.
type query struct {
	name, sql string
}

// queries are the measured windows over w(p, t, v): p has 1000 values
// (partitions of rows/1000 rows), t is distinct and increasing in
// insertion order (so each partition's rows are interleaved with the
// others' and the sort is real work), v is pseudo-random in [0, 10007).
// The RANGE frame spans 50 rows of a partition (t steps by 1000 in one);
// the ranking orders by v % 97, so there are ties (DuckDB's / of integers
// is a double division, PostgreSQL's and stablerow's an integer one: %
// means the same in all three).
func queries() []query {
	return []query{
		{"ranking (rank, dense_rank, row_number)", "SELECT count(*), sum(r), sum(dr), sum(rn) FROM (SELECT " +
			"rank() OVER (PARTITION BY p ORDER BY v % 97) AS r, dense_rank() OVER (PARTITION BY p ORDER BY v % 97) AS dr, " +
			"row_number() OVER (PARTITION BY p ORDER BY v % 97) AS rn FROM w) s"},
		{"moving sum, ROWS 99 PRECEDING", "SELECT sum(m) FROM (SELECT sum(v) OVER (PARTITION BY p ORDER BY t " +
			"ROWS BETWEEN 99 PRECEDING AND CURRENT ROW) AS m FROM w) s"},
		{"moving sum, RANGE 50000 PRECEDING", "SELECT sum(m) FROM (SELECT sum(v) OVER (PARTITION BY p ORDER BY t " +
			"RANGE BETWEEN 50000 PRECEDING AND CURRENT ROW) AS m FROM w) s"},
		{"lag", "SELECT sum(d) FROM (SELECT v - lag(v, 1, 0) OVER (PARTITION BY p ORDER BY t) AS d FROM w) s"},
	}
}

// loadSQL builds w with rows rows in the engine's dialect: both give the
// same values (p INTEGER, t and v BIGINT).
func loadSQL(engine string, rows int) []string {
	sel := "(g %% 1000)::INTEGER AS p, g::BIGINT AS t, ((g * 7919) %% 10007)::BIGINT AS v"
	if engine == engineDuck {
		return []string{fmt.Sprintf("CREATE TABLE w AS SELECT "+sel+" FROM range(1, %d) r(g)", rows+1)}
	}
	// stablerow: generate_series(bigint, bigint) in slices, so one
	// INSERT's source stays small.
	out := []string{"CREATE TABLE w (p INTEGER, t BIGINT, v BIGINT)"}
	const slice = 1_000_000
	for lo := 1; lo <= rows; lo += slice {
		hi := min(lo+slice-1, rows)
		out = append(out, fmt.Sprintf("INSERT INTO w SELECT "+sel+" FROM generate_series(%d::BIGINT, %d::BIGINT) AS s(g)", lo, hi))
	}
	return out
}
