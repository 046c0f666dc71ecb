package plan

import (
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/table"
)

// ZoneScanner is optionally implemented by a TableProvider whose scans can
// skip data file batches by their zone maps: ScanWhere is Scan that may
// leave out rows no conjunct of preds can be true for (and only those).
// The planner keeps the whole filter above it.
type ZoneScanner interface {
	ScanWhere(columns []int, preds []table.ZonePred) (exec.Node, error)
}

// Zone predicates are the conjuncts of a filter over a table read of the
// form column op constant (=, <, <=, >, >=, BETWEEN, IN list, IS [NOT]
// NULL), the quals PostgreSQL hands a BRIN index scan
// (match_clause_to_indexcol: an indexed column on one side, a constant on
// the other, the operator in the column's opfamily). As there, a
// comparison with a constant of another type is used only when the
// operator belongs to the column type's ordering family: integer columns
// against integers of any width (integer_minmax_ops holds the int2/4/8
// cross-type operators), floats against floats (float_minmax_ops), a
// decimal against a decimal or integer it holds exactly (numeric_minmax_ops),
// dates against dates, timestamps against timestamps, strings against
// strings (a char(n) column as the engine holds it, without trailing
// blanks). Anything else (an int column against a numeric or float
// constant, a cast that changes the order) is not used at all.

// zonePredsOf lists the zone predicates among the AND-ed conjuncts of cond
// over a read whose field i is table column cols[i] (-1: none) of t.
func zonePredsOf(cond expr.Expression, cols []int, sc *arrow.Schema) []table.ZonePred {
	var out []table.ZonePred
	var walk func(e expr.Expression)
	walk = func(e expr.Expression) {
		f, ok := e.(*expr.ScalarFunction)
		if ok && funcName(f) == "and" {
			for i := 0; i < f.NArgs(); i++ {
				if a, ok := f.Arg(i).(expr.Expression); ok {
					walk(a)
				}
			}
			return
		}
		out = append(out, zonePredOf(e, cols, sc)...)
	}
	walk(cond)
	return out
}

// zoneOps maps the comparison functions to their operator, and to the
// operator with the sides swapped (constant op column).
var zoneOps = map[string][2]table.ZoneOp{
	"equal": {table.ZoneEq, table.ZoneEq},
	"lt":    {table.ZoneLt, table.ZoneGt},
	"lte":   {table.ZoneLe, table.ZoneGe},
	"gt":    {table.ZoneGt, table.ZoneLt},
	"gte":   {table.ZoneGe, table.ZoneLe},
}

func zonePredOf(e expr.Expression, cols []int, sc *arrow.Schema) []table.ZonePred {
	if in, ok := e.(*expr.SingularOrList); ok {
		col, ok := zoneColumn(in.Value, cols, sc)
		if !ok {
			return nil
		}
		p := table.ZonePred{Column: sc.Field(col).Name, Op: table.ZoneIn}
		for _, o := range in.Options {
			v, null, ok := zoneConst(o, sc.Field(col).Type)
			if !ok {
				return nil
			}
			if !null { // x = NULL is never true: the other options decide
				p.Values = append(p.Values, v)
			}
		}
		if len(p.Values) == 0 {
			return nil // only NULLs: proves nothing to skip by here; the filter decides
		}
		return []table.ZonePred{p}
	}
	f, ok := e.(*expr.ScalarFunction)
	if !ok {
		return nil
	}
	name := funcName(f)
	args := make([]expr.Expression, f.NArgs())
	for i := range args {
		a, ok := f.Arg(i).(expr.Expression)
		if !ok {
			return nil
		}
		args[i] = a
	}
	switch name {
	case "is_null", "is_not_null":
		if len(args) != 1 {
			return nil
		}
		col, ok := zoneColumn(args[0], cols, sc)
		if !ok {
			return nil
		}
		op := table.ZoneIsNull
		if name == "is_not_null" {
			op = table.ZoneIsNotNull
		}
		return []table.ZonePred{{Column: sc.Field(col).Name, Op: op}}
	case "between": // x BETWEEN lo AND hi is x >= lo AND x <= hi (planBetween)
		if len(args) != 3 {
			return nil
		}
		col, ok := zoneColumn(args[0], cols, sc)
		if !ok {
			return nil
		}
		var out []table.ZonePred
		for i, op := range []table.ZoneOp{table.ZoneGe, table.ZoneLe} {
			if v, null, ok := zoneConst(args[1+i], sc.Field(col).Type); ok && !null {
				out = append(out, table.ZonePred{Column: sc.Field(col).Name, Op: op, Values: []any{v}})
			}
		}
		return out
	}
	ops, ok := zoneOps[name]
	if !ok || len(args) != 2 {
		return nil
	}
	for side := range 2 {
		col, ok := zoneColumn(args[side], cols, sc)
		if !ok {
			continue
		}
		v, null, ok := zoneConst(args[1-side], sc.Field(col).Type)
		if !ok || null {
			return nil
		}
		return []table.ZonePred{{Column: sc.Field(col).Name, Op: ops[side], Values: []any{v}}}
	}
	return nil
}

// zoneColumn resolves e to the table column it reads unchanged in order:
// a field reference, through a char(n) column's cast to text (uncastChar:
// the engine's char(n) values are text already), an integer widening or
// float4 to float8.
func zoneColumn(e expr.Expression, cols []int, sc *arrow.Schema) (int, bool) {
	e = uncastChar(e)
	var to types.Type
	if c, ok := e.(*expr.Cast); ok && c.Input != nil {
		e, to = c.Input, c.Type
	}
	fr, ok := e.(*expr.FieldReference)
	if !ok {
		return 0, false
	}
	i, err := fieldIndex(fr)
	if err != nil || i < 0 || i >= len(cols) || cols[i] < 0 || cols[i] >= sc.NumFields() {
		return 0, false
	}
	col := cols[i]
	if to != nil && !orderPreservingCast(sc.Field(col).Type, to) {
		return 0, false
	}
	return col, true
}

// orderPreservingCast: a cast from a column of type from to to that maps
// every value to an equal one, so comparing the result orders as the
// column's values do.
func orderPreservingCast(from arrow.DataType, to types.Type) bool {
	width := map[arrow.Type]int{arrow.INT8: 1, arrow.INT16: 2, arrow.INT32: 4, arrow.INT64: 8}
	if w, ok := width[from.ID()]; ok {
		switch to.(type) {
		case *types.Int16Type:
			return w <= 2
		case *types.Int32Type:
			return w <= 4
		case *types.Int64Type:
			return true
		}
		return false
	}
	if from.ID() == arrow.FLOAT32 || from.ID() == arrow.FLOAT64 {
		_, ok := to.(*types.Float64Type)
		return ok
	}
	return false
}

// zoneConst is e as a constant of the zone kind of a column of type t
// (table.ZonePred): ok false when e is no literal or its type is outside
// the column type's ordering family, or it does not convert exactly;
// null when it is a NULL.
func zoneConst(e expr.Expression, t arrow.DataType) (v any, null, ok bool) {
	l, isLit := e.(expr.Literal)
	if !isLit {
		return nil, false, false
	}
	pe, err := literal(l)
	if err != nil {
		return nil, false, false
	}
	lit, isLit := pe.(physexpr.Lit)
	if !isLit {
		return nil, false, false
	}
	if lit.Value == nil {
		return nil, true, true
	}
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		if i, ok := litInt(lit.Value); ok {
			return i, false, true
		}
	case arrow.BOOL:
		if b, ok := lit.Value.(bool); ok {
			if b {
				return int64(1), false, true
			}
			return int64(0), false, true
		}
	case arrow.DATE32:
		if d, ok := lit.Value.(arrow.Date32); ok {
			return int64(d), false, true
		}
	case arrow.TIMESTAMP:
		ts, ok1 := lit.Value.(arrow.Timestamp)
		lt, ok2 := lit.Type.(*arrow.TimestampType)
		ct := t.(*arrow.TimestampType)
		if ok1 && ok2 && lt.Unit == ct.Unit && lt.TimeZone == ct.TimeZone {
			return int64(ts), false, true
		}
	case arrow.FLOAT32, arrow.FLOAT64:
		switch x := lit.Value.(type) {
		case float32:
			return float64(x), false, true
		case float64:
			return x, false, true
		}
	case arrow.DECIMAL128:
		scale := t.(*arrow.Decimal128Type).Scale
		var n decimal128.Num
		var from int32
		if d, ok := lit.Value.(decimal128.Num); ok {
			lt, ok := lit.Type.(*arrow.Decimal128Type)
			if !ok {
				return nil, false, false
			}
			n, from = d, lt.Scale
		} else if i, ok := litInt(lit.Value); ok {
			n = decimal128.FromI64(i)
		} else {
			return nil, false, false
		}
		if from > scale {
			return nil, false, false // not exact at the column's scale
		}
		r, err := n.Rescale(from, scale)
		if err != nil {
			return nil, false, false
		}
		return r, false, true
	case arrow.STRING:
		if s, ok := lit.Value.(string); ok {
			return s, false, true
		}
	}
	return nil, false, false
}

func litInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// noteZonePreds records, for a filter directly over a plain table read,
// its zone predicates; namedRead then asks a ZoneScanner for the scan.
func (p *planner) noteZonePreds(r *splan.FilterRel) {
	read, ok := r.Input().(*splan.NamedTableReadRel)
	if !ok || read.OutputMapping() != nil {
		return
	}
	t, cols, err := p.namedTable(read)
	if err != nil {
		return
	}
	if _, ok := t.(ZoneScanner); !ok {
		return
	}
	preds := zonePredsOf(r.Condition(), cols, t.Schema())
	if p.zonePreds == nil {
		p.zonePreds = map[*splan.NamedTableReadRel][]table.ZonePred{}
	}
	// A read is noted again when the plan is compiled twice (shared
	// subplans' two passes), under the same filter. Should one read ever
	// sit under two different filters, neither's predicates are used:
	// each would drop rows the other needs.
	if old, seen := p.zonePreds[read]; seen && !reflect.DeepEqual(old, preds) {
		preds = nil
	}
	p.zonePreds[read] = preds
}
