package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/bench/peer"
	"github.com/stablerow/stablerow/engine"
)

// takeSQL is the seed take with the payload, so every hit reads its data
// range.
var takeSQL = peer.TakeSQL(":ids", true)

// idLists are the warm take sizes.
var idLists = []int{1, 10_000, 1_000_000}

// result holds the figures of one table size.
type result struct {
	Rows                  int
	Build                 time.Duration
	DataBytes, IndexBytes int64 // files under data/ and _indices/
	LookupBytes           int64 // the index's lookup file (read whole at open, resident)
	Cold                  coldFig
	Warm                  map[int]warmFig // by ids taken
	S3                    []s3Fig
}

type coldFig struct {
	Wall      time.Duration // exec to exit, median
	OpenTake  time.Duration // in the child: engine.Open + the take, median
	RSSKB     int64         // the child's peak RSS, median
	Pages     int           // index pages decoded by the take
	Processes int
}

type warmFig struct {
	Latency time.Duration // median
	RSSKB   int64         // the process's peak RSS over the timed takes (open DB, id list, one result)
	AnonKB  int64         // anonymous RSS right after a take, result held (max over runs): RSS without mapped data pages
	Pages   int           // index pages decoded (first timed run: warm, so 0 when cached)
}

// ids returns n distinct random row ids of an n-row generated table
// (its row ids are 0..rows-1).
func ids(rows, n int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	if n >= rows {
		out := make([]int64, rows)
		for i := range out {
			out[i] = int64(i)
		}
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	seen := make(map[int64]bool, n)
	out := make([]int64, 0, n)
	for len(out) < n {
		v := r.Int64N(int64(rows))
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

var pagesRE = regexp.MustCompile(`pages_decoded=(\d+)`)

// pages sums the index pages a plan's probes decoded.
func pages(plan string) int {
	n := 0
	for _, m := range pagesRE.FindAllStringSubmatch(plan, -1) {
		v, _ := strconv.Atoi(m[1])
		n += v
	}
	return n
}

// resetPeakRSS and peakRSSKB bracket a measurement of peak resident memory
// (Linux: writing 5 to clear_refs resets VmHWM).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func peakRSSKB() int64 { return statusKB("VmHWM:") }

// anonRSSKB is the resident memory that is not file-backed now: the heap
// and other anonymous memory, without the pages of mapped data files
// (which the kernel can drop and which other processes share).
func anonRSSKB() int64 { return statusKB("RssAnon:") }

func statusKB(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return -1
}

// coldOut is what a cold child prints.
type coldOut struct {
	OpenTakeNS int64 `json:"open_take_ns"`
	RSSKB      int64 `json:"rss_kb"`
	Pages      int   `json:"pages"`
	Rows       int64 `json:"rows"`
}

// coldChild is a fresh process: open the database, take one id, report.
func coldChild(args []string) error {
	fs := flag.NewFlagSet("cold-child", flag.ContinueOnError)
	db := fs.String("db", "", "database location")
	id := fs.Int64("id", 0, "the id to take")
	if err := fs.Parse(args); err != nil {
		return err
	}
	start := time.Now()
	d, err := engine.Open(*db, engine.Options{Mem: memory.NewGoAllocator()})
	if err != nil {
		return err
	}
	res, err := d.Exec(context.Background(), takeSQL, map[string]any{"ids": []int64{*id}})
	if err != nil {
		return err
	}
	took := time.Since(start)
	out := coldOut{OpenTakeNS: int64(took), RSSKB: peakRSSKB(), Pages: pages(res.Plan), Rows: res.NumRows()}
	res.Release()
	return json.NewEncoder(os.Stdout).Encode(out)
}

// measureCold runs runs fresh processes, each taking one random id.
func measureCold(loc string, rows, runs int, seed uint64, env []string) (coldFig, error) {
	self, err := os.Executable()
	if err != nil {
		return coldFig{}, err
	}
	var walls, insides []time.Duration
	var rss []int64
	fig := coldFig{Processes: runs}
	for i := range runs {
		id := ids(rows, 1, seed+uint64(i)+100)[0]
		cmd := exec.Command(self, "cold-child", "-db", loc, "-id", fmt.Sprint(id))
		cmd.Env = append(os.Environ(), env...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return fig, fmt.Errorf("cold take: %v: %s", err, errb.String())
		}
		walls = append(walls, time.Since(start))
		var co coldOut
		if err := json.Unmarshal(out.Bytes(), &co); err != nil {
			return fig, fmt.Errorf("cold take output %q: %w", out.String(), err)
		}
		if co.Rows != 1 {
			return fig, fmt.Errorf("cold take of 1 id returned %d rows", co.Rows)
		}
		insides = append(insides, time.Duration(co.OpenTakeNS))
		rss = append(rss, co.RSSKB)
		fig.Pages = co.Pages
	}
	fig.Wall, fig.OpenTake, fig.RSSKB = median(walls), median(insides), median(rss)
	return fig, nil
}

// warmOut is what a warm child prints.
type warmOut struct {
	LatenciesNS []int64 `json:"latencies_ns"`
	RSSKB       int64   `json:"rss_kb"`
	AnonKB      int64   `json:"anon_kb"`
	Pages       int     `json:"pages"`
}

// warmChild is a fresh process for one list size: open the database, take
// the list once to warm the caches, then runs more times; report the
// latencies and the process's peak RSS over the timed runs.
func warmChild(args []string) error {
	fs := flag.NewFlagSet("warm-child", flag.ContinueOnError)
	db := fs.String("db", "", "database location")
	rows := fs.Int("rows", 0, "rows of the table")
	n := fs.Int("n", 1, "ids per take")
	runs := fs.Int("runs", 5, "timed runs")
	seed := fs.Uint64("seed", 1, "seed of the ids")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	d, err := engine.Open(*db, engine.Options{Mem: memory.NewGoAllocator()})
	if err != nil {
		return err
	}
	list := ids(*rows, *n, *seed)
	var out warmOut
	for i := range *runs + 1 {
		if i == 1 {
			resetPeakRSS() // the warm-up's peak is not a warm take's
		}
		start := time.Now()
		res, err := d.Exec(ctx, takeSQL, map[string]any{"ids": list})
		if err != nil {
			return err
		}
		took := time.Since(start)
		if res.NumRows() != int64(*n) {
			return fmt.Errorf("take of %d ids returned %d rows", *n, res.NumRows())
		}
		if i == 1 {
			out.Pages = pages(res.Plan)
		}
		if i > 0 {
			out.AnonKB = max(out.AnonKB, anonRSSKB()) // the result still held
		}
		res.Release()
		if i > 0 {
			out.LatenciesNS = append(out.LatenciesNS, int64(took))
		}
	}
	out.RSSKB = peakRSSKB()
	return json.NewEncoder(os.Stdout).Encode(out)
}

// measureWarm takes 1, 10K and 1M ids, each list size in a process of its
// own (so the RSS is that take's), after a warm-up take of the list.
func measureWarm(loc string, rows, runs int, seed uint64) (map[int]warmFig, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	out := map[int]warmFig{}
	for _, n := range idLists {
		if n > rows {
			continue
		}
		r := runs
		if n >= 1_000_000 {
			r = min(runs, 3)
		}
		cmd := exec.Command(self, "warm-child", "-db", loc, "-rows", fmt.Sprint(rows), "-n", fmt.Sprint(n),
			"-runs", fmt.Sprint(r), "-seed", fmt.Sprint(seed))
		var stdout, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &errb
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("warm takes of %d ids: %v: %s", n, err, errb.String())
		}
		var wo warmOut
		if err := json.Unmarshal(stdout.Bytes(), &wo); err != nil {
			return nil, fmt.Errorf("warm child output %q: %w", stdout.String(), err)
		}
		var lat []time.Duration
		for _, ns := range wo.LatenciesNS {
			lat = append(lat, time.Duration(ns))
		}
		out[n] = warmFig{Latency: median(lat), RSSKB: wo.RSSKB, AnonKB: wo.AnonKB, Pages: wo.Pages}
	}
	return out, nil
}

func median[T int64 | time.Duration](v []T) T {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// run builds what is missing and measures every size.
func run(ctx context.Context, c *config) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	var results []*result
	for _, n := range c.rows {
		fmt.Fprintf(os.Stderr, "scalebench: %s rows: build\n", count(n))
		took, err := build(ctx, c.dir, n)
		if err != nil {
			return err
		}
		res := &result{Rows: n, Build: took}
		results = append(results, res)
		if c.buildOnly {
			continue
		}
		t := filepath.Join(dbDir(c.dir, n), "t")
		if res.DataBytes, _, err = treeBytes(filepath.Join(t, "data"), ""); err != nil {
			return err
		}
		if res.IndexBytes, res.LookupBytes, err = treeBytes(filepath.Join(t, "_indices"), "lookup.srbt"); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "scalebench: %s rows: cold takes\n", count(n))
		if res.Cold, err = measureCold(dbDir(c.dir, n), n, c.runs, c.seed, nil); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "scalebench: %s rows: warm takes\n", count(n))
		if res.Warm, err = measureWarm(dbDir(c.dir, n), n, c.runs, c.seed); err != nil {
			return err
		}
	}
	if c.buildOnly {
		return nil
	}
	fmt.Fprintln(os.Stderr, "scalebench: rowmap bytes per row (1M rows reclustered)")
	rm, err := rowmapBytesPerRow(ctx, c.dir, c.rowmapRows)
	if err != nil {
		return err
	}
	if c.versitygw != "" {
		if err := measureS3(ctx, c, results); err != nil {
			return err
		}
	}
	if c.out != "" {
		// The figures themselves, so the plot can be redrawn (-replot).
		b, err := json.MarshalIndent(results, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(strings.TrimSuffix(c.out, ".md")+".json", b, 0o644); err != nil {
			return err
		}
	}
	rep := report(c, results, rm)
	fmt.Print(rep)
	if c.out != "" {
		if err := os.WriteFile(c.out, []byte(rep), 0o644); err != nil {
			return err
		}
	}
	if c.plot != "" {
		if err := os.MkdirAll(filepath.Dir(c.plot), 0o755); err != nil {
			return err
		}
		if err := writePlot(c.plot, results); err != nil {
			return err
		}
	}
	return nil
}
