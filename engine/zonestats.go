package engine

import (
	"github.com/stablerow/stablerow/plan/optimize"
	"github.com/stablerow/stablerow/table"
)

// ColumnZones implements optimize.ZoneReader: the pinned snapshot's
// column's zone map (table.Manifest.ColumnRanges), once per table and
// column per statement. ok is false for a column that is not numeric, a
// table whose files have no zone maps, or zones that do not decode: the
// estimate then falls back to guesses and the scan reports the damage,
// as a statistic is never a reason to fail a query.
func (c *catalog) ColumnZones(name, column string) (optimize.ColumnZones, bool) {
	t, err := c.table(name)
	if err != nil {
		return optimize.ColumnZones{}, false
	}
	col := -1
	for i, f := range t.UserSchema().Fields() {
		if f.Name == column {
			col = i
		}
	}
	if col < 0 {
		return optimize.ColumnZones{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if z, ok := c.zoneStats[zoneKey{t, col}]; ok {
		return z.zones, z.ok
	}
	ranges, integral, ok, err := t.Manifest().ColumnRanges(col)
	z := optimize.ColumnZones{Integral: integral}
	ok = ok && err == nil
	if ok {
		z.Batches = make([]optimize.Zone, len(ranges))
		for i, r := range ranges {
			z.Batches[i] = optimize.Zone{Rows: r.Rows, Nulls: r.Nulls, Min: r.Min, Max: r.Max, Bounded: r.Bounded}
		}
	}
	if c.zoneStats == nil {
		c.zoneStats = map[zoneKey]zoneStat{}
	}
	c.zoneStats[zoneKey{t, col}] = zoneStat{z, ok}
	return z, ok
}

// zoneKey is a pinned table's column.
type zoneKey struct {
	t   *table.Table
	col int
}

// zoneStat is one column's ColumnZones answer.
type zoneStat struct {
	zones optimize.ColumnZones
	ok    bool
}
