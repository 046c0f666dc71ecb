package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/stablerow/stablerow/bench/peer"
)

// setting is the report's header: where, when, how.
func setting(c *config, took time.Duration, load0, load1 string) []string {
	s := []string{
		"machine: " + machine(),
		"date: " + time.Now().UTC().Format("2006-01-02 15:04 MST"),
		"command: `cd bench && go run ./cmd/peerbench " + strings.Join(os.Args[1:], " ") + "`",
		fmt.Sprintf("versions: %s, DuckDB %s (duckdb-go/v2 v2.10506.0, threads=%s), stablerow %s",
			runtime.Version(), mapping.LibraryVersion(), threads(c.threads), commit()),
		fmt.Sprintf("runs: median of %d timed runs per engine (%d for 1M-id lists), after one checked run; engines alternate run by run; whole run took %s",
			c.runs, c.bigRuns, took.Round(time.Second)),
		fmt.Sprintf("load average (1, 5, 15 min) at start: %s, at end: %s — above the core count, other processes shared the cores and figures are noisy", load0, load1),
	}
	return s
}

// loadAvg is the first three fields of /proc/loadavg ("?" elsewhere).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], ", ")
}

func threads(n int) string {
	if n <= 0 {
		return fmt.Sprintf("%d (all cores)", runtime.NumCPU())
	}
	return fmt.Sprint(n)
}

// machine describes the CPU and memory from /proc (Linux), else GOOS/GOARCH.
func machine() string {
	desc := fmt.Sprintf("%d cores", runtime.NumCPU())
	if model := procField("/proc/cpuinfo", "model name"); model != "" {
		desc += " (" + model + ")"
	}
	if mem := procField("/proc/meminfo", "MemTotal"); mem != "" {
		var kb int64
		if _, err := fmt.Sscanf(mem, "%d", &kb); err == nil {
			desc += fmt.Sprintf(", %d GiB", (kb+1<<19)>>20)
		}
	}
	return desc + ", " + runtime.GOOS + "/" + runtime.GOARCH
}

func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// commit is the stablerow commit the run measured (the parent repository's
// HEAD), or "(unknown commit)".
func commit() string {
	out, err := exec.Command("git", "-C", "..", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "(unknown commit)"
	}
	s := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", "..", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		s += " + uncommitted changes"
	}
	return s
}

// notesOf explains how to read the table.
func notesOf(c *config) []string {
	return []string{
		"How to read it: times are medians in milliseconds of wall-clock time from handing the engine the query and " +
			"its inputs to holding every result row in Go memory. Both engines answer identical rows (checked before timing; " +
			"any difference fails the run). \"result rows (hits)\": rows returned, and how many carry an address. " +
			"The last column is stablerow's median over the faster DuckDB variant's (below 1: stablerow is faster).",
		"stablerow runs the seed query text with `:ids` bound to a `[]uint64`, on a table of 1M-row fragments with a " +
			"BTree on `_rowid` (CREATE INDEX rid ON t USING btree (_rowid)) and one on `k`. " +
			"DuckDB holds the same rows (`_rowid`, `_rowaddr` read back from stablerow's scan, `k`, `payload`) in memory; " +
			"its id list is appended per run as a table ids_v(rowid, ord) and joined " +
			"(`SELECT v.ord, t._rowaddr FROM ids_v AS v LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord`): the fastest way " +
			"to give DuckDB a large list (UNNEST of a bound list parameter costs ~1.2 µs per id in the Go driver alone), and " +
			"the append is inside its timing as binding `:ids` is inside stablerow's. duckdb+ART is the same table with " +
			"CREATE UNIQUE INDEX on `_rowid`; its plan column shows whether the ART was used.",
		"Ids: random over the live row ids, ~5% misses (ids above every row id) and ~5% repeats; the same lists before " +
			"and after the delete (`DELETE FROM t WHERE " + peer.DeletePredicate + "`, ~10% of rows), so after it ~10% more ids miss. " +
			"The k IN-list writes the keys into the SQL text for both engines (~5% absent keys); stablerow answers it with " +
			"the BTree on k (IndexScanExec over the covered fragments plus a scan of uncovered ones, the filter kept above). " +
			"Cases with rows × keys above " + fmt.Sprint(c.maxKeyOps) + " (-max-key-ops) are skipped.",
		"After the delete, t is reclustered by k (`table.Recluster`, a stable partition over every fragment; k is a " +
			"scrambled key, so every row moves) with the index remap deferred: \"take after recluster\" answers through the " +
			"BTree plus the fragment reuse history (rowmap translation); \"take after optimize\" after `OptimizeIndex` has " +
			"folded the remap into the index. DuckDB is reloaded with the moved rows' new `_rowaddr` (untimed) and, its " +
			"plan being unchanged, only the plain table is rerun.",
	}
}
