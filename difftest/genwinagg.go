package difftest

// winAggCall draws one of the aggregates PostgreSQL evaluates over a
// window beyond count, sum, avg, min and max (issue 29 item 1): ok false
// when nothing fits. What ties cannot change may be drawn over any
// window; what depends on the order the frame's rows are added in only
// under a total order (genwindow.go's total):
//   - stddev_samp, stddev, stddev_pop, var_samp, variance, var_pop of
//     smallint or numeric: numeric, exact in both (compared by value, as
//     genstddev.go's); of double precision only under a total order
//     (float8_accum's state depends on the order, and PostgreSQL 15
//     recomputes a frame whose start moved from its first row, as
//     stablerow does for frames this small), and Raises: float8_accum's
//     overflow.
//   - bool_and, every, bool_or of boolean; bit_and, bit_or of smallint,
//     integer, bigint (their type).
//   - string_agg of text with a literal or text delimiter, only under a
//     total order (it concatenates in the frame's order).
//
// Left out: the statistics of integer and bigint (a variance past 10^18
// does not fit stablerow's numeric(38, 20), genstddev.go).
func (g *Gen) winAggCall(col func(...Type) (scopeCol, bool), total bool) (t Type, call string, raises, framed, ok bool) {
	stats := []string{"stddev_samp", "stddev", "stddev_pop", "var_samp", "variance", "var_pop"}
	switch g.n(5) {
	case 0:
		if c, ok := col(TI16, TNumeric); ok {
			return TNumeric, pick(g, stats) + "(" + c.name + ")", false, true, true
		}
	case 1:
		if c, ok := col(TFloat); ok && total {
			return TFloat, pick(g, stats) + "(" + c.name + ")", true, true, true
		}
	case 2:
		if c, ok := col(TBool); ok {
			return TBool, pick(g, []string{"bool_and", "every", "bool_or"}) + "(" + c.name + ")", false, true, true
		}
	case 3:
		if c, ok := col(TI16, TI32, TInt); ok {
			return c.typ, pick(g, []string{"bit_and", "bit_or"}) + "(" + c.name + ")", false, true, true
		}
	default:
		if c, ok := col(TText); ok && total {
			d := pick(g, []string{"','", "''", "' | '"})
			if dc, ok := col(TText); ok && g.p(0.3) {
				d = dc.name
			}
			return TText, "string_agg(" + c.name + ", " + d + ")", false, true, true
		}
	}
	return 0, "", false, false, false
}
