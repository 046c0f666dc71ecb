package peer

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// WritePlot draws median latency against list length, log-log, one line per
// engine and table size, for the results of one workload, and writes it to w
// as a PNG.
func WritePlot(w io.Writer, results []*Result, workload string) error {
	type key struct {
		engine string
		rows   int
	}
	var keys []key
	lines := map[key]plotter.XYs{}
	for _, res := range results {
		if res.Workload != workload {
			continue
		}
		for i, e := range res.Engines {
			k := key{e, res.Rows}
			if _, ok := lines[k]; !ok {
				keys = append(keys, k)
			}
			ms := float64(res.Median(i).Nanoseconds()) / 1e6
			lines[k] = append(lines[k], plotter.XY{X: float64(res.Query.Size()), Y: max(ms, 1e-3)})
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("peer: no %q results to plot: %w", workload, ErrInvalidArgument)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: median latency vs number of ids", workload)
	p.X.Label.Text = "ids in the list"
	p.Y.Label.Text = "latency (ms)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = logTicks{label: func(v float64) string { return count(int(v)) }}
	p.Y.Tick.Marker = logTicks{label: func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }}
	p.Legend.Top, p.Legend.Left = false, false // bottom right stays empty: small lists are fast
	p.Add(plotter.NewGrid())
	// Color says the engine, dashes and glyphs say the table size.
	var engines []string
	var sizes []int
	for _, k := range keys {
		if !slices.Contains(engines, k.engine) {
			engines = append(engines, k.engine)
		}
		if !slices.Contains(sizes, k.rows) {
			sizes = append(sizes, k.rows)
		}
	}
	for _, k := range keys {
		xy := lines[k]
		slices.SortFunc(xy, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("peer: plot: %w", err)
		}
		e, r := slices.Index(engines, k.engine), slices.Index(sizes, k.rows)
		l.Color, pts.Color = plotutil.Color(e), plotutil.Color(e)
		l.Dashes = plotutil.Dashes(r)
		l.Width = vg.Points(1.5)
		pts.Shape = plotutil.Shape(r)
		p.Add(l, pts)
		p.Legend.Add(fmt.Sprintf("%s, %s rows", k.engine, count(k.rows)), l, pts)
	}
	wt, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("peer: plot: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// logTicks are plot.LogTicks with plain labels (1K, 1M; 0.1, 1000) instead
// of exponent notation.
type logTicks struct{ label func(float64) string }

// Ticks implements plot.Ticker.
func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = t.label(ticks[i].Value)
		}
	}
	return ticks
}
