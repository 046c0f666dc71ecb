package optimize

import (
	"math"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	substraitpb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// span is a closed range [lo, hi] of a column's values; integral: the
// values are integers, and the range holds hi-lo+1 of them. lo > hi is
// empty.
type span struct {
	lo, hi   float64
	integral bool
}

// width is the number of values s holds (integral), else its length.
func (s span) width() float64 {
	w := s.hi - s.lo
	if s.integral {
		w++
	}
	return max(w, 0)
}

func (s span) empty() bool { return s.hi < s.lo }

// meet is the values in both s and t.
func (s span) meet(t span) span {
	return span{lo: max(s.lo, t.lo), hi: min(s.hi, t.hi), integral: s.integral && t.integral}
}

// share is the fraction of s's values that lie in t, as if spread
// evenly over s: 1 for a point of s inside t, 0 outside.
func (s span) share(t span) float64 {
	m := s.meet(t)
	if s.empty() || m.empty() {
		return 0
	}
	if w := s.width(); w > 0 {
		return min(m.width()/w, 1)
	}
	return 1
}

// columnZones is column col's zone map of a read's base schema, the
// names also tried in lower case (Isthmus writes unquoted identifiers
// upper case).
func (x estimator) columnZones(r *splan.NamedTableReadRel, col int) (ColumnZones, bool) {
	zr, ok := x.st.(ZoneReader)
	bs := r.BaseSchema()
	if !ok || len(r.Names()) != 1 || r.Projection() != nil || len(bs.Names) != len(bs.Struct.Types) || col < 0 || col >= len(bs.Names) {
		return ColumnZones{}, false
	}
	name, column := r.Names()[0], bs.Names[col]
	if z, ok := zr.ColumnZones(name, column); ok && len(z.Batches) > 0 {
		return z, true
	}
	if z, ok := zr.ColumnZones(strings.ToLower(name), strings.ToLower(column)); ok && len(z.Batches) > 0 {
		return z, true
	}
	return ColumnZones{}, false
}

// hull is the range of the column's values over all its batches.
func (z ColumnZones) hull() (span, bool) {
	s := span{lo: math.Inf(1), hi: math.Inf(-1), integral: z.Integral}
	for _, b := range z.Batches {
		if b.Bounded {
			s.lo, s.hi = min(s.lo, b.Min), max(s.hi, b.Max)
		}
	}
	return s, !s.empty()
}

// sorted reports whether the column is clustered: its batches' ranges
// rise in storage order (each batch's minimum at least the previous
// maximum) over at least minClustered batches, their minima strictly
// rising, so that within a batch a value's place among the batch's
// bounds says its row's place (keySpan's interpolation). One batch, or a
// few, says nothing of it: a 12-row store table's single batch is
// "sorted" on every column.
func (z ColumnZones) sorted() bool {
	prevMin, prevMax, n := math.Inf(-1), math.Inf(-1), 0
	for _, b := range z.Batches {
		if !b.Bounded {
			continue
		}
		if b.Min < prevMax || (n > 0 && b.Min <= prevMin) {
			return false
		}
		prevMin, prevMax = b.Min, b.Max
		n++
	}
	return n >= minClustered
}

// minClustered is the fewest batches whose rising ranges keySpan takes
// as evidence that two columns are clustered together.
const minClustered = 4

// keeps is the fraction of the column's rows whose value lies in s: per
// batch, its non-null rows times the share of the batch's range s covers
// (values spread evenly between the batch's bounds), over all rows.
func (z ColumnZones) keeps(s span) float64 {
	var rows, in float64
	for _, b := range z.Batches {
		rows += b.Rows
		if b.Bounded {
			in += (b.Rows - b.Nulls) * span{lo: b.Min, hi: b.Max, integral: z.Integral}.share(s)
		}
	}
	if rows == 0 {
		return 1
	}
	return in / rows
}

// constRange is the column c bounds with a constant and the values it
// admits: c is a comparison (=, <, <=, >, >=) of a column, or a column
// cast to a number, with a numeric or date literal (or one cast to a
// number). A strict bound on an integral column moves to the next
// integer; on others it is taken as inclusive (an estimate).
func constRange(c expr.Expression, integral bool) (int, span, bool) {
	f, ok := c.(*expr.ScalarFunction)
	if !ok || f.NArgs() != 2 {
		return 0, span{}, false
	}
	a, ok1 := f.Arg(0).(expr.Expression)
	b, ok2 := f.Arg(1).(expr.Expression)
	if !ok1 || !ok2 {
		return 0, span{}, false
	}
	op := name(f)
	col, isCol := rangeColumn(a)
	v, isConst := literalNumber(b)
	if !isCol || !isConst {
		col, isCol = rangeColumn(b)
		v, isConst = literalNumber(a)
		if !isCol || !isConst {
			return 0, span{}, false
		}
		op = map[string]string{"lt": "gt", "lte": "gte", "gt": "lt", "gte": "lte", "equal": "equal"}[op]
	}
	s := span{lo: math.Inf(-1), hi: math.Inf(1), integral: integral}
	step := 0.0
	if integral {
		step = 1
	}
	switch op {
	case "equal":
		s.lo, s.hi = v, v
	case "gt":
		s.lo = math.Floor(v) + step
		if !integral {
			s.lo = v
		}
	case "gte":
		s.lo = v
		if integral {
			s.lo = math.Ceil(v)
		}
	case "lt":
		s.hi = math.Ceil(v) - step
		if !integral {
			s.hi = v
		}
	case "lte":
		s.hi = v
		if integral {
			s.hi = math.Floor(v)
		}
	default:
		return 0, span{}, false
	}
	return col, s, true
}

// rangeColumn is the column e reads: a bare field, or one cast to a
// number (an order-keeping conversion).
func rangeColumn(e expr.Expression) (int, bool) {
	if c, ok := e.(*expr.Cast); ok {
		if !isNumberType(c.Type) {
			return 0, false
		}
		return fieldColumn(c.Input)
	}
	return fieldColumn(e)
}

func isNumberType(t types.Type) bool {
	switch t.(type) {
	case *types.Int8Type, *types.Int16Type, *types.Int32Type, *types.Int64Type,
		*types.Float32Type, *types.Float64Type, *types.DecimalType:
		return true
	}
	return false
}

// literalNumber is the value of a numeric or date literal (a date: its
// days since the epoch, as the zone maps hold a date column), or of one
// cast to a number.
func literalNumber(e expr.Expression) (float64, bool) {
	if c, ok := e.(*expr.Cast); ok {
		if !isNumberType(c.Type) {
			return 0, false
		}
		return literalNumber(c.Input)
	}
	l, ok := e.(expr.Literal)
	if !ok {
		return 0, false
	}
	switch v := l.ToProtoLiteral().GetLiteralType().(type) {
	case *substraitpb.Expression_Literal_I8:
		return float64(v.I8), true
	case *substraitpb.Expression_Literal_I16:
		return float64(v.I16), true
	case *substraitpb.Expression_Literal_I32:
		return float64(v.I32), true
	case *substraitpb.Expression_Literal_I64:
		return float64(v.I64), true
	case *substraitpb.Expression_Literal_Fp32:
		return float64(v.Fp32), true
	case *substraitpb.Expression_Literal_Fp64:
		return v.Fp64, true
	case *substraitpb.Expression_Literal_Date:
		return float64(v.Date), true
	case *substraitpb.Expression_Literal_Decimal_:
		return decimalNumber(v.Decimal.GetValue(), v.Decimal.GetScale())
	}
	return 0, false
}

// decimalNumber is a Substrait decimal literal's value: 16 bytes, a
// little-endian two's complement integer, over 10^scale.
func decimalNumber(b []byte, scale int32) (float64, bool) {
	if len(b) != 16 {
		return 0, false
	}
	lo, hi := uint64(0), uint64(0)
	for i := 7; i >= 0; i-- {
		lo = lo<<8 | uint64(b[i])
		hi = hi<<8 | uint64(b[8+i])
	}
	// The magnitude first: float64(int64(hi))*2^64 + float64(lo) of a
	// negative value rounds lo up to 2^64 and cancels (-5.00 came out 0).
	neg := int64(hi) < 0
	if neg {
		lo, hi = ^lo+1, ^hi
		if lo == 0 {
			hi++
		}
	}
	v := float64(hi)*math.Pow(2, 64) + float64(lo)
	if neg {
		v = -v
	}
	return v / math.Pow(10, float64(scale)), true
}

// rangeKeeps is the fraction of a read's rows the constant ranges among
// cs keep, by the zone maps of their columns (ColumnZones.keeps), the
// ranges on one column met first; rest are the conjuncts it did not
// estimate (no constant range, no zone map, or an equality, which
// restricted estimates by the distinct count).
func rangeKeeps(cs []expr.Expression, zones func(col int) (ColumnZones, bool)) (keep float64, rest []expr.Expression) {
	keep = 1
	byCol := map[int]span{}
	var cols []int
	zs := map[int]ColumnZones{}
	for _, c := range cs {
		if f, ok := c.(*expr.ScalarFunction); ok && name(f) == "equal" {
			rest = append(rest, c)
			continue
		}
		col, _, ok := constRange(c, false)
		if !ok {
			rest = append(rest, c)
			continue
		}
		z, ok := zs[col]
		if !ok {
			if z, ok = zones(col); !ok {
				rest = append(rest, c)
				continue
			}
			zs[col] = z
		}
		_, s, _ := constRange(c, z.Integral)
		if prev, ok := byCol[col]; ok {
			s = prev.meet(s)
		} else {
			cols = append(cols, col)
		}
		byCol[col] = s
	}
	for _, col := range cols {
		z := zs[col]
		total := 0.0
		for _, b := range z.Batches {
			total += b.Rows
		}
		// At least one row: an estimate of none would make every plan
		// over it cost the same.
		keep *= max(z.keeps(byCol[col]), 1/max(total, 1))
	}
	return keep, rest
}

// keySide is a join key column of one input: the range of the key values
// of the rows that pass the input's filters (pass; empty when none
// does), and of the table column's (raw).
type keySide struct{ pass, raw span }

// keySpan is column col of r's keySide, from its table's zone maps: the
// batches whose zones the filters on the read's columns (base) cannot
// rule out, each narrowed to the part of its key range the filters
// select. A filter on the key narrows directly; a filter on another
// integral column narrows by interpolation when both columns are
// clustered (ColumnZones.sorted: a date dimension's year and its
// surrogate key),
// so that the rows a year selects sit at the same place among the
// batch's keys as the year among the batch's years; else the whole
// batch's key range stays. ok is false when the key has no zone map.
func (x estimator) keySpan(r splan.Rel, col int) (keySide, bool) {
	read, k, cs, ok := base(r, col)
	if !ok {
		return keySide{}, false
	}
	kz, ok := x.columnZones(read, k)
	if !ok {
		return keySide{}, false
	}
	raw, ok := kz.hull()
	if !ok {
		return keySide{}, false
	}
	type cond struct {
		z      ColumnZones
		s      span
		self   bool // a filter on the key itself
		sorted bool
	}
	var conds []cond
	byCol := map[int]int{}
	for _, c := range cs {
		y, _, ok := constRange(c, false)
		if !ok {
			continue
		}
		if i, seen := byCol[y]; seen {
			_, s, _ := constRange(c, conds[i].z.Integral)
			conds[i].s = conds[i].s.meet(s)
			continue
		}
		z, ok := x.columnZones(read, y)
		if !ok || len(z.Batches) != len(kz.Batches) {
			continue
		}
		_, s, _ := constRange(c, z.Integral)
		byCol[y] = len(conds)
		conds = append(conds, cond{z: z, s: s, self: y == k, sorted: z.sorted()})
	}
	if len(conds) == 0 {
		return keySide{pass: raw, raw: raw}, true
	}
	keySorted := kz.sorted()
	pass := span{lo: math.Inf(1), hi: math.Inf(-1), integral: raw.integral}
	for b, kb := range kz.Batches {
		if !kb.Bounded {
			continue
		}
		keys := span{lo: kb.Min, hi: kb.Max, integral: kz.Integral}
		sub := keys
		for _, cd := range conds {
			yb := cd.z.Batches[b]
			if !yb.Bounded {
				sub = span{lo: 1, hi: 0}
				break
			}
			ys := span{lo: yb.Min, hi: yb.Max, integral: cd.z.Integral}
			ov := ys.meet(cd.s)
			if ov.empty() {
				sub = span{lo: 1, hi: 0}
				break
			}
			switch {
			case cd.self:
				sub = sub.meet(ov)
			case cd.sorted && keySorted && ys.integral && ys.width() > 0:
				end := ov.hi - ys.lo
				if ys.integral {
					end++
				}
				t0, t1 := (ov.lo-ys.lo)/ys.width(), end/ys.width()
				in := span{lo: keys.lo + t0*keys.width(), hi: keys.lo + t1*keys.width(), integral: keys.integral}
				if keys.integral {
					in.lo, in.hi = math.Floor(in.lo), math.Ceil(in.hi)-1
				}
				sub = sub.meet(in)
			}
		}
		if !sub.empty() {
			pass.lo, pass.hi = min(pass.lo, sub.lo), max(pass.hi, sub.hi)
		}
	}
	return keySide{pass: pass, raw: raw}, true
}

// contain is the containment of sides joined on equal keys: the values
// all their passing rows share (meet), and per side the fraction of its
// passing rows there (keep: a side's passing keys spread evenly over
// their range) and of its table's key values there (domain: the table's
// keys spread evenly over their range). A join keeps only the rows of
// each side whose keys lie in the meet, and meets them among the keys
// the tables have there: a fact table whose dates cover five of a date
// dimension's two hundred years, joined to the dimension's rows of one
// of the five, keeps a fifth of its rows, not a two-hundredth (TPC-DS
// Q36: issue 29).
func contain(sides []keySide) (meet span, keep, domain []float64) {
	meet = span{lo: math.Inf(-1), hi: math.Inf(1), integral: true}
	for _, s := range sides {
		meet = meet.meet(s.pass)
	}
	keep, domain = make([]float64, len(sides)), make([]float64, len(sides))
	for i, s := range sides {
		keep[i], domain[i] = s.pass.share(meet), s.raw.share(meet)
	}
	return meet, keep, domain
}
