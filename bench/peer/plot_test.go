package peer

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
)

// TestDecadeTicks: a labelled tick at every decade in range, minor ticks
// unlabelled between them.
func TestDecadeTicks(t *testing.T) {
	ticks := decadeTicks{label: func(v float64) string { return count(int(v)) }}.Ticks(10, 1e6)
	var labels []string
	for _, tk := range ticks {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"10", "100", "1K", "10K", "100K", "1M"}, labels)
	require.Len(t, ticks, 6+5*8)
	require.Equal(t, 0.1, decadeFloor(0.35))
	require.Equal(t, 1000.0, decadeCeil(1000))
	require.Equal(t, 1000.0, decadeFloor(1000))
}

// TestSegmentsBreakAtGaps: a line joins neighbouring measured list sizes
// only; a series missing a size gets no line across it.
func TestSegmentsBreakAtGaps(t *testing.T) {
	sizes := []int{10, 100, 10000, 1000000}
	full := plotter.XYs{{X: 10, Y: 1}, {X: 100, Y: 2}, {X: 10000, Y: 3}, {X: 1000000, Y: 4}}
	require.Equal(t, []plotter.XYs{full}, segments(full, sizes))
	gap := plotter.XYs{{X: 10, Y: 1}, {X: 100, Y: 2}, {X: 1000000, Y: 4}}
	require.Equal(t, []plotter.XYs{gap[:2]}, segments(gap, sizes))
	require.Empty(t, segments(plotter.XYs{{X: 10, Y: 1}, {X: 10000, Y: 3}}, sizes))
}

// TestWriteSummary: one row per claim at the chosen size, each peer's best
// variant named with its figure and the ratio.
func TestWriteSummary(t *testing.T) {
	rep := &Report{Results: sampleResults()}
	var b strings.Builder
	require.NoError(t, rep.WriteSummary(&b, 1_000_000, []int{10000}, "`cmd`", "m"))
	require.Contains(t, b.String(), "| take | 1M | 10K | 3.00 ms | 30.0 ms (duckdb) | 0.100 (10.0× faster) | `cmd` | m |")
	require.NotContains(t, b.String(), "| take | 1M | 100 |")
}
