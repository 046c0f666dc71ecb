package optimize

import (
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// DistinctCounter is Stats that also knows a table column's number of
// distinct non-null values (the engine's catalog: the tables' sketches,
// table/sketch.go), PostgreSQL's pg_statistic.stadistinct. ok is false
// when unknown (a table whose files predate the sketches, a column not
// there): the estimator then keeps its fixed guesses, as PostgreSQL's
// selectivity functions fall back to defaults for a column never
// analysed.
type DistinctCounter interface {
	ColumnDistinct(table, column string) (ndv float64, ok bool)
}

// columnDistinct is the named table's column's distinct count, the
// names also tried in lower case (Isthmus writes unquoted identifiers
// upper case).
func (x estimator) columnDistinct(names []string, column string) (float64, bool) {
	dc, ok := x.st.(DistinctCounter)
	if !ok || len(names) != 1 {
		return 0, false
	}
	if n, ok := dc.ColumnDistinct(names[0], column); ok {
		return max(n, 1), true
	}
	if n, ok := dc.ColumnDistinct(strings.ToLower(names[0]), strings.ToLower(column)); ok {
		return max(n, 1), true
	}
	return 0, false
}

// readDistinct is the distinct count of column col of a read's base
// schema (before its emit), as its filters reference it.
func (x estimator) readDistinct(r *splan.NamedTableReadRel, col int) (float64, bool) {
	bs := r.BaseSchema()
	if r.Projection() != nil || len(bs.Names) != len(bs.Struct.Types) || col < 0 || col >= len(bs.Names) {
		return 0, false
	}
	return x.columnDistinct(r.Names(), bs.Names[col])
}

// distinct is the distinct count of column col of r's output, traced
// to the table column it reads (base), as PostgreSQL's examine_variable
// finds the base relation's Var under a join: PostgreSQL does not lower
// stadistinct for the rows a filter drops either (eqjoinsel reads the
// column's own). ok is false where the column is computed or the
// table's count unknown.
func (x estimator) distinct(r splan.Rel, col int) (float64, bool) {
	read, c, _, ok := base(r, col)
	if !ok {
		return 0, false
	}
	return x.readDistinct(read, c)
}

// base is the table read and its base column that column col of r's
// output is, traced through the relations that pass a column on
// unchanged (filters, sorts, fetches, projections' column references,
// joins' sides, groupings), and the conjuncts met on the way that are
// over the read's base columns (its own filter, and a filter right on a
// read that has no emit): the filters the read's rows pass before they
// reach r (keySpan reads them). ok is false where the column is
// computed.
func base(r splan.Rel, col int) (read *splan.NamedTableReadRel, c int, cs []expr.Expression, ok bool) {
	if m := r.OutputMapping(); m != nil {
		if col < 0 || col >= len(m) {
			return nil, 0, nil, false
		}
		col = int(m[col])
	}
	switch r := r.(type) {
	case *splan.NamedTableReadRel:
		return r, col, conjuncts(r.Filter()), true
	case *splan.FilterRel:
		read, c, cs, ok = base(r.Input(), col)
		if in, isRead := r.Input().(*splan.NamedTableReadRel); ok && isRead && in.Projection() == nil {
			m := in.OutputMapping()
			for _, e := range conjuncts(r.Condition()) {
				if m != nil {
					e = remap(e, func(i int) int {
						if i >= 0 && i < len(m) {
							return int(m[i])
						}
						return -1
					})
				}
				cs = append(cs, e)
			}
		}
		return read, c, cs, ok
	case *splan.SortRel:
		return base(r.Input(), col)
	case *splan.FetchRel:
		return base(r.Input(), col)
	case *splan.ProjectRel:
		w := width(r.Input())
		if col < w {
			return base(r.Input(), col)
		}
		if es := r.Expressions(); col-w < len(es) {
			if c, ok := fieldColumn(es[col-w]); ok {
				return base(r.Input(), c)
			}
		}
	case *splan.JoinRel:
		w := width(r.Left())
		if col < w {
			return base(r.Left(), col)
		}
		switch r.Type() {
		case splan.JoinTypeInner, splan.JoinTypeLeft, splan.JoinTypeRight, splan.JoinTypeOuter:
			return base(r.Right(), col-w)
		}
	case *splan.CrossRel:
		w := width(r.Left())
		if col < w {
			return base(r.Left(), col)
		}
		return base(r.Right(), col-w)
	}
	return nil, 0, nil, false
}

// fieldColumn is the column e references when it is a plain reference
// to one.
func fieldColumn(e expr.Expression) (int, bool) {
	fr, ok := e.(*expr.FieldReference)
	if !ok || fr.Root != expr.RootReference {
		return 0, false
	}
	s, ok := fr.Reference.(*expr.StructFieldRef)
	if !ok || s == nil || s.Child != nil {
		return 0, false
	}
	return int(s.Field), true
}

// eqConstColumn is the column c compares for equality with an
// expression that reads no column (a constant, a parameter): the
// clauses PostgreSQL's eqsel estimates (var_eq_const).
func eqConstColumn(c expr.Expression) (int, bool) {
	f, ok := c.(*expr.ScalarFunction)
	if !ok || f.NArgs() != 2 || name(f) != "equal" {
		return 0, false
	}
	a, ok1 := f.Arg(0).(expr.Expression)
	b, ok2 := f.Arg(1).(expr.Expression)
	if !ok1 || !ok2 {
		return 0, false
	}
	readsNone := func(e expr.Expression) bool {
		n := 0
		return columns(e, func(int) { n++ }) && n == 0
	}
	if col, ok := eqOperandColumn(a); ok && readsNone(b) {
		return col, true
	}
	if col, ok := eqOperandColumn(b); ok && readsNone(a) {
		return col, true
	}
	return 0, false
}

// eqOperandColumn is the column an equality's operand reads with its
// distinct values kept: a bare field, or a field cast to text. The SQL
// front end writes c = 'F' on a CHAR(n) column as cast(c AS string) =
// 'F' (bpchar's equality ignores trailing blanks, the cast strips them),
// and PostgreSQL's bpchareq estimates on the Var's ndistinct; a cast of
// any value to text is one-to-one on its equality classes, so the count
// holds. Without this TPC-H Q21's o_orderstatus = 'F' on the
// specification's CHAR(1) got the default quarter, not a third, and a
// different join order than its TEXT variant.
func eqOperandColumn(e expr.Expression) (int, bool) {
	if c, ok := e.(*expr.Cast); ok {
		switch c.Type.(type) {
		case *types.StringType, *types.VarCharType:
			return fieldColumn(c.Input)
		}
		return 0, false
	}
	return fieldColumn(e)
}

// restricted is e after the conjuncts cs, whose columns have the
// distinct counts ndv reports and the zone maps zones reports: an
// equality of a column with a constant keeps 1/ndistinct of the rows
// where the count is known (PostgreSQL's var_eq_const without
// most-common values: selec = 1/ndistinct); the constant ranges on a
// column with a zone map keep what rangeKeeps reads from the batches'
// bounds (PostgreSQL's histogram selectivity, with the batches as the
// buckets); every other restriction filterKeeps (restrictions).
func restricted(e estimate, cs []expr.Expression, ndv func(col int) (float64, bool), zones func(col int) (ColumnZones, bool)) estimate {
	keep, cs := rangeKeeps(cs, zones)
	e.rows *= keep
	e.frac *= keep
	rest := cs[:0:0]
	for _, c := range cs {
		if col, ok := eqConstColumn(c); ok {
			if n, ok := ndv(col); ok {
				e.rows /= n
				e.frac /= n
				continue
			}
		}
		if ds := disjuncts(c); len(ds) > 1 {
			// An OR keeps the rows any disjunct keeps: at most the sum
			// of what each keeps (PostgreSQL's clause_selectivity adds
			// them less their overlap; disjuncts of one column's
			// equalities do not overlap): d_qoy = 1 OR d_qoy = 2 keeps
			// 2/ndv, not one guessed restriction's third.
			keep := 0.0
			for _, d := range ds {
				keep += restricted(estimate{rows: 1, frac: 1}, conjuncts(d), ndv, zones).frac
			}
			keep = min(keep, 1)
			e.rows *= keep
			e.frac *= keep
			continue
		}
		rest = append(rest, c)
	}
	return e.filtered(restrictions(rest))
}
