package plan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// KeyScanner is optionally implemented by a TableProvider whose indexes
// may have several key columns: ScanWhereKeys returns a node producing
// columns (like Scan) for a superset of the rows that satisfy every
// condition of conds, or ok=false when no index answers them better than
// the paths the planner has without it (ScanWhereIn, zone maps). As with
// ScanWhereIn the planner keeps the whole filter above it. The provider
// picks the index as PostgreSQL's btree index paths match restriction
// clauses to index columns (match_clause_to_indexcol, then _bt_first):
// equality or IN on a prefix of the key columns, then at most one range
// on the next.
type KeyScanner interface {
	ScanWhereKeys(columns []int, conds []KeyCond) (node exec.Node, ok bool, err error)
}

// KeyCond is one AND-ed conjunct of a filter over a table read that an
// index may answer: Col IN Values() (equality: one value; never NULL)
// when Equality(), else Col within [Lo, Hi] (a nil bound is open).
type KeyCond struct {
	Col            int
	set            *keySet // equality and IN: boxed only when asked
	Lo, Hi         any
	LoIncl, HiIncl bool
}

// Equality says the condition is Col = v or Col IN (v, ...).
func (c KeyCond) Equality() bool { return c.set != nil }

// Values are an equality's values, as ScanWhereIn takes them.
func (c KeyCond) Values() []any {
	if c.set == nil {
		return nil
	}
	return c.set.boxed()
}

// keyConds collects the conjuncts of cond that an index may answer, over
// a read whose output field i is table column cols[i].
func (p *planner) keyConds(cond expr.Expression, cols []int, out []KeyCond) []KeyCond {
	if in, ok := cond.(*expr.SingularOrList); ok {
		if ks := p.inSet(in.Value, in.Options, cols); ks != nil {
			return append(out, KeyCond{Col: ks.col, set: ks})
		}
		return out
	}
	f, ok := cond.(*expr.ScalarFunction)
	if !ok || f.NArgs() != 2 && funcName(f) != "and" {
		return out
	}
	switch name := funcName(f); name {
	case "and":
		for i := 0; i < f.NArgs(); i++ {
			if a, ok := f.Arg(i).(expr.Expression); ok {
				out = p.keyConds(a, cols, out)
			}
		}
	case "equal":
		if ks := p.keySetOf(cond, cols); ks != nil {
			out = append(out, KeyCond{Col: ks.col, set: ks})
		}
	case "lt", "lte", "gt", "gte":
		l, _ := f.Arg(0).(expr.Expression)
		r, _ := f.Arg(1).(expr.Expression)
		col, v, ok := p.colLiteral(l, r, cols)
		if !ok {
			if col, v, ok = p.colLiteral(r, l, cols); !ok {
				return out
			}
			name = map[string]string{"lt": "gt", "lte": "gte", "gt": "lt", "gte": "lte"}[name] // literal op column
		}
		c := KeyCond{Col: col}
		switch name {
		case "lt", "lte":
			c.Hi, c.HiIncl = v, name == "lte"
		default:
			c.Lo, c.LoIncl = v, name == "gte"
		}
		out = append(out, c)
	}
	return out
}

// colLiteral matches a plain column reference c and a non-NULL literal v,
// v as the provider takes key values (a numeric as DecimalValue).
func (p *planner) colLiteral(c, v expr.Expression, cols []int) (int, any, bool) {
	fr, ok := uncastChar(c).(*expr.FieldReference)
	if !ok {
		return 0, nil, false
	}
	i, err := fieldIndex(fr)
	if err != nil || i < 0 || i >= len(cols) {
		return 0, nil, false
	}
	l, ok := v.(expr.Literal)
	if !ok {
		return 0, nil, false
	}
	e, err := literal(l)
	if err != nil {
		return 0, nil, false
	}
	lit, ok := e.(physexpr.Lit)
	if !ok || lit.Value == nil {
		return 0, nil, false // a NULL bound: the comparison is never true; the filter says so
	}
	val := lit.Value
	if d, ok := val.(decimal128.Num); ok {
		dt, ok := lit.Type.(*arrow.Decimal128Type)
		if !ok {
			return 0, nil, false
		}
		val = DecimalValue{Num: d, Scale: dt.Scale}
	}
	return cols[i], val, true
}

// noteKeyConds records, for a filter directly over a plain table read,
// the conjuncts a KeyScanner may answer (namedRead asks it).
func (p *planner) noteKeyConds(read *splan.NamedTableReadRel, cond expr.Expression, cols []int) {
	conds := p.keyConds(cond, cols, nil)
	if len(conds) == 0 {
		return
	}
	if p.keyCondSets == nil {
		p.keyCondSets = map[*splan.NamedTableReadRel][]KeyCond{}
	}
	p.keyCondSets[read] = conds
}
