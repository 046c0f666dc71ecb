package difftest

// statsAggregate draws one of PostgreSQL's statistical aggregates
// (stddev_samp, stddev, stddev_pop, var_samp, variance, var_pop), maybe
// DISTINCT, over smallint or numeric: numeric in both systems, compared
// by value (normalization 8: stablerow pads its column to max(s, 20)
// digits, PostgreSQL prints each value at its rscale). Left out, and why:
//   - double precision and real arguments: float8_accum's result depends
//     on the order the rows are added in (as float avg's, genagg.go); exec
//     pins those semantics in its unit tests.
//   - bigint and integer arguments: a variance past 10^18 does not fit
//     stablerow's numeric(38, 20) (numeric field overflow, where
//     PostgreSQL's numeric has no limit), and random bigints reach it.
func (g *Gen) statsAggregate(s scope) *Expr {
	t := pick(g, []Type{TI16, TNumeric})
	a := g.expr(s, t, 1, false)
	op := "agg"
	if g.p(0.2) {
		op = "aggdistinct"
	}
	name := pick(g, []string{"stddev_samp", "stddev", "stddev_pop", "var_samp", "variance", "var_pop"})
	return &Expr{Op: op, Type: TNumeric, Text: name, Args: []*Expr{a}, Raises: a.Raises}
}
