package table

import "github.com/apache/arrow-go/v18/arrow"

// DecodeZoneColumns is decodeZoneMap for the tests: the bounds of the
// columns in want only (a scan's decode; all false is the check opening a
// version does).
func DecodeZoneColumns(b []byte, types []arrow.DataType, rows []uint64, want []bool) (*ZoneMap, error) {
	return decodeZoneMap(b, types, rows, want)
}
