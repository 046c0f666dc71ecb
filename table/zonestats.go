package table

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// BatchRange is one batch's rows and the bounds of one numeric column
// in it, as float64: the planner's range estimates read them
// (plan/optimize, ColumnZones). Bounded is false when the batch has no
// bounds for the column (all its values null, or a file written without
// them).
type BatchRange struct {
	Rows, Nulls float64
	Min, Max    float64
	Bounded     bool
}

// ColumnRanges is column col's BatchRange of every batch of every
// fragment, from the zone maps (decoded once per manifest: zonememo.go).
// ok is false when the column is not numeric (integers, decimals,
// floats, dates; not timestamps, whose units the planner's constants
// need not share), a float column has a NaN or infinite bound, or some
// fragment has no zone map; integral says the
// values are integers (a range [a, b] holds b-a+1 of them). Deleted rows
// are counted: the figures are estimates, and a deletion vector does not
// move a batch's bounds.
func (m *Manifest) ColumnRanges(col int) (ranges []BatchRange, integral, ok bool, err error) {
	if col < 0 || col >= m.Schema.NumFields() {
		return nil, false, false, nil
	}
	t := m.Schema.Field(col).Type
	var scale int32
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.DATE32:
		integral = true
	case arrow.FLOAT32, arrow.FLOAT64:
	case arrow.DECIMAL128:
		scale = t.(*arrow.Decimal128Type).Scale
		integral = scale == 0
	default:
		return nil, false, false, nil
	}
	types := userTypes(m.Schema)
	want := make([]bool, len(types))
	want[col] = true
	for _, f := range m.Fragments {
		if f.File.Zones == nil {
			return nil, false, false, nil
		}
		if f.PhysicalRows == 0 {
			continue
		}
		zones, err := m.zones.columnZones(f, types, want)
		if err != nil {
			return nil, false, false, fmt.Errorf("table: %w", err)
		}
		rows := batchRowCounts(f)
		for b, z := range zones[col] {
			r := BatchRange{Rows: float64(rows[b]), Nulls: float64(z.Nulls)}
			lo, okLo := boundFloat(z.Min, scale)
			hi, okHi := boundFloat(z.Max, scale)
			if okLo && okHi {
				if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
					// A float column's NaN or infinity spreads no
					// values evenly: no estimate from its bounds.
					return nil, false, false, nil
				}
				r.Min, r.Max, r.Bounded = lo, hi, true
			}
			ranges = append(ranges, r)
		}
	}
	return ranges, integral, true, nil
}

// boundFloat is a zone bound as float64 (a decimal's unscaled integer
// scaled down); ok false when absent or not numeric.
func boundFloat(v any, scale int32) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case decimal128.Num:
		return x.ToFloat64(scale), true
	}
	return 0, false
}
