package optimize

import (
	"slices"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// filterKeeps is the fraction of rows each restriction of a filter is
// assumed to keep (restrictions: a conjunct, or a range). Join ordering
// and the physical planner's build-side choice (Estimated) read the same
// estimates.
const filterKeeps = 0.25

// unknownRows is the guess for a relation whose size nothing tells (a
// file read, a table the statistics do not count): the SQL front end's.
const unknownRows = 100_000

// estimate is a relation's estimated rows, and the fraction of its
// largest base table's rows they are: how selective the relation is as a
// build side (a key join keeps that fraction of the probe rows). guessed:
// some part of it is unknownRows (a table Stats does not count, a file
// read, a relation the estimator does not know).
type estimate struct {
	rows, frac float64
	guessed    bool
}

// Estimate is the optimizer's estimate of a relation, for the physical
// planner's build-side choice (plan/buildside.go): the one row estimator
// of the planner.
type Estimate struct {
	// Rows is the estimated output rows; Frac the fraction of its largest
	// base table's rows they are.
	Rows, Frac float64
}

// Estimated is r's estimate from st; known is false when it rests on a
// guess (estimate.guessed), where a choice between two inputs has nothing
// to go on.
func Estimated(r splan.Rel, st Stats) (e Estimate, known bool) {
	x := estimator{st: st}.rows(r)
	return Estimate{Rows: x.rows, Frac: x.frac}, !x.guessed
}

// filtered is e after n conjuncts.
func (e estimate) filtered(n int) estimate {
	for range n {
		e.rows *= filterKeeps
		e.frac *= filterKeeps
	}
	return e
}

// keyJoin is the estimate of an inner join on a key of a and b: the
// input over the larger table (rows/frac: its largest base table's rows)
// keeps the other's fraction, as a foreign key from the larger table
// meets the smaller table's key. Comparing tables, not the inputs' rows,
// makes the estimate of several key joins Π frac × the largest table's
// rows, in whatever order they are joined (coster, cost.go), and keeps
// a heavily filtered fact table's rows (10 of a million against an
// unfiltered 100-row dimension: 10 rows, where the larger input's 100
// keeping the fact table's fraction would be 0.001).
func keyJoin(a, b estimate) estimate {
	if b.rows/b.frac > a.rows/a.frac {
		a, b = b, a
	}
	return estimate{rows: a.rows * b.frac, frac: a.frac * b.frac, guessed: a.guessed || b.guessed}
}

// estimator estimates relations' rows from Stats.
type estimator struct{ st Stats }

// tableRows is the named table's row count, its name also tried in lower
// case (Isthmus writes unquoted identifiers upper case).
func (x estimator) tableRows(names []string) (float64, bool) {
	if x.st == nil || len(names) != 1 {
		return 0, false
	}
	n, ok := x.st.TableRows(names[0])
	if !ok {
		n, ok = x.st.TableRows(strings.ToLower(names[0]))
	}
	return float64(n), ok
}

// rows estimates r's output: a table read is its rows; a filter keeps a
// quarter per restriction (restrictions); a projection or sort keeps its
// input; a fetch at most its count; an aggregate without grouping is one
// row, with grouping at most its input; an inner join with an equality is
// a key join, with other conditions the product filtered, a cross join
// the product; left, semi, anti, single and mark joins keep their left
// input, right joins their right one, full joins the larger; a union is
// the sum, the other set operations their first input. Unknown sizes are
// unknownRows.
func (x estimator) rows(r splan.Rel) estimate {
	switch r := r.(type) {
	case *splan.NamedTableReadRel:
		n, ok := x.tableRows(r.Names())
		if !ok {
			n = unknownRows
		}
		e := estimate{rows: max(n, 1), frac: 1, guessed: !ok}
		ndv := func(col int) (float64, bool) { return x.readDistinct(r, col) }
		zones := func(col int) (ColumnZones, bool) { return x.columnZones(r, col) }
		return restricted(restricted(e, conjuncts(r.Filter()), ndv, zones), conjuncts(r.BestEffortFilter()), ndv, zones)
	case *splan.VirtualTableReadRel:
		return estimate{rows: max(float64(len(r.Values())), 1), frac: 1}
	case *splan.FilterRel:
		return restricted(x.rows(r.Input()), conjuncts(r.Condition()), func(col int) (float64, bool) { return x.distinct(r.Input(), col) }, func(col int) (ColumnZones, bool) {
			if read, c, _, ok := base(r.Input(), col); ok {
				return x.columnZones(read, c)
			}
			return ColumnZones{}, false
		})
	case *splan.ProjectRel:
		return x.rows(r.Input())
	case *splan.SortRel:
		return x.rows(r.Input())
	case *splan.FetchRel:
		e := x.rows(r.Input())
		if c := float64(r.Count()); c >= 0 && c < e.rows {
			e.frac *= c / max(e.rows, 1)
			e.rows = max(c, 1)
		}
		return e
	case *splan.AggregateRel:
		e := x.rows(r.Input())
		if len(r.GroupingExpressions()) == 0 {
			return estimate{rows: 1, frac: 1 / max(e.rows, 1), guessed: e.guessed}
		}
		return e
	case *splan.CrossRel:
		l, rr := x.rows(r.Left()), x.rows(r.Right())
		return estimate{rows: l.rows * rr.rows, frac: 1, guessed: l.guessed || rr.guessed}
	case *splan.JoinRel:
		l, rr := x.rows(r.Left()), x.rows(r.Right())
		// A side's estimate alone is as good as the guesses in both.
		l.guessed = l.guessed || rr.guessed
		rr.guessed = l.guessed
		switch r.Type() {
		case splan.JoinTypeInner:
			nl := width(r.Left())
			return innerJoin(l, rr, conjuncts(r.Expr()), nl, func(a, b int) (keySide, keySide, bool) {
				ka, okA := x.keySpan(r.Left(), a)
				kb, okB := x.keySpan(r.Right(), b-nl)
				return ka, kb, okA && okB
			})
		case splan.JoinTypeRight:
			return rr
		case splan.JoinTypeOuter:
			if rr.rows > l.rows {
				return rr
			}
		}
		return l
	case *splan.SetRel:
		in := r.Inputs()
		if len(in) == 0 {
			return estimate{rows: unknownRows, frac: 1, guessed: true}
		}
		e := x.rows(in[0])
		if r.Op() == splan.SetOpUnionAll || r.Op() == splan.SetOpUnionDistinct {
			for _, s := range in[1:] {
				es := x.rows(s)
				e.rows += es.rows
				e.guessed = e.guessed || es.guessed
			}
		}
		return e
	}
	return estimate{rows: unknownRows, frac: 1, guessed: true}
}

// innerJoin estimates an inner join of l and r (r's columns from nl on)
// on the conjuncts on: a key join when one is an equality between the
// two sides, each other conjunct keeping a quarter; with no conjunct the
// product. Where keys reports both sides' key ranges (keySpan) for the
// first equality's columns, the key join is of the sides' rows whose
// keys lie in the range they share, each side's fraction taken of its
// table's rows with keys there (contain).
func innerJoin(l, r estimate, on []expr.Expression, nl int, keys func(a, b int) (keySide, keySide, bool)) estimate {
	key, others := false, 0
	var ka, kb keySide
	spans := false
	for _, c := range on {
		if !key && isEquiBetween(c, nl) {
			key = true
			if a, b, ok := equiColumns(c); ok && keys != nil {
				if a > b {
					a, b = b, a
				}
				ka, kb, spans = keys(a, b)
			}
			continue
		}
		others++
	}
	if !key {
		return estimate{rows: l.rows * r.rows, frac: l.frac * r.frac, guessed: l.guessed || r.guessed}.filtered(others)
	}
	if !spans {
		return keyJoin(l, r).filtered(others)
	}
	_, keep, domain := contain([]keySide{ka, kb})
	tl, tr := l.rows/l.frac, r.rows/r.frac
	side := func(e estimate, keep, domain, table float64) estimate {
		rows := max(e.rows*keep, 1)
		return estimate{rows: rows, frac: min(rows/max(table*domain, 1), 1), guessed: e.guessed}
	}
	j := keyJoin(side(l, keep[0], domain[0], tl), side(r, keep[1], domain[1], tr))
	j.frac = j.rows / max(tl, tr)
	return j.filtered(others)
}

// restrictions is the number of restrictions the conjuncts cs make, each
// estimated to keep filterKeeps: a lower and an upper bound on the same
// expression (x >= a AND x < b, BETWEEN) are one range, as PostgreSQL's
// clauselist_selectivity pairs them (addRangeClause) into one range
// selectivity rather than multiplying two.
func restrictions(cs []expr.Expression) int {
	n := len(cs)
	var lower, upper []expr.Expression
	for _, c := range cs {
		x, dir := bound(c)
		switch {
		case dir < 0 && containsExpr(upper, x):
			upper = slices.DeleteFunc(upper, func(u expr.Expression) bool { return sameExpr(u, x) })
			n--
		case dir > 0 && containsExpr(lower, x):
			lower = slices.DeleteFunc(lower, func(u expr.Expression) bool { return sameExpr(u, x) })
			n--
		case dir < 0:
			lower = append(lower, x)
		case dir > 0:
			upper = append(upper, x)
		}
	}
	return n
}

// bound is the expression c bounds and the direction: -1 a lower bound
// (x > a, x >= a, a < x, a <= x), 1 an upper bound, 0 neither (c is not a
// comparison of an expression over columns with one over none).
func bound(c expr.Expression) (expr.Expression, int) {
	f, ok := c.(*expr.ScalarFunction)
	if !ok || f.NArgs() != 2 {
		return nil, 0
	}
	dir := 0
	switch name(f) {
	case "gt", "gte":
		dir = -1
	case "lt", "lte":
		dir = 1
	default:
		return nil, 0
	}
	a, ok1 := f.Arg(0).(expr.Expression)
	b, ok2 := f.Arg(1).(expr.Expression)
	if !ok1 || !ok2 {
		return nil, 0
	}
	reads := func(e expr.Expression) bool {
		n := 0
		return columns(e, func(int) { n++ }) && n > 0
	}
	switch ra, rb := reads(a), reads(b); {
	case ra && !rb:
		return a, dir
	case rb && !ra:
		return b, -dir
	}
	return nil, 0
}
