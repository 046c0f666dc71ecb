package table

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestZoneMemo: a column's zones come from the memo after the first
// decode, equal to a fresh decode of the file's zone map; a column not
// asked for is not decoded; a corrupt zone map still fails on the first
// decode of a manifest (the memo holds only what decoded cleanly), and a
// manifest without a memo (a literal) decodes each time.
func TestZoneMemo(t *testing.T) {
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}
	kinds := []zoneKind{zoneInt, zoneInt, zoneInt}
	const batches = 5
	zm := &ZoneMap{Batches: make([][]ColumnZone, batches)}
	for b := range zm.Batches {
		zm.Batches[b] = make([]ColumnZone, len(types))
		for c := range types {
			zm.Batches[b][c] = ColumnZone{Nulls: uint64(c), Min: int64(b*100 + c), Max: int64(b*100 + 99 - c)}
		}
	}
	f := &Fragment{ID: 7, BatchRows: 10, PhysicalRows: 45}
	f.File.Zones = encodeZoneMap(zm, kinds)
	want := []bool{false, true, false}

	m := newManifest()
	first, err := m.zones.columnZones(f, types, want)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := decodeZoneMap(f.File.Zones, types, batchRowCounts(f), nil)
	if err != nil {
		t.Fatal(err)
	}
	for b := range batches {
		if got, w := first[1][b], fresh.Batches[b][1]; got != w {
			t.Fatalf("batch %d: %+v, want %+v", b, got, w)
		}
	}
	if first[0] != nil || first[2] != nil {
		t.Fatal("columns not asked for were returned")
	}
	if len(m.zones.zones) != 1 {
		t.Fatalf("memo holds %d columns, want 1", len(m.zones.zones))
	}
	// From the memo: the zone map's bytes are no longer read.
	saved := f.File.Zones
	f.File.Zones = []byte("garbage")
	again, err := m.zones.columnZones(f, types, want)
	if err != nil || &again[1][0] != &first[1][0] {
		t.Fatalf("second decode did not come from the memo (err %v)", err)
	}
	// A column not in the memo is decoded, and the corrupt bytes fail.
	if _, err := m.zones.columnZones(f, types, []bool{true, false, false}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt zone map of a new column: %v, want ErrCorrupt", err)
	}
	// A new manifest (the next version opened) decodes afresh.
	if _, err := newManifest().zones.columnZones(f, types, want); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt zone map in a new manifest: %v, want ErrCorrupt", err)
	}
	f.File.Zones = saved
	var none *zoneMemo
	if got, err := none.columnZones(f, types, want); err != nil || got[1][4] != fresh.Batches[4][1] {
		t.Fatalf("without a memo: %v %v", got, err)
	}
}
