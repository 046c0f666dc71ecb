package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/index/btree"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/table"
)

// maxPrefixes bounds the equality prefixes one index scan searches (the
// cross product of the IN lists on its leading key columns); longer
// lists bind fewer columns.
const maxPrefixes = 4096

// ScanWhereKeys answers a filter's conjuncts with the index that binds
// the most of its key columns (plan.KeyScanner), the way PostgreSQL's
// btree paths use restriction clauses (match_clause_to_indexcol, then
// _bt_first's insertion scankey): equality or IN on a prefix of the key
// columns, then one range on the next. IN lists on several columns
// search every combination. It leaves to ScanWhereIn an equality on a
// column that has an index of its own, and to the scan a range without
// an equality before it unless both its ends are bounded. The rows of the
// fragments the index does not cover are scanned, as ScanWhereIn's.
func (p *provider) ScanWhereKeys(columns []int, conds []plan.KeyCond) (exec.Node, bool, error) {
	if p.noIndexes() || hasPaddedChar(p.t.Schema()) {
		return nil, false, nil
	}
	sc := p.t.Schema()
	eqs := map[string]plan.KeyCond{}
	ranges := map[string]*btree.Range{}
	for _, c := range conds {
		if c.Col < 0 || c.Col >= sc.NumFields() {
			continue
		}
		name := sc.Field(c.Col).Name
		if c.Equality() {
			if _, ok := eqs[name]; !ok {
				eqs[name] = c
			}
			continue
		}
		ranges[name] = mergeRange(ranges[name], c)
	}
	var best *table.IndexMeta
	var bestEq [][]any
	var bestRange *btree.Range
	score := 0
	for _, m := range p.t.Indexes() {
		if m.Kind != "btree" {
			continue
		}
		keys := m.KeyColumns()
		var eq [][]any
		combos := 1
		for _, k := range keys {
			c, ok := eqs[k.Column]
			if !ok {
				break
			}
			vals, ok := indexValues(sc, k.Column, c.Values())
			if !ok || len(vals) == 0 || combos*len(vals) > maxPrefixes {
				break
			}
			combos *= len(vals)
			eq = append(eq, vals)
		}
		var rng *btree.Range
		if len(eq) < len(keys) {
			if r := ranges[keys[len(eq)].Column]; r != nil {
				rng = convertRange(sc, keys[len(eq)].Column, r)
			}
		}
		switch {
		case len(eq) == 0 && (rng == nil || rng.Lo == nil || rng.Hi == nil):
			continue // an open range: the zone maps' job
		case len(eq) == 1 && rng == nil && access.Find(p.t, keys[0].Column, false) != nil:
			continue // ScanWhereIn's
		}
		s := 2*len(eq) + btoi(rng != nil)
		if s > score || s == score && best != nil && len(keys) < len(best.KeyColumns()) {
			best, bestEq, bestRange, score = m, eq, rng, s
		}
	}
	if best == nil {
		return nil, false, nil
	}
	return p.prefixScan(columns, best, bestEq, bestRange)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// prefixScan is an IndexScanExec over the rows whose leading key columns
// take one of the combinations of eq and whose next lies in rng, united
// with a scan of the fragments the index does not cover.
func (p *provider) prefixScan(columns []int, m *table.IndexMeta, eq [][]any, rng *btree.Range) (exec.Node, bool, error) {
	r, err := p.c.db.acc.Resolver(p.c.ctx, p.t, m)
	if err != nil {
		return nil, false, indexErr(err)
	}
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = p.t.Schema().Field(c).Name
	}
	prefixes := [][]any{{}}
	for _, vals := range eq {
		next := make([][]any, 0, len(prefixes)*len(vals))
		for _, pre := range prefixes {
			for _, v := range vals {
				next = append(next, append(slices.Clip(pre), v))
			}
		}
		prefixes = next
	}
	lookup := func(ctx context.Context) ([]uint64, error) {
		var out []uint64
		for _, pre := range prefixes {
			addrs, err := r.SearchPrefix(ctx, pre, rng)
			if err != nil {
				return nil, indexErr(err)
			}
			out = append(out, addrs...)
		}
		slices.Sort(out)
		return slices.Compact(out), nil
	}
	keys := m.KeyColumns()
	var what []string
	for i := range eq {
		what = append(what, fmt.Sprintf("%s = %d value(s)", keys[i].Column, len(eq[i])))
	}
	if rng != nil {
		what = append(what, keys[len(eq)].Column+" in "+rangeText(rng))
	}
	cols := make([]string, len(keys))
	for i, k := range keys {
		cols[i] = k.Column
		if k.Desc {
			cols[i] += " DESC"
		}
	}
	desc := fmt.Sprintf("btree %s(%s) %s, %d prefix(es)", m.Name, strings.Join(cols, ", "), strings.Join(what, " AND "), len(prefixes))
	return indexScan(p.t, names, r, lookup, desc)
}

func rangeText(r *btree.Range) string {
	lo, hi := "(-inf", "+inf)"
	if r.Lo != nil {
		lo = fmt.Sprintf("(%v", r.Lo)
		if r.LoIncl {
			lo = fmt.Sprintf("[%v", r.Lo)
		}
	}
	if r.Hi != nil {
		hi = fmt.Sprintf("%v)", r.Hi)
		if r.HiIncl {
			hi = fmt.Sprintf("%v]", r.Hi)
		}
	}
	return lo + ", " + hi
}

// mergeRange adds c's bounds to r (both ends of "a > 1 AND a < 5"): a
// second bound on the same end keeps the first; the filter above applies
// both.
func mergeRange(r *btree.Range, c plan.KeyCond) *btree.Range {
	if r == nil {
		r = &btree.Range{}
	}
	if c.Lo != nil && r.Lo == nil {
		r.Lo, r.LoIncl = c.Lo, c.LoIncl
	}
	if c.Hi != nil && r.Hi == nil {
		r.Hi, r.HiIncl = c.Hi, c.HiIncl
	}
	return r
}

// convertRange is r with its bounds in the column's key values; an end
// that cannot be represented exactly is left open (the filter applies it).
func convertRange(sc *arrow.Schema, column string, r *btree.Range) *btree.Range {
	out := &btree.Range{}
	if v, ok := indexValues(sc, column, []any{r.Lo}); ok && r.Lo != nil {
		out.Lo, out.LoIncl = v[0], r.LoIncl
	}
	if v, ok := indexValues(sc, column, []any{r.Hi}); ok && r.Hi != nil {
		out.Hi, out.HiIncl = v[0], r.HiIncl
	}
	if out.Lo == nil && out.Hi == nil {
		return nil
	}
	return out
}

// indexValues converts planned literals to the values btree searches take
// for column's type: exactly the literals keyArray accepts (the column's
// own type; a numeric of the column's scale; no NaN), else ok is false.
func indexValues(sc *arrow.Schema, column string, values []any) ([]any, bool) {
	i := slices.IndexFunc(sc.Fields(), func(f arrow.Field) bool { return f.Name == column })
	if i < 0 {
		return nil, false
	}
	t := sc.Field(i).Type
	out := make([]any, 0, len(values))
	for _, v := range values {
		var ok bool
		switch t.ID() {
		case arrow.INT64:
			_, ok = v.(int64)
		case arrow.UINT64:
			if x, isInt := v.(int64); isInt {
				if x < 0 {
					continue // a negative id matches nothing
				}
				v, ok = uint64(x), true
			} else {
				_, ok = v.(uint64)
			}
		case arrow.INT32:
			_, ok = v.(int32)
		case arrow.INT16:
			_, ok = v.(int16)
		case arrow.DATE32:
			_, ok = v.(arrow.Date32)
		case arrow.TIMESTAMP:
			_, ok = v.(arrow.Timestamp)
		case arrow.BOOL:
			_, ok = v.(bool)
		case arrow.STRING:
			_, ok = v.(string)
		case arrow.FLOAT64:
			x, isF := v.(float64)
			ok = isF && !math.IsNaN(x)
		case arrow.FLOAT32:
			x, isF := v.(float32)
			ok = isF && x == x
		case arrow.DECIMAL128:
			if d, isD := v.(plan.DecimalValue); isD && d.Scale == t.(*arrow.Decimal128Type).Scale {
				v, ok = d.Num, true
			}
		}
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}
