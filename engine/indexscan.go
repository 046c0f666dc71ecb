package engine

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/table"
)

// ScanWhereIn answers `key IN (values)` with a BTree on the key column:
// an IndexScanExec over the fragments the index covers (through the
// fragment reuse history when rewrites happened since its build), united
// with a plain scan of the fragments it does not cover. The planner keeps
// the filter above, so this only has to find a superset of the rows.
func (p *provider) ScanWhereIn(columns []int, key int, values []any) (exec.Node, bool, error) {
	if p.noIndexes() || key < 0 || key >= p.t.Schema().NumFields() || hasPaddedChar(p.t.Schema()) {
		return nil, false, nil
	}
	col := p.t.Schema().Field(key).Name
	meta := access.Find(p.t, col, false)
	if meta == nil {
		return nil, false, nil
	}
	keys, ok := keyArray(p.t.Schema().Field(key).Type, values)
	if !ok {
		return nil, false, nil
	}
	r, err := p.c.db.acc.Resolver(p.c.ctx, p.t, meta)
	if err != nil {
		return nil, false, indexErr(err)
	}
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = p.t.Schema().Field(c).Name
	}
	lookup := func(ctx context.Context) ([]uint64, error) { return r.SearchIn(ctx, keys) }
	return indexScan(p.t, names, r, lookup, fmt.Sprintf("btree %s(%s) IN %d values", meta.Name, col, len(values)))
}

// indexScan is the plan of an index lookup over t: an IndexScanExec of
// lookup's addresses (desc names the lookup; the rewrites its addresses
// are remapped through are added), unioned with a scan of the fragments
// the index does not cover yet, so the answer is the whole table's.
func indexScan(t *table.Table, names []string, r *access.Resolver, lookup func(context.Context) ([]uint64, error), desc string) (exec.Node, bool, error) {
	if n := r.Transitions(); n > 0 {
		desc += fmt.Sprintf(", addresses remapped through %d rewrite(s)", n)
	}
	scan, err := exec.NewIndexScanExec(t, names, lookup, desc)
	if err != nil {
		return nil, false, err
	}
	uncovered := r.Uncovered()
	if len(uncovered) == 0 {
		return scan, true, nil
	}
	rest, err := exec.NewScanExec(t, names, uncovered)
	if err != nil {
		return nil, false, err
	}
	u, err := exec.NewUnionExec(scan, rest)
	if err != nil {
		return nil, false, err
	}
	return u, true, nil
}

// IndexedOn says whether ScanWhereIn may serve column key (plan.IndexedOn):
// the planner then boxes a long IN list's values only for a column with
// an index.
func (p *provider) IndexedOn(key int) bool {
	if p.noIndexes() || key < 0 || key >= p.t.Schema().NumFields() || hasPaddedChar(p.t.Schema()) {
		return false
	}
	return access.Find(p.t, p.t.Schema().Field(key).Name, false) != nil
}

// keyArray builds the search keys in the index's key type; ok is false
// for values it cannot represent exactly (the planner then scans). The keys
// are plan constants that live as long as the plan, so they come from the
// Go heap, not from the query's allocator.
func keyArray(t arrow.DataType, values []any) (arrow.Array, bool) {
	mem := memory.DefaultAllocator
	switch t.ID() {
	case arrow.INT64:
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for _, v := range values {
			x, ok := v.(int64)
			if !ok {
				return nil, false
			}
			b.Append(x)
		}
		return b.NewArray(), true
	case arrow.UINT64:
		b := array.NewUint64Builder(mem)
		defer b.Release()
		for _, v := range values {
			switch x := v.(type) {
			case uint64:
				b.Append(x)
			case int64:
				if x >= 0 { // a negative id matches nothing
					b.Append(uint64(x))
				}
			default:
				return nil, false
			}
		}
		return b.NewArray(), true
	case arrow.FLOAT64:
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		for _, v := range values {
			x, ok := v.(float64)
			if !ok || math.IsNaN(x) {
				return nil, false
			}
			b.Append(x)
		}
		return b.NewArray(), true
	case arrow.INT32, arrow.INT16, arrow.DATE32:
		// Planned literals have the column's type (the comparison
		// would cast the column otherwise, and the planner then asks
		// for no key set): int32, int16, arrow.Date32.
		b := array.NewBuilder(mem, t)
		defer b.Release()
		for _, v := range values {
			switch bb := b.(type) {
			case *array.Int32Builder:
				x, ok := v.(int32)
				if !ok {
					return nil, false
				}
				bb.Append(x)
			case *array.Int16Builder:
				x, ok := v.(int16)
				if !ok {
					return nil, false
				}
				bb.Append(x)
			case *array.Date32Builder:
				x, ok := v.(arrow.Date32)
				if !ok {
					return nil, false
				}
				bb.Append(x)
			}
		}
		return b.NewArray(), true
	case arrow.TIMESTAMP:
		b := array.NewTimestampBuilder(mem, t.(*arrow.TimestampType))
		defer b.Release()
		for _, v := range values {
			x, ok := v.(arrow.Timestamp)
			if !ok {
				return nil, false
			}
			b.Append(x)
		}
		return b.NewArray(), true
	case arrow.BOOL:
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		for _, v := range values {
			x, ok := v.(bool)
			if !ok {
				return nil, false
			}
			b.Append(x)
		}
		return b.NewArray(), true
	case arrow.FLOAT32:
		b := array.NewFloat32Builder(mem)
		defer b.Release()
		for _, v := range values {
			x, ok := v.(float32)
			if !ok || x != x { // NaN: the filter decides (NaN = NaN)
				return nil, false
			}
			b.Append(x)
		}
		return b.NewArray(), true
	case arrow.DECIMAL128:
		b := array.NewDecimal128Builder(mem, t.(*arrow.Decimal128Type))
		defer b.Release()
		for _, v := range values {
			x, ok := v.(plan.DecimalValue)
			if !ok || x.Scale != t.(*arrow.Decimal128Type).Scale {
				return nil, false
			}
			b.Append(x.Num)
		}
		return b.NewArray(), true
	case arrow.STRING:
		b := array.NewStringBuilder(mem)
		defer b.Release()
		for _, v := range values {
			x, ok := v.(string)
			if !ok {
				return nil, false
			}
			b.Append(x)
		}
		return b.NewArray(), true
	}
	return nil, false
}
