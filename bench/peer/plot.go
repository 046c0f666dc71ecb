package peer

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Plot geometry: the legend gets its own column right of the plot, so it
// never covers a point.
const (
	plotWidth   = 8 * vg.Inch
	plotHeight  = 5 * vg.Inch
	legendWidth = 3.3 * vg.Inch
)

// series is one engine at one table size: its measured points only.
type series struct {
	engine string
	rows   int
	pts    plotter.XYs
}

// WritePlot draws median latency against list length, log-log, for the
// results of one workload, and writes it to w as a PNG. Color says the
// engine, the marker and dashes the table size. Every measured point has a
// marker; a line joins two points only when they are neighbouring list
// sizes both measured for that series (a size not measured breaks the
// line). Both axes have a labelled tick at every decade.
func WritePlot(w io.Writer, results []*Result, workload string) error {
	var all []*series
	var sizesMeasured []int // list sizes of the workload, ascending
	find := func(e string, rows int) *series {
		for _, s := range all {
			if s.engine == e && s.rows == rows {
				return s
			}
		}
		s := &series{engine: e, rows: rows}
		all = append(all, s)
		return s
	}
	for _, res := range results {
		if res.Workload != workload {
			continue
		}
		if n := res.Query.Size(); !slices.Contains(sizesMeasured, n) {
			sizesMeasured = append(sizesMeasured, n)
		}
		for i, e := range res.Engines {
			ms := float64(res.Median(i).Nanoseconds()) / 1e6
			find(e, res.Rows).pts = append(find(e, res.Rows).pts, plotter.XY{X: float64(res.Query.Size()), Y: max(ms, 1e-3)})
		}
	}
	if len(all) == 0 {
		return fmt.Errorf("peer: no %q results to plot: %w", workload, ErrInvalidArgument)
	}
	slices.Sort(sizesMeasured)
	var engines []string
	var sizes []int
	for _, s := range all {
		if !slices.Contains(engines, s.engine) {
			engines = append(engines, s.engine)
		}
		if !slices.Contains(sizes, s.rows) {
			sizes = append(sizes, s.rows)
		}
	}
	slices.Sort(sizes)

	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: median latency vs ids in the list (log-log)", workload)
	p.X.Label.Text = "ids in the list"
	p.Y.Label.Text = "median latency (ms)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = decadeTicks{label: func(v float64) string { return count(int(math.Round(v))) }}
	p.Y.Tick.Marker = decadeTicks{label: func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }}
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	for _, s := range all {
		slices.SortFunc(s.pts, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		e, r := slices.Index(engines, s.engine), slices.Index(sizes, s.rows)
		color := plotutil.Color(e)
		pts, err := plotter.NewScatter(s.pts)
		if err != nil {
			return fmt.Errorf("peer: plot: %w", err)
		}
		pts.Color, pts.Shape, pts.Radius = color, plotutil.Shape(r), vg.Points(3.5)
		p.Add(pts)
		var line *plotter.Line
		for _, seg := range segments(s.pts, sizesMeasured) {
			l, err := plotter.NewLine(seg)
			if err != nil {
				return fmt.Errorf("peer: plot: %w", err)
			}
			l.Color, l.Dashes, l.Width = color, plotutil.Dashes(r), vg.Points(1.2)
			p.Add(l)
			line = l
		}
		if line != nil {
			leg.Add(fmt.Sprintf("%s, %s rows", s.engine, count(s.rows)), line, pts)
		} else {
			leg.Add(fmt.Sprintf("%s, %s rows", s.engine, count(s.rows)), pts)
		}
	}
	// Whole decades on both axes, so every axis has labelled ticks.
	p.X.Min, p.X.Max = decadeFloor(p.X.Min), decadeCeil(p.X.Max)
	p.Y.Min, p.Y.Max = decadeFloor(p.Y.Min), decadeCeil(p.Y.Max)
	img := vgimg.New(plotWidth+legendWidth, plotHeight)
	dc := draw.New(img)
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	leg.Draw(draw.Crop(dc, plotWidth+vg.Points(6), 0, 0, -vg.Points(24)))
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// segments cuts a series' points (sorted by X) into runs of neighbouring
// measured list sizes: a line never spans a list size the series lacks.
// Runs of one point are dropped (the marker stands alone).
func segments(pts plotter.XYs, sizes []int) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	prev := -1
	for _, pt := range pts {
		i := slices.Index(sizes, int(pt.X))
		if prev >= 0 && i != prev+1 {
			if len(cur) > 1 {
				out = append(out, cur)
			}
			cur = nil
		}
		cur = append(cur, pt)
		prev = i
	}
	if len(cur) > 1 {
		out = append(out, cur)
	}
	return out
}

// decadeTicks put a labelled major tick at every power of ten in range and
// unlabelled minor ticks at 2..9 times it.
type decadeTicks struct{ label func(float64) string }

// Ticks implements plot.Ticker.
func (t decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		d := math.Pow(10, e)
		if d >= lo*(1-1e-9) && d <= hi*(1+1e-9) {
			ticks = append(ticks, plot.Tick{Value: d, Label: t.label(d)})
		}
		for m := 2.0; m < 10; m++ {
			if v := m * d; v > lo && v < hi {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}

func decadeFloor(v float64) float64 { return math.Pow(10, math.Floor(math.Log10(v)+1e-9)) }
func decadeCeil(v float64) float64  { return math.Pow(10, math.Ceil(math.Log10(v)-1e-9)) }
