package main

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f ms", v)
}

func mb(kb int64) string { return fmt.Sprintf("%.0f MB", float64(kb)/1024) }

// report renders the figures as markdown, with the slopes between sizes.
func report(c *config, results []*result, rowmapBPR float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Take by row id at scale (scalebench)\n\n")
	fmt.Fprintf(&b, "`%s` on %d vCPU (%s/%s), %s. Tables on local disk: generated rows (k BIGINT, payload DOUBLE) "+
		"in 1M-row fragments with a BTree on _rowid; takes are the seed query with the payload; ids drawn at random. "+
		"Medians of %d runs (3 for 1M ids). Cold: a fresh process (exec to exit, and engine.Open + take inside it); "+
		"the OS page cache is not dropped. Warm: each list size in a process of its own after one warm-up take; peak RSS "+
		"counts the mapped data file pages the take touched (file-backed, shared, reclaimable); the anonymous part is "+
		"the heap and the like, read right after a take with its result held.\n\n",
		strings.Join(os.Args, " "), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, time.Now().UTC().Format("2006-01-02"), c.runs)
	fmt.Fprintf(&b, "| rows | cold 1 id: wall / open+take / RSS / index pages | warm 1 id | warm 10K | warm 1M | peak RSS during 1 / 10K / 1M (of it anonymous) | index B/row (pages+lookup) | lookup bytes (read at open) | data B/row |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		w := func(n int) string {
			if f, ok := r.Warm[n]; ok {
				return ms(f.Latency)
			}
			return "-"
		}
		rss := []string{}
		for _, n := range idLists {
			if f, ok := r.Warm[n]; ok {
				rss = append(rss, fmt.Sprintf("%s (%s)", mb(f.RSSKB), mb(f.AnonKB)))
			}
		}
		fmt.Fprintf(&b, "| %s | %s / %s / %s / %d | %s (%d pages) | %s | %s | %s | %.3f | %d | %.2f |\n",
			count(r.Rows), ms(r.Cold.Wall), ms(r.Cold.OpenTake), mb(r.Cold.RSSKB), r.Cold.Pages,
			w(1), r.Warm[1].Pages, w(10_000), w(1_000_000), strings.Join(rss, " / "),
			float64(r.IndexBytes)/float64(r.Rows), r.LookupBytes, float64(r.DataBytes)/float64(r.Rows))
	}
	fmt.Fprintf(&b, "\nRowmap of a %s-row table reclustered by a random column (CLUSTER): %.3f bytes per row.\n", count(c.rowmapRows), rowmapBPR)
	if len(results) >= 2 {
		fmt.Fprintf(&b, "\nGrowth per 10x rows (ratio of consecutive sizes):\n\n| from → to | cold 1 id (open+take) | warm 1 id | warm 10K | warm 1M | lookup bytes |\n|---|---|---|---|---|---|\n")
		for i := 1; i < len(results); i++ {
			a, z := results[i-1], results[i]
			ratio := func(x, y time.Duration) string {
				if x == 0 || y == 0 {
					return "-"
				}
				return fmt.Sprintf("%.2fx", float64(y)/float64(x))
			}
			fmt.Fprintf(&b, "| %s → %s | %s | %s | %s | %s | %.1fx |\n", count(a.Rows), count(z.Rows), ratio(a.Cold.OpenTake, z.Cold.OpenTake),
				ratio(a.Warm[1].Latency, z.Warm[1].Latency), ratio(a.Warm[10_000].Latency, z.Warm[10_000].Latency),
				ratio(a.Warm[1_000_000].Latency, z.Warm[1_000_000].Latency), float64(z.LookupBytes)/float64(max(a.LookupBytes, 1)))
		}
	}
	var s3 []*result
	for _, r := range results {
		if len(r.S3) > 0 {
			s3 = append(s3, r)
		}
	}
	if len(s3) > 0 {
		fmt.Fprintf(&b, "\nThe same takes on the S3 store (Versity Gateway v1.8.0 on localhost, posix backend; the local table uploaded object by object). "+
			"Each run opens a fresh DB (empty caches): cold is its first take, warm the same ids again. Requests of the take only "+
			"(engine.Open's HEAD bucket and listings excluded); medians over %d runs of different ids.\n\n", c.runs)
		fmt.Fprintf(&b, "| rows | ids | cache | requests per take | GET bytes | bytes per row returned | latency |\n|---|---|---|---|---|---|---|\n")
		for _, r := range s3 {
			for _, n := range []int{1, 10_000} {
				for _, warm := range []bool{false, true} {
					var figs []s3Fig
					for _, f := range r.S3 {
						if f.IDs == n && f.Warm == warm {
							figs = append(figs, f)
						}
					}
					if len(figs) == 0 {
						continue
					}
					slices.SortFunc(figs, func(a, b s3Fig) int { return cmp.Compare(a.Latency, b.Latency) })
					mid := figs[len(figs)/2]
					var bytes []int64
					for _, f := range figs {
						bytes = append(bytes, f.Bytes)
					}
					bm := median(bytes)
					state := "cold"
					if warm {
						state = "warm"
					}
					fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %.0f | %s |\n", count(r.Rows), count(n), state, reqs(mid.Reqs), bm, float64(bm)/float64(n), ms(mid.Latency))
				}
			}
		}
	}
	return b.String()
}

func reqs(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// writePlot draws take latency against table size, log-log: local cold
// (open + take in a fresh process), local warm 1 / 10K / 1M ids, and S3
// cold and warm 1 / 10K ids.
func writePlot(path string, results []*result) error {
	type series struct {
		name string
		xy   plotter.XYs
	}
	var ss []*series
	add := func(name string, x int, d time.Duration) {
		if d <= 0 {
			return
		}
		for _, s := range ss {
			if s.name == name {
				s.xy = append(s.xy, plotter.XY{X: float64(x), Y: float64(d) / 1e6})
				return
			}
		}
		ss = append(ss, &series{name: name, xy: plotter.XYs{{X: float64(x), Y: float64(d) / 1e6}}})
	}
	for _, r := range results {
		add("local, cold 1 id (fresh process: open + take)", r.Rows, r.Cold.OpenTake)
		for _, n := range idLists {
			add(fmt.Sprintf("local, warm %s", idsLabel(n)), r.Rows, r.Warm[n].Latency)
		}
		for _, n := range []int{1, 10_000} {
			for _, warm := range []bool{false, true} {
				var lat []time.Duration
				for _, f := range r.S3 {
					if f.IDs == n && f.Warm == warm {
						lat = append(lat, f.Latency)
					}
				}
				state := "cold"
				if warm {
					state = "warm"
				}
				add(fmt.Sprintf("S3 (Versity, localhost), %s %s", state, idsLabel(n)), r.Rows, median(lat))
			}
		}
	}
	p := plot.New()
	p.Title.Text = "Take by row id: latency against table size"
	p.X.Label.Text = "rows in the table"
	p.Y.Label.Text = "latency (ms)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = logTicks{label: func(v float64) string { return count(int(math.Round(v))) }}
	p.Y.Tick.Marker = logTicks{label: func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	// Room above the data for the legend: the y axis runs a few decades
	// past the slowest point.
	var lo, hi = math.Inf(1), 0.0
	for _, s := range ss {
		for _, xy := range s.xy {
			lo, hi = min(lo, xy.Y), max(hi, xy.Y)
		}
	}
	if hi > 0 {
		p.Y.Min, p.Y.Max = lo/2, hi*100
	}
	for i, s := range ss {
		slices.SortFunc(s.xy, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		l, pts, err := plotter.NewLinePoints(s.xy)
		if err != nil {
			return err
		}
		l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
		l.Width = vg.Points(1.5)
		if strings.HasPrefix(s.name, "S3") {
			l.Dashes = plotutil.Dashes(1)
		}
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(s.name, l, pts)
	}
	return p.Save(9*vg.Inch, 7*vg.Inch, path)
}

// logTicks labels the decades of a log axis plainly (1M, 10M; 0.1, 10).
type logTicks struct{ label func(float64) string }

func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = t.label(ticks[i].Value)
		}
	}
	return ticks
}

func idsLabel(n int) string {
	if n == 1 {
		return "1 id"
	}
	return count(n) + " ids"
}
