package peer

import (
	"bytes"
	"context"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeEngine answers from the reference model, optionally corrupted.
type fakeEngine struct {
	name    string
	tb      *Table
	corrupt bool
	runs    int
}

func (f *fakeEngine) Name() string { return f.name }

func (f *fakeEngine) Run(_ context.Context, q Query) (Answer, error) {
	f.runs++
	if q.Kind == KindInK {
		return ExpectK(f.tb, q.Keys), nil
	}
	a := ExpectTake(f.tb, q.IDs, q.Kind == KindTakePayload)
	if f.corrupt && len(a.Addr) > 0 {
		a.Addr[len(a.Addr)-1] ^= 1
		a.AddrValid[len(a.Addr)-1] = true
	}
	return a, nil
}

func (f *fakeEngine) Explain(context.Context, Query) (string, error) { return f.name + " plan", nil }
func (f *fakeEngine) Delete(context.Context, string) (int64, error)  { return 0, nil }

// TestRunCase checks the runner: agreeing engines are timed Runs times each
// after one checked run; a disagreeing engine stops the case before any
// timing, with ErrMismatch.
func TestRunCase(t *testing.T) {
	ctx := context.Background()
	tb := SyntheticTable(2000, 500)
	ids, err := IDs(tb, 300, 1)
	require.NoError(t, err)
	a, b := &fakeEngine{name: "a", tb: tb}, &fakeEngine{name: "b", tb: tb}
	var log bytes.Buffer
	res, err := RunCase(ctx, Case{Workload: "take", Rows: 2000, Query: Query{Kind: KindTake, IDs: ids}, Runs: 4}, []Engine{a, b}, &log)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, res.Engines)
	require.Len(t, res.Times[0], 4)
	require.Len(t, res.Times[1], 4)
	require.Equal(t, 5, a.runs, "one checked run, four timed")
	require.Equal(t, []string{"a plan", "b plan"}, res.Plans)
	require.Equal(t, 300, res.Len)
	require.Equal(t, ExpectTake(tb, ids, false).Hits(), res.Hits)
	require.Contains(t, log.String(), "take")

	bad := &fakeEngine{name: "bad", tb: tb, corrupt: true}
	_, err = RunCase(ctx, Case{Workload: "take", Rows: 2000, Query: Query{Kind: KindTake, IDs: ids}, Runs: 4}, []Engine{a, bad}, nil)
	require.ErrorIs(t, err, ErrMismatch)
	require.Equal(t, 1, bad.runs, "nothing is timed after a mismatch")
	require.Contains(t, err.Error(), "a against bad")

	_, err = RunCase(ctx, Case{Runs: 0}, []Engine{a}, nil)
	require.ErrorIs(t, err, ErrInvalidArgument)
}

func TestMedian(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	require.Equal(t, time.Duration(0), Median(nil))
	require.Equal(t, 3*time.Millisecond, Median(ms(9, 1, 3)))
	require.Equal(t, 2500*time.Microsecond, Median(ms(4, 1, 2, 3)))
}

func sampleResults() []*Result {
	mk := func(workload string, n int, a, b time.Duration) *Result {
		return &Result{
			Case:    Case{Workload: workload, Rows: 1_000_000, Query: Query{Kind: KindTake, IDs: make([]uint64, n)}, Runs: 1},
			Engines: []string{"stablerow", "duckdb"},
			Times:   [][]time.Duration{{a}, {b}},
			Plans:   []string{"TakeByKeyExec", "HASH_JOIN | x"},
			Len:     n, Hits: n - 1,
		}
	}
	return []*Result{
		mk("take", 100, time.Millisecond, 20*time.Millisecond),
		mk("take", 10_000, 3*time.Millisecond, 30*time.Millisecond),
		mk("take", 1_000_000, 900*time.Millisecond, 600*time.Millisecond),
		mk("take after delete", 100, time.Millisecond, 20*time.Millisecond),
	}
}

// TestReportMarkdown checks the table: one row per result, medians, the
// ratio stablerow/DuckDB with its reading, escaped plans.
func TestReportMarkdown(t *testing.T) {
	rep := &Report{Title: "t", Setting: []string{"machine: m"}, Notes: []string{"note"}, Results: sampleResults(),
		Setup: []SetupStep{{1_000_000, "load", 1234 * time.Millisecond}, {10_000_000, "load", 12 * time.Second}, {1_000_000, "index", time.Second}}}
	var b strings.Builder
	require.NoError(t, rep.WriteMarkdown(&b))
	md := b.String()
	require.Contains(t, md, "| workload | rows | list | result rows (hits) | stablerow | duckdb | stablerow / best duckdb |")
	require.Contains(t, md, "| take | 1M | 100 | 100 (99) | 1.00 ms | 20.0 ms | 0.050 (20.0× faster) |")
	require.Contains(t, md, "| take | 1M | 1M | 1000000 (999999) | 900 ms | 600 ms | 1.500 (1.5× slower) |")
	require.Contains(t, md, `HASH_JOIN \| x`)
	require.Contains(t, md, "- machine: m")
	require.True(t, strings.HasSuffix(md, "note\n"))
	require.Contains(t, md, "| step | 1M rows | 10M rows |\n| --- | ---: | ---: |\n| load | 1.23s | 12s |\n| index | 1s | — |\n")
}

// TestWritePlot checks that the plot is a PNG of the expected size, and
// that asking for a workload without results is an error.
func TestWritePlot(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WritePlot(&buf, sampleResults(), "take"))
	img, err := png.Decode(&buf)
	require.NoError(t, err)
	require.InDelta(t, (plotWidth + legendWidth).Dots(96), img.Bounds().Dx(), 1)
	require.Equal(t, 5*96, img.Bounds().Dy())
	require.ErrorIs(t, WritePlot(&buf, sampleResults(), "nothing"), ErrInvalidArgument)
}

func TestSQLTexts(t *testing.T) {
	require.Equal(t, "SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord",
		TakeSQL(":ids", false))
	require.Contains(t, TakeSQL(":ids", true), "SELECT v.ord, t._rowaddr, t.payload FROM")
	require.Equal(t, "SELECT k, payload FROM t WHERE k IN (1,-2,3)", InKSQL([]int64{1, -2, 3}))
}
