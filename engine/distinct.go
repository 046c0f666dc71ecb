package engine

import (
	"github.com/stablerow/stablerow/table"
)

// ColumnDistinct implements optimize.DistinctCounter: the number of
// distinct non-null values of the pinned snapshot's column, merged from
// its fragments' sketches (table.Manifest.DistinctCounts) once per table
// per statement. ok is false for a table whose files predate the
// sketches (ANALYZE rebuilds them), or whose sketches do not decode:
// the estimate then falls back to guesses and the scan reports the
// damage, as a statistic is never a reason to fail a query.
func (c *catalog) ColumnDistinct(name, column string) (float64, bool) {
	t, err := c.table(name)
	if err != nil {
		return 0, false
	}
	counts := c.distinctCounts(t)
	if counts == nil {
		return 0, false
	}
	for i, f := range t.UserSchema().Fields() {
		if f.Name == column {
			return counts[i], true
		}
	}
	return 0, false
}

func (c *catalog) distinctCounts(t *table.Table) []float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if counts, ok := c.ndv[t]; ok {
		return counts
	}
	counts, ok, err := t.Manifest().DistinctCounts()
	if !ok || err != nil {
		counts = nil
	}
	if c.ndv == nil {
		c.ndv = map[*table.Table][]float64{}
	}
	c.ndv[t] = counts
	return counts
}
