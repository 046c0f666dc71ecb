package table

import (
	"fmt"
	"slices"
	"sync"
)

// DistinctCounts is the estimated number of distinct non-null values of
// each user column of m: its fragments' sketches merged (sketch.go). ok
// is false when a fragment has none (written before sketches and not
// analysed since): the optimizer then falls back to its fixed guesses,
// as PostgreSQL's selectivity functions do for a column without
// pg_statistic (DEFAULT_NUM_DISTINCT). Rows deleted since a file was
// written still count in its sketch (a sketch cannot forget), so a
// count is capped at the live rows; ANALYZE rebuilds the sketches from
// the live rows only. The answer is computed once per manifest
// (distinctMemo); counts is the caller's own copy.
func (m *Manifest) DistinctCounts() (counts []float64, ok bool, err error) {
	if m.distinct == nil {
		return m.distinctCounts()
	}
	d := m.distinct
	d.once.Do(func() { d.counts, d.ok, d.err = m.distinctCounts() })
	return slices.Clone(d.counts), d.ok, d.err
}

// distinctMemo is DistinctCounts' answer for one manifest.
type distinctMemo struct {
	once   sync.Once
	counts []float64
	ok     bool
	err    error
}

// distinctCounts merges the fragments' sketches (DistinctCounts).
func (m *Manifest) distinctCounts() (counts []float64, ok bool, err error) {
	n := m.Schema.NumFields()
	if len(m.Fragments) == 0 {
		return make([]float64, n), true, nil
	}
	types := userTypes(m.Schema)
	merged := make([]Sketch, n)
	none := make([]bool, n)
	for _, f := range m.Fragments {
		if f.File.Zones == nil {
			return nil, false, nil
		}
		zm, err := decodeZones(f.File.Zones, types, batchRowCounts(f), none, true)
		if err != nil {
			return nil, false, fmt.Errorf("table: fragment %d: %w", f.ID, err)
		}
		if zm.Sketches == nil {
			return nil, false, nil
		}
		for c := range merged {
			merged[c].Merge(zm.Sketches[c])
		}
	}
	live := float64(m.LiveRows())
	counts = make([]float64, n)
	for c := range merged {
		counts[c] = min(merged[c].Estimate(), live)
	}
	return counts, true, nil
}
