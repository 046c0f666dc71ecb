package table

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// zoneMemo is one manifest's decoded zone-map columns, by fragment and
// column: each column's zones of every batch of the fragment's file, in
// batch order. A published manifest never changes and a fragment's file
// is immutable, so a column decoded once (its file's checksum verified
// then) serves every later scan of the manifest. Only the columns scans
// prune on are decoded: a few KB per column of a fragment (one
// ColumnZone a batch).
type zoneMemo struct {
	mu    sync.Mutex
	zones map[zoneKey][]ColumnZone
}

type zoneKey struct {
	frag uint32
	col  int
}

// columnZones is column col's zones of every batch of f, for each col
// with want[col], decoded from f's zone map where the memo (nil: none)
// does not have them yet. The result is indexed by column; the slices
// are shared: read only.
func (z *zoneMemo) columnZones(f *Fragment, types []arrow.DataType, want []bool) ([][]ColumnZone, error) {
	out := make([][]ColumnZone, len(want))
	missing := want
	if z != nil {
		z.mu.Lock()
		missing = nil
		for c, w := range want {
			if !w {
				continue
			}
			if zs, ok := z.zones[zoneKey{f.ID, c}]; ok {
				out[c] = zs
				continue
			}
			if missing == nil {
				missing = make([]bool, len(want))
			}
			missing[c] = true
		}
		z.mu.Unlock()
		if missing == nil {
			return out, nil
		}
	}
	rows := batchRowCounts(f)
	zm, err := decodeZoneMap(f.File.Zones, types, rows, missing)
	if err != nil {
		return nil, fmt.Errorf("fragment %d: %w", f.ID, err)
	}
	decoded := map[int][]ColumnZone{}
	for c, w := range missing {
		if !w {
			continue
		}
		zs := make([]ColumnZone, len(zm.Batches))
		for b := range zm.Batches {
			zs[b] = zm.Batches[b][c]
		}
		out[c], decoded[c] = zs, zs
	}
	if z != nil {
		z.mu.Lock()
		if z.zones == nil {
			z.zones = map[zoneKey][]ColumnZone{}
		}
		for c, zs := range decoded {
			z.zones[zoneKey{f.ID, c}] = zs
		}
		z.mu.Unlock()
	}
	return out, nil
}
