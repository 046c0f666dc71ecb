package main

import (
	"bufio"
	"encoding/json"
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
		fmt.Sprintf("versions: %s, DuckDB %s (duckdb-go/v2 v2.10506.0, threads=%s), %s, stablerow %s",
			runtime.Version(), mapping.LibraryVersion(), threads(c.threads), lanceVersion(c), commit()),
		"threads: stablerow runs each query on one goroutine (GOMAXPROCS=" + fmt.Sprint(runtime.GOMAXPROCS(0)) +
			" for the runtime); DuckDB " + threads(c.threads) + " threads; LanceDB's Rust runtime its default (one worker per core)",
		fmt.Sprintf("runs: median of %d timed runs per engine (%d for 1M-id lists), after one checked run; engines alternate run by run; whole run took %s",
			c.runs, c.bigRuns, took.Round(time.Second)),
		fmt.Sprintf("load average (1, 5, 15 min) at start: %s, at end: %s — above the core count, other processes shared the cores and figures are noisy", load0, load1),
	}
	return s
}

// lanceVersion names the LanceDB peer: its npm version and Node's.
func lanceVersion(c *config) string {
	if c.lance == "" {
		return "LanceDB not run (-lance \"\")"
	}
	v := "@lancedb/lancedb ?"
	if b, err := os.ReadFile(c.lance + "/node_modules/@lancedb/lancedb/package.json"); err == nil {
		var pkg struct{ Version string }
		if json.Unmarshal(b, &pkg) == nil {
			v = "@lancedb/lancedb " + pkg.Version
		}
	}
	if out, err := exec.Command("node", "--version").Output(); err == nil {
		v += " on Node " + strings.TrimSpace(string(out))
	}
	return v
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
			"its inputs to holding every result row in the caller's memory (Go for stablerow and DuckDB, Node for LanceDB). " +
			"\"result rows (hits)\": rows returned, and how many carry a row. Each ratio column is stablerow's median over " +
			"the best variant of that peer in the row (below 1: stablerow is faster).",
		"Checks before timing, per case: every engine answers the content check (`SELECT v.ord, t.k, t.payload FROM " +
			"UNNEST(:ids) ... LEFT JOIN t ... ORDER BY v.ord`) and must equal the model computed from the data generator alone " +
			"(row i has row id i, k = K(i), payload = Payload(i); the delete removes payload < 0.1), not from any engine; an " +
			"IN-list must equal the model's rows for its keys; stablerow's scan must hold exactly the model's rows. Then the " +
			"timed query's answers are compared across engines (addresses between stablerow and DuckDB, which holds them as a " +
			"copied column; LanceDB's addresses are its own, so for it only hits and payloads). Any difference fails the run.",
		"stablerow runs the seed query text with `:ids` bound to a `[]uint64`, on a table of 1M-row fragments with a " +
			"BTree on `_rowid` and one on `k`. DuckDB (in memory) is loaded from the model (k, payload from the generator) " +
			"plus stablerow's `_rowaddr` per row id; its id list is appended per run as a table ids_v(rowid, ord) and joined, " +
			"the append inside its timing as binding `:ids` is inside stablerow's. DuckDB variants, all on the same rows: " +
			"`duckdb` no index; `duckdb+ART` an ART on `_rowid` (unique) and one on `k`, DuckDB's default settings " +
			"(dynamic_or_filter_threshold 50, index_scan_max_count 2048, index_scan_percentage 0.001); `duckdb+ART+tuned` " +
			"the same indexes with dynamic_or_filter_threshold = index_scan_max_count = " + fmt.Sprint(c.duckThreshold) +
			" and index_scan_percentage 1.0 (-duck-threshold), so a join with up to that many ids probes the ART.",
		"LanceDB (`bench/lance`, Node): t created with stable row ids (storage option new_table_enable_stable_row_ids), " +
			"so row i has row id i as in stablerow; a take is `takeRowIds(ids).withRowId().select([payload]).toArrow()`. " +
			"takeRowIds drops misses and repeated ids and returns rows in address order, so the timing also restores the " +
			"seed contract (one row per id in request order, NULL for a miss) through a hash map from row id; the plan " +
			"column gives the raw takeRowIds time beside it. It runs the take+payload rows (it has no stablerow `_rowaddr`).",
		"Ids: random over the generated row ids, ~5% misses (ids above every row id) and ~5% repeats; the same lists before " +
			"and after the delete (`DELETE FROM t WHERE " + peer.DeletePredicate + "`, ~10% of rows), so after it ~10% more ids miss. " +
			"The k IN-list writes the keys into the SQL text for every engine (~5% absent keys); stablerow answers it with " +
			"the BTree on k. Cases with rows × keys above " + fmt.Sprint(c.maxKeyOps) + " (-max-key-ops) are skipped.",
		"After the delete, t is reclustered by k (`table.Recluster`; k is a scrambled key, so every row moves) with the " +
			"index remap deferred: \"take after recluster\" answers through the BTree plus the fragment reuse history; " +
			"\"take after optimize\" after `OptimizeIndex`. Then the rows with payload >= 0.9 (~10%) are rewritten with " +
			"their own values (stablerow `table.Update`; LanceDB `update SET payload = payload`) and compacted (stablerow " +
			"`table.Compact` + OptimizeIndex; LanceDB `optimize`): \"take+payload after update + compaction\". DuckDB is " +
			"reloaded with the new addresses after each rewrite (untimed). \"cold\" is the first take after opening the " +
			"table again (stablerow: a new engine.DB on the directory; LanceDB: connect + openTable); the OS page cache is warm.",
	}
}
