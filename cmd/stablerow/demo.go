package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/table"
)

const seedQuery = `SELECT v.ord, t._rowaddr
FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
LEFT JOIN t ON t._rowid = v.rowid
ORDER BY v.ord`

var demoSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "payload", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

// runDemo is the main job on an embedded local table: build a table with
// stable row ids, index _rowid, append, delete and update behind the
// index's back, then run the seed take query through SQL -> Substrait ->
// TakeByKeyExec, check every answer against the table's own row id
// sequences, and compare with the index-free plan (hash join + sort).
func runDemo(ctx context.Context, args []string) error {
	fs := newFlags("demo", "demo [-d DIR|s3://bucket/prefix] [-rows N] [-ids N]: the take-by-row-id job on a local (or S3) table")
	dir := fs.String("d", ".demo", "folder (or s3://bucket/prefix) for the database: created, or emptied if an earlier demo made it (one demo did not make must be empty)")
	rows := fs.Int("rows", 1_000_000, "rows in the table")
	nids := fs.Int("ids", 10_000, "ids to take")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *rows < 1000 || *nids < 1 {
		return fmt.Errorf("demo: need -rows >= 1000 and -ids >= 1")
	}
	if err := prepareDemoDir(ctx, *dir); err != nil {
		return err
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	db, err := engine.Open(*dir, engine.Options{Mem: mem})
	if err != nil {
		return err
	}
	step := func(format string, a ...any) { fmt.Printf("\n== "+format+"\n", a...) }

	step("create table t(k BIGINT, payload DOUBLE) in %s and append %d rows", *dir, *rows)
	if _, err := db.CreateTable(ctx, "t", demoSchema); err != nil {
		return err
	}
	start := time.Now()
	// The meter redraws itself with carriage returns: only a terminal
	// shows that as one moving line; in a log it is hundreds of frames.
	// Off a terminal each step prints one line when it is done (below).
	var bar *appendMeter
	if isTerminal(os.Stderr) {
		bar = &appendMeter{w: os.Stderr, total: *rows}
	}
	if _, err := db.Append(ctx, "t", newGenReader(mem, 0, *rows, bar)); err != nil {
		return err
	}
	bar.finish()
	fmt.Printf("appended %d rows in %s\n", *rows, time.Since(start).Round(time.Millisecond))

	step("CREATE INDEX rid ON t USING btree (_rowid)")
	start = time.Now()
	if err := execQuiet(ctx, db, "CREATE INDEX rid ON t USING btree (_rowid)"); err != nil {
		return err
	}
	fmt.Printf("built in %s\n", time.Since(start).Round(time.Millisecond))

	extra := *rows / 20
	step("after the index: append %d rows, delete and update some (updated rows move, their ids stay)", extra)
	if _, err := db.Append(ctx, "t", newGenReader(mem, *rows, extra, nil)); err != nil {
		return err
	}
	n := int64(*rows)
	for _, q := range []string{
		fmt.Sprintf("DELETE FROM t WHERE k >= %d AND k < %d", n/10, n/10+n/20),
		fmt.Sprintf("DELETE FROM t WHERE k IN (3, 5, 8, %d, %d)", n/2+1, n+1),
		fmt.Sprintf("UPDATE t SET payload = -1 WHERE k = 7 OR (k >= %d AND k < %d)", n/2, n/2+n/100),
	} {
		start = time.Now()
		res, err := db.Exec(ctx, q, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		fmt.Printf("%-62s %7d rows  %s\n", q, res.RowsAffected, time.Since(start).Round(time.Millisecond))
		res.Release()
	}

	t, err := db.Table(ctx, "t")
	if err != nil {
		return err
	}
	step("versions")
	vs, err := table.Versions(ctx, t.Store())
	if err != nil {
		return err
	}
	for _, v := range vs {
		fmt.Printf("  v%-3d %-7s live rows %9d  fragments %3d  +%d -%d\n", v.Version, v.Kind, v.LiveRows, v.Fragments, v.Txn.RowsAdded, v.Txn.RowsDeleted)
	}

	step("a few rows with their stable row id and current address (k = 7 was updated: it moved)")
	if err := execPrint(ctx, db, "SELECT _rowid, _rowaddr, k, payload FROM t WHERE k < 3 OR k = 7 ORDER BY k", nil, false, os.Stdout); err != nil {
		return err
	}

	// The id list: random live and dead ids, ~5% never-assigned ids, duplicates.
	rng := rand.New(rand.NewPCG(7, 11))
	total := int64(*rows + extra)
	ids := make([]int64, *nids)
	for i := range ids {
		switch {
		case i > 0 && rng.IntN(50) == 0:
			ids[i] = ids[rng.IntN(i)]
		case rng.IntN(20) == 0:
			ids[i] = total + rng.Int64N(total)
		default:
			ids[i] = rng.Int64N(total)
		}
	}
	params := map[string]any{"ids": ids}

	step("the seed query, %d ids, through SQL -> Substrait -> physical plan", *nids)
	fmt.Println(indent(seedQuery))
	got, took, plan, err := seed(ctx, db, params)
	if err != nil {
		return err
	}
	fmt.Printf("\nplan that ran (EXPLAIN ANALYZE):\n%s", indent(plan))
	hits, err := verify(t, ids, got)
	if err != nil {
		return err
	}
	fmt.Printf("%d ids -> %d rows (%d hits, %d misses) in %s; every row checked against the row id sequences: OK\n",
		len(ids), len(got), hits, len(got)-hits, took.Round(time.Microsecond))

	step("the same query planned without indexes (hash join over a full scan + sort)")
	noIdx, err := engine.Open(*dir, engine.Options{Mem: mem, DisableIndexes: true})
	if err != nil {
		return err
	}
	got2, took2, plan, err := seed(ctx, noIdx, params)
	if err != nil {
		return err
	}
	fmt.Printf("%s", indent(plan))
	if !slices.Equal(got, got2) {
		return fmt.Errorf("demo: the index-free plan returned different rows")
	}
	fmt.Printf("same %d rows in %s (TakeByKeyExec was %.1fx faster)\n", len(got2), took2.Round(time.Microsecond), float64(took2)/float64(took))

	covered := t.Index("rid").Fragments.ToArray()
	step("recluster the indexed fragments %v by k into 4 (a reordered rewrite recorded as a rowmap); index remap deferred", covered)
	start = time.Now()
	if _, err := t.Recluster(ctx, "k", table.ReclusterOptions{Destinations: 4, Fragments: covered, DeferIndexRemap: true, Mem: mem}); err != nil {
		return err
	}
	fmt.Printf("reclustered in %s\n", time.Since(start).Round(time.Millisecond))
	if err := runChecked(ctx, db, params, ids, "the seed query again: index answers go through the fragment reuse history"); err != nil {
		return err
	}

	step("OptimizeIndex: every pending rewrite composed into one remap, unindexed fragments added, one commit")
	start = time.Now()
	if err := db.OptimizeIndex(ctx, "t", "rid"); err != nil {
		return err
	}
	fmt.Printf("optimized in %s\n", time.Since(start).Round(time.Millisecond))
	if err := runChecked(ctx, db, params, ids, "the seed query after optimize: no remap, no fallback"); err != nil {
		return err
	}
	if t, err = db.Table(ctx, "t"); err != nil {
		return err
	}

	tloc := filepath.Join(*dir, "t")
	if engine.IsRemote(*dir) {
		tloc = strings.TrimSuffix(*dir, "/") + "/t" // a URI, not a path to clean
	}
	step("table state (stablerow inspect %s)", tloc)
	if err := t.Describe(ctx, os.Stdout, false); err != nil {
		return err
	}
	if n := mem.CurrentAlloc(); n != 0 {
		return fmt.Errorf("demo: %d bytes of Arrow memory leaked", n)
	}
	fmt.Println("\nArrow memory outstanding: 0 bytes")
	return nil
}

// seed runs the seed query and returns its (ord-checked) addresses, the
// time it took and the plan that ran.
func seed(ctx context.Context, db *engine.DB, params map[string]any) ([]uint64, time.Duration, string, error) {
	start := time.Now()
	res, err := db.Exec(ctx, seedQuery, params)
	if err != nil {
		return nil, 0, "", err
	}
	took := time.Since(start)
	defer res.Release()
	got, err := ordAddrs(res)
	return got, took, res.Plan, err
}

// runChecked runs the seed query, prints its plan and checks every row.
func runChecked(ctx context.Context, db *engine.DB, params map[string]any, ids []int64, title string) error {
	fmt.Printf("\n== %s\n", title)
	t, err := db.Table(ctx, "t")
	if err != nil {
		return err
	}
	got, took, plan, err := seed(ctx, db, params)
	if err != nil {
		return err
	}
	fmt.Print(indent(plan))
	hits, err := verify(t, ids, got)
	if err != nil {
		return err
	}
	fmt.Printf("%d rows (%d hits) in %s, checked against the row id sequences: OK\n", len(got), hits, took.Round(time.Microsecond))
	return nil
}

func execQuiet(ctx context.Context, db *engine.DB, q string) error {
	res, err := db.Exec(ctx, q, nil)
	if err != nil {
		return err
	}
	res.Release()
	return nil
}

// ordAddrs reads (ord, _rowaddr) rows; a miss is address ^0.
func ordAddrs(res *engine.Result) ([]uint64, error) {
	var out []uint64
	for _, b := range res.Batches {
		ord, ok1 := b.Column(0).(*array.Int64)
		addr, ok2 := b.Column(1).(*array.Uint64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("demo: unexpected result types %s, %s", b.Column(0).DataType(), b.Column(1).DataType())
		}
		for i := 0; i < int(b.NumRows()); i++ {
			if ord.Value(i) != int64(len(out)+1) {
				return nil, fmt.Errorf("demo: row %d has ord %d", len(out), ord.Value(i))
			}
			if addr.IsNull(i) {
				out = append(out, ^uint64(0))
			} else {
				out = append(out, addr.Value(i))
			}
		}
	}
	return out, nil
}

// verify checks each answer against Locate, which resolves ids from the
// fragments' row id sequences and deletion vectors (no index involved).
func verify(t *table.Table, ids []int64, got []uint64) (int, error) {
	if len(got) != len(ids) {
		return 0, fmt.Errorf("demo: %d rows for %d ids", len(got), len(ids))
	}
	uids := make([]uint64, len(ids))
	for i, id := range ids {
		uids[i] = uint64(id)
	}
	want, found := t.Locate(uids)
	hits := 0
	for i := range ids {
		w := ^uint64(0)
		if found[i] {
			w = want[i]
			hits++
		}
		if got[i] != w {
			return 0, fmt.Errorf("demo: id %d: got address %x, want %x", ids[i], got[i], w)
		}
	}
	return hits, nil
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// genReader yields rows k = from.. from+n-1, payload = k/2, in 64K batches.
type genReader struct {
	mem      memory.Allocator
	next, hi int
	cur      arrow.RecordBatch
	bar      *appendMeter // nil: none
}

func newGenReader(mem memory.Allocator, from, n int, bar *appendMeter) *genReader {
	return &genReader{mem: mem, next: from, hi: from + n, bar: bar}
}

func (g *genReader) Retain()                        {}
func (g *genReader) Release()                       { g.drop() }
func (g *genReader) Schema() *arrow.Schema          { return demoSchema }
func (g *genReader) RecordBatch() arrow.RecordBatch { return g.cur }
func (g *genReader) Record() arrow.RecordBatch      { return g.cur }
func (g *genReader) Err() error                     { return nil }

func (g *genReader) drop() {
	if g.cur != nil {
		g.cur.Release()
		g.cur = nil
	}
}

func (g *genReader) Next() bool {
	g.drop()
	if g.next >= g.hi {
		return false
	}
	n := min(1<<16, g.hi-g.next)
	kb := array.NewInt64Builder(g.mem)
	pb := array.NewFloat64Builder(g.mem)
	kb.Reserve(n)
	pb.Reserve(n)
	for i := 0; i < n; i++ {
		k := int64(g.next + i)
		kb.UnsafeAppend(k)
		pb.UnsafeAppend(float64(k) / 2)
	}
	k, p := kb.NewArray(), pb.NewArray()
	kb.Release()
	pb.Release()
	g.cur = array.NewRecordBatch(demoSchema, []arrow.Array{k, p}, int64(n))
	k.Release()
	p.Release()
	g.next += n
	g.bar.add(n)
	return true
}

// appendMeter is the demo's append progress on a terminal: "append N/M
// rows", redrawn in place at most every 100 ms and erased when done. It
// replaces a progress bar package whose initialization (with its color
// and Unicode segmentation tables) ran at every start of every command.
type appendMeter struct {
	w           io.Writer
	total, done int
	last        time.Time
}

// add counts n more rows (a nil meter counts nothing).
func (m *appendMeter) add(n int) {
	if m == nil {
		return
	}
	m.done += n
	if now := time.Now(); now.Sub(m.last) >= 100*time.Millisecond {
		m.last = now
		fmt.Fprintf(m.w, "\rappend %d/%d rows", m.done, m.total)
	}
}

// finish erases the line (a nil meter drew none).
func (m *appendMeter) finish() {
	if m != nil && !m.last.IsZero() {
		fmt.Fprint(m.w, "\r\033[K")
	}
}
