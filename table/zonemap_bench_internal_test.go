package table

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// BenchmarkDecodeZoneMapLineitem decodes the zone map of one fragment
// shaped like TPC-H SF 1 lineitem in one file: 6M rows in batches of
// 8192, 16 columns (keys, decimals, dates, short and long strings).
func BenchmarkDecodeZoneMapLineitem(b *testing.B) {
	types := []arrow.DataType{
		arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32,
		&arrow.Decimal128Type{Precision: 15, Scale: 2}, &arrow.Decimal128Type{Precision: 15, Scale: 2},
		&arrow.Decimal128Type{Precision: 15, Scale: 2}, &arrow.Decimal128Type{Precision: 15, Scale: 2},
		arrow.BinaryTypes.String, arrow.BinaryTypes.String,
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date32,
		arrow.BinaryTypes.String, arrow.BinaryTypes.String, arrow.BinaryTypes.String,
	}
	const batches = 733
	kinds := make([]zoneKind, len(types))
	for c, t := range types {
		kinds[c] = kindOf(t)
	}
	zm := &ZoneMap{Batches: make([][]ColumnZone, batches)}
	rows := make([]uint64, batches)
	for i := range zm.Batches {
		rows[i] = 8192
		zm.Batches[i] = make([]ColumnZone, len(types))
		for c, k := range kinds {
			z := &zm.Batches[i][c]
			switch k {
			case zoneInt:
				z.Min, z.Max = int64(i*8192), int64(i*8192+8191)
			case zoneDecimal:
				z.Min, z.Max = decimal128.FromI64(100), decimal128.FromI64(int64(1000000+i))
			case zoneString:
				z.Min, z.Max = fmt.Sprintf("a comment %d", i), fmt.Sprintf("z comment that is long %d", i)
			}
		}
	}
	blob := encodeZoneMap(zm, kinds)
	// all: every column's bounds (DecodeZoneMap); q6: the three columns
	// TPC-H Q6's predicates name, as a scan decodes them; check: none,
	// as opening a version checks the framing.
	q6 := make([]bool, len(types))
	q6[4], q6[6], q6[10] = true, true, true
	for _, c := range []struct {
		name string
		want []bool
	}{{"all", nil}, {"q6", q6}, {"check", make([]bool, len(types))}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(blob)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeZoneMap(blob, types, rows, c.want); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
