// Package window is WindowExec, the operator that evaluates PostgreSQL's
// window functions (row_number, rank, dense_rank, percent_rank,
// cume_dist, ntile, lag, lead, first_value, last_value, nth_value, and
// the aggregates over a frame: count, sum, avg, min, max, the standard
// deviations and variances, bool_and, bool_or, bit_and, bit_or and
// string_agg) over input ordered by its
// partition and order keys: the SortExec below it, shared by windows whose
// ordering is a prefix of one already there (Ordering says which).
//
// It holds one partition at a time (window_stream.go, a state machine
// drawn there), reserving it from the statement's memory pool and failing
// with memlimit.ErrResourceExhausted for a partition larger than the
// limit. Frames (ROWS, RANGE with offsets over integers, floats, numerics
// and dates, GROUPS) are bounds per row (window_frame.go), less the rows
// an EXCLUDE clause leaves out: at most three runs of rows a frame
// (window_exclude.go, window_exclude_agg.go), and the
// aggregates over them are incremental (window_agg.go): prefix totals for
// count, sum and avg (exact 128- and 192-bit totals, and exec.FloatSum's
// steps for floats, so that sum(x) OVER () equals GROUP BY's sum(x)), a
// monotone deque for min and max; exact prefix totals of N, sumX and
// sumX2 for the statistics of integers and numerics, float8_accum's
// state recomputed as PostgreSQL does (or a segment tree for a long
// moving frame) for floats (window_stats.go); prefix counts for bool_and
// and bool_or, a segment tree for bit_and and bit_or (window_boolbit.go);
// one laid-out copy of the partition's strings for string_agg, whose
// results are reserved before they are built (window_stringagg.go). In parallel, a window with PARTITION BY
// runs per stream over a hash repartition on those columns
// (window_partitions.go).
//
// It sits above exec and uses only what exec exports for operator
// packages; the planner (plan/window.go) builds it from Substrait window
// functions.
package window
