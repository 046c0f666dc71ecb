package plan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"

	"github.com/stablerow/stablerow/exec"
)

// IndexedScanner is optionally implemented by a TableProvider whose table
// has scalar indexes. ScanWhereIn returns a node producing columns (like
// Scan) for a superset of the rows whose column key equals one of values —
// at least every such row, typically exactly them — or ok=false when no
// index can serve the column. The planner keeps the full filter above it,
// so a provider may return extra rows but must never miss one.
type IndexedScanner interface {
	ScanWhereIn(columns []int, key int, values []any) (node exec.Node, ok bool, err error)
}

// IndexedOn is optionally implemented by an IndexedScanner that can say
// cheaply whether an index may serve column key: the planner then makes
// the values of a long IN list (a million of them, each boxed) only for
// a column that has one.
type IndexedOn interface {
	IndexedOn(key int) bool
}

// DecimalValue is a numeric literal in a key set: its unscaled value and
// scale, so the provider can tell whether it equals values of its
// column's scale exactly.
type DecimalValue struct {
	Num   decimal128.Num
	Scale int32
}

// keySet is a filter conjunct `column IN (literals)` or `column = literal`
// on a table read: what an index can answer.
type keySet struct {
	col    int // table column
	values []any
	// list: a packed IN list's values ([]int32, []int64, []float64 or
	// []string), boxed into values only when an index is asked (boxed).
	list any
}

// boxed returns the set's values as the provider takes them.
func (ks *keySet) boxed() []any {
	if ks.values != nil || ks.list == nil {
		return ks.values
	}
	switch v := ks.list.(type) {
	case []int32:
		ks.values = boxAll(v)
	case []int64:
		ks.values = boxAll(v)
	case []float64:
		ks.values = boxAll(v)
	case []string:
		ks.values = boxAll(v)
	}
	return ks.values
}

func boxAll[T any](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// keySetOf finds, among the AND-ed conjuncts of cond over a read whose
// output field i is table column cols[i], one that an index can answer.
func (p *planner) keySetOf(cond expr.Expression, cols []int) *keySet {
	f, ok := cond.(*expr.ScalarFunction)
	if !ok {
		if in, ok := cond.(*expr.SingularOrList); ok {
			return p.inSet(in.Value, in.Options, cols)
		}
		return nil
	}
	switch funcName(f) {
	case "and":
		for i := 0; i < f.NArgs(); i++ {
			if a, ok := f.Arg(i).(expr.Expression); ok {
				if ks := p.keySetOf(a, cols); ks != nil {
					return ks
				}
			}
		}
	case "equal":
		if f.NArgs() == 2 {
			l, _ := f.Arg(0).(expr.Expression)
			r, _ := f.Arg(1).(expr.Expression)
			if ks := p.inSet(l, []expr.Expression{r}, cols); ks != nil {
				return ks
			}
			return p.inSet(r, []expr.Expression{l}, cols)
		}
	}
	return nil
}

func (p *planner) inSet(v expr.Expression, options []expr.Expression, cols []int) *keySet {
	fr, ok := uncastChar(v).(*expr.FieldReference)
	if !ok {
		return nil
	}
	i, err := fieldIndex(fr)
	if err != nil || i < 0 || i >= len(cols) {
		return nil
	}
	ks := &keySet{col: cols[i]}
	if len(options) == 1 {
		if l, ok := options[0].(*expr.ListLiteral); ok { // a long IN list (invalues.go)
			return listKeySet(ks, l)
		}
		if l, ok, err := p.packedOf(options[0]); ok {
			if err != nil || l.Null || l.Len() == 0 {
				return nil // the filter reports the error; a NULL is left to it
			}
			ks.list = l.Values
			return ks
		}
	}
	for _, o := range options {
		l, ok := o.(expr.Literal)
		if !ok {
			return nil
		}
		e, err := literal(l)
		if err != nil {
			return nil
		}
		lit, ok := e.(physexpr.Lit)
		if !ok || lit.Value == nil {
			return nil // NULL never matches; leave such lists to the filter
		}
		v := lit.Value
		if d, ok := v.(decimal128.Num); ok {
			dt, ok := lit.Type.(*arrow.Decimal128Type)
			if !ok {
				return nil
			}
			v = DecimalValue{Num: d, Scale: dt.Scale}
		}
		ks.values = append(ks.values, v)
	}
	if len(ks.values) == 0 {
		return nil
	}
	return ks
}

// noteKeySet records, for a filter directly over a plain table read, the
// key set an index might answer; namedRead then asks the provider.
func (p *planner) noteKeySet(r *splan.FilterRel) {
	if p.opt.DisableIndexes {
		return
	}
	read, ok := r.Input().(*splan.NamedTableReadRel)
	if !ok || read.Filter() != nil || read.OutputMapping() != nil {
		return
	}
	_, cols, err := p.namedTable(read)
	if err != nil {
		return
	}
	p.noteKeyConds(read, r.Condition(), cols) // indexkeys.go
	if ks := p.keySetOf(r.Condition(), cols); ks != nil {
		if p.keySets == nil {
			p.keySets = map[*splan.NamedTableReadRel]*keySet{}
		}
		p.keySets[read] = ks
	}
}

// listKeySet is inSet over a long IN list's elements, read as the values
// they hold (NULLs never match; they are left to the filter).
func listKeySet(ks *keySet, l *expr.ListLiteral) *keySet {
	ks.values = make([]any, 0, len(l.Value))
	for _, el := range l.Value {
		switch x := el.(type) {
		case *expr.PrimitiveLiteral[int32]:
			ks.values = append(ks.values, x.Value)
		case *expr.PrimitiveLiteral[int64]:
			ks.values = append(ks.values, x.Value)
		case *expr.PrimitiveLiteral[float64]:
			ks.values = append(ks.values, x.Value)
		case *expr.PrimitiveLiteral[string]:
			ks.values = append(ks.values, x.Value)
		default:
			return nil
		}
	}
	if len(ks.values) == 0 {
		return nil
	}
	return ks
}
