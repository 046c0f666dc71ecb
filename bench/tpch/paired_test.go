package tpch

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestPairOrder: the two variants alternate within a repetition and the
// order flips from one repetition to the next (spec, text, text, spec, …).
func TestPairOrder(t *testing.T) {
	var seq []string
	for i := range 4 {
		o := pairOrder(i)
		require.NotEqual(t, o[0], o[1])
		seq = append(seq, o[:]...)
	}
	require.Equal(t, []string{DDLSpec, DDLText, DDLText, DDLSpec, DDLSpec, DDLText, DDLText, DDLSpec}, seq)
}

// TestRunPaired runs the 22 queries at scale factor 0.01 on the two
// variants: both load, every answer of the spec variant equals the text
// variant's, every query has wall and CPU medians for both, and the
// report has a row per query.
func TestRunPaired(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	data := t.TempDir()
	rep, err := RunPaired(context.Background(), Config{SF: 0.01, Seed: 1, Dir: data, Reps: 2, Mem: mem})
	require.NoError(t, err)
	require.Len(t, rep.Results, 22)
	require.Positive(t, rep.LoadSpec)
	require.Positive(t, rep.LoadText)
	for _, r := range rep.Results {
		require.Empty(t, r.Err, r.Query.Name)
		require.Empty(t, r.Diff, r.Query.Name)
		require.Positive(t, r.SpecWall, r.Query.Name)
		require.Positive(t, r.TextWall, r.Query.Name)
		require.Positive(t, r.SpecCPU, r.Query.Name)
		require.Positive(t, r.TextCPU, r.Query.Name)
		require.Positive(t, r.PairRatio, r.Query.Name)
	}
	var b bytes.Buffer
	rep.Markdown(&b)
	rows := 0
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "| Q") {
			rows++
		}
	}
	require.Equal(t, 22, rows)
	require.Contains(t, b.String(), "2 repetitions")
	require.Zero(t, mem.CurrentAlloc(), "stablerow's batches all released")

	// With a profile directory each variant's runs of a query are
	// profiled into a file of their own (the same data, reused).
	t.Run("profiles", func(t *testing.T) {
		dir := t.TempDir()
		rep, err := RunPaired(context.Background(), Config{SF: 0.01, Seed: 1, Dir: data, Reps: 1, Queries: []int{6}, Profile: dir})
		require.NoError(t, err)
		require.Len(t, rep.Results, 1)
		require.Zero(t, rep.GenTime, "the files of the first run reused")
		for _, name := range []string{"q6-spec.pprof", "q6-text.pprof"} {
			require.FileExists(t, dir+"/"+name)
		}
	})
}

// TestQuartiles: the paired ratio and its middle half.
func TestQuartiles(t *testing.T) {
	med, lo, hi := quartiles([]float64{1.2, 0.9, 1.0, 1.1, 0.95})
	require.Equal(t, []float64{1.0, 0.95, 1.1}, []float64{med, lo, hi})
	med, lo, hi = quartiles([]float64{1.3, 0.7})
	require.Equal(t, []float64{1.3, 0.7, 1.3}, []float64{med, lo, hi})
	med, lo, hi = quartiles(nil)
	require.Zero(t, med+lo+hi)
}

// TestPairedOver: a query is flagged when its spec/text CPU ratio exceeds
// 1.10, not at or below it, and the report names it.
func TestPairedOver(t *testing.T) {
	r := func(n int, spec, text time.Duration) PairedResult {
		return PairedResult{Query: Query{N: n, Name: "Q" + string(rune('0'+n))}, SpecCPU: spec, TextCPU: text, SpecWall: spec, TextWall: text}
	}
	rep := &PairedReport{Config: Config{SF: 1, Reps: 5}, Results: []PairedResult{
		r(1, 109*time.Millisecond, 100*time.Millisecond),
		r(2, 112*time.Millisecond, 100*time.Millisecond),
		r(3, 80*time.Millisecond, 100*time.Millisecond),
	}}
	require.False(t, rep.Results[0].Over())
	require.True(t, rep.Results[1].Over())
	require.False(t, rep.Results[2].Over())
	require.Equal(t, []string{"Q2"}, rep.Over())
	var b bytes.Buffer
	rep.Markdown(&b)
	require.Contains(t, b.String(), "| Q2 | 0 | equal | 112.0 | 100.0 | 1.12 | 112.0 | 100.0 | 1.12 | – | OVER |")
	rep.Results[0].PairRatio, rep.Results[0].PairLo, rep.Results[0].PairHi = 1.04, 0.98, 1.12
	b.Reset()
	rep.Markdown(&b)
	require.Contains(t, b.String(), "| Q1 | 0 | equal | 109.0 | 100.0 | 1.09 | 109.0 | 100.0 | 1.09 | 1.04 (0.98–1.12) |  |")
	require.Contains(t, b.String(), "Over 1.10: Q2.")
	g, n := rep.GeoMeanCPURatio()
	require.Equal(t, 3, n)
	require.InDelta(t, 0.992, g, 0.001) // (1.09 × 1.12 × 0.8)^(1/3) = 0.9766^(1/3)
}
