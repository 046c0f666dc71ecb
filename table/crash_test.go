package table_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// Child processes are this test binary re-executed with -test.run naming
// one child test and these variables saying what to do.
const (
	envChild = "STABLEROW_TABLE_CHILD" // "crash" or "multiproc"
	envDir   = "STABLEROW_TABLE_DIR"   // the local table
	envSeed  = "STABLEROW_TABLE_SEED"  // random seed of the child's operations
	envKBase = "STABLEROW_TABLE_KBASE" // first k value the child appends (k values are unique)
	envFor   = "STABLEROW_TABLE_FOR"   // how long the child runs (a Go duration)
)

// childOpts are the write options of every child: small fragments and
// batches, so an append writes several files and a kill often lands
// between them.
var childOpts = table.Options{MaxRowsPerFragment: 64, BatchRows: 16}

// keyRow is the row a child writes for key k: the other columns are
// functions of k, so a reader can check a row from its k alone.
func keyRow(k int64) []any {
	var name any
	if k%7 != 0 {
		name = "n" + strconv.FormatInt(k%50, 10)
	}
	return []any{k, name, float64(k%100) / 4}
}

// keyBatch builds user rows for ks, prefixed by _rowid when ids is set
// (the shape Update takes).
func keyBatch(t testing.TB, mem memory.Allocator, ks []int64, ids []uint64) arrow.RecordBatch {
	t.Helper()
	sc := userSchema
	if ids != nil {
		sc = arrow.NewSchema(append([]arrow.Field{{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64}}, userSchema.Fields()...), nil)
	}
	rows := make([][]any, len(ks))
	for i, k := range ks {
		rows[i] = keyRow(k)
		if ids != nil {
			rows[i] = append([]any{ids[i]}, rows[i]...)
		}
	}
	b, err := exectest.Batch(mem, sc, rows)
	require.NoError(t, err)
	return b
}

// scanKeys reads a snapshot written by children as row id -> k, checking
// that row ids are unique, every row matches its k, and the scan agrees
// with the snapshot's LiveRows.
func scanKeys(t testing.TB, tb *table.Table, mem memory.Allocator) map[uint64]int64 {
	t.Helper()
	got, err := readKeys(context.Background(), tb, mem)
	require.NoError(t, err)
	return got
}

// readKeys is scanKeys for goroutines other than the test's.
func readKeys(ctx context.Context, tb *table.Table, mem memory.Allocator) (map[uint64]int64, error) {
	sc, err := tb.Scan(ctx, table.ScanOptions{Columns: []string{"k", "name", "score", "_rowid"}, Mem: mem})
	if err != nil {
		return nil, err
	}
	defer sc.Release()
	got := map[uint64]int64{}
	for sc.Next() {
		b := sc.RecordBatch()
		ks := b.Column(0).(*array.Int64)
		names := b.Column(1).(*array.String)
		scores := b.Column(2).(*array.Float64)
		ids := b.Column(3).(*array.Uint64)
		for i := 0; i < int(b.NumRows()); i++ {
			id, k := ids.Value(i), ks.Value(i)
			if _, dup := got[id]; dup {
				return nil, fmt.Errorf("version %d: row id %d twice", tb.Version(), id)
			}
			want := keyRow(k)
			var name any
			if names.IsValid(i) {
				name = names.Value(i)
			}
			if name != want[1] || !scores.IsValid(i) || scores.Value(i) != want[2] {
				return nil, fmt.Errorf("version %d: row id %d holds k %d, name %v, score %v", tb.Version(), id, k, name, scores.Value(i))
			}
			got[id] = k
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if tb.LiveRows() != uint64(len(got)) {
		return nil, fmt.Errorf("version %d: LiveRows %d, scan %d rows", tb.Version(), tb.LiveRows(), len(got))
	}
	return got, nil
}

// childOp is one operation a child commits, in the line format it prints:
//
//	append <first row id> <first k> <n>   rows first+i hold k0+i
//	delete <id>,<id>,...
//	update <id>:<k>,...                   the row keeps its id, gets k
//	index <prefix>                        (re)build of index k_idx
//	compact <defer>                       Compact (defer: DeferIndexRemap 0/1)
//	recluster <defer> <frag>,<frag>,...   Recluster of those fragments by k
//	noop -                                a commit that changed no row
//
// Rewrites (compact, recluster) keep every row and its id, and take two
// commits (reserve, rewrite), or none when there is nothing to do.
type childOp struct {
	kind       string
	first      uint64
	k0         int64
	n          int
	ids        []uint64 // row ids; fragment ids for recluster
	ks         []int64
	prefix     string
	deferRemap bool
}

// maxCommits is how many versions the operation commits at most.
func (o childOp) maxCommits() uint64 {
	if o.kind == "compact" || o.kind == "recluster" {
		return 2
	}
	return 1
}

func joinIDs(ids []uint64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatUint(id, 10)
	}
	return strings.Join(s, ",")
}

func (o childOp) String() string {
	switch o.kind {
	case "append":
		return fmt.Sprintf("append %d %d %d", o.first, o.k0, o.n)
	case "delete":
		return "delete " + joinIDs(o.ids)
	case "compact":
		return fmt.Sprintf("compact %t", o.deferRemap)
	case "recluster":
		return fmt.Sprintf("recluster %t %s", o.deferRemap, joinIDs(o.ids))
	case "update":
		s := make([]string, len(o.ids))
		for i, id := range o.ids {
			s[i] = fmt.Sprintf("%d:%d", id, o.ks[i])
		}
		return "update " + strings.Join(s, ",")
	case "noop":
		return "noop -"
	default:
		return "index " + o.prefix
	}
}

func parseChildOp(f []string) (childOp, error) {
	if len(f) < 2 {
		return childOp{}, fmt.Errorf("short op %q", f)
	}
	o := childOp{kind: f[0]}
	var err error
	switch o.kind {
	case "append":
		if len(f) != 4 {
			return o, fmt.Errorf("bad append %q", f)
		}
		o.first, err = strconv.ParseUint(f[1], 10, 64)
		if err == nil {
			o.k0, err = strconv.ParseInt(f[2], 10, 64)
		}
		if err == nil {
			o.n, err = strconv.Atoi(f[3])
		}
	case "delete", "update":
		for _, item := range strings.Split(f[1], ",") {
			idS, kS, _ := strings.Cut(item, ":")
			id, e := strconv.ParseUint(idS, 10, 64)
			if e != nil {
				return o, e
			}
			o.ids = append(o.ids, id)
			if o.kind == "update" {
				k, e := strconv.ParseInt(kS, 10, 64)
				if e != nil {
					return o, e
				}
				o.ks = append(o.ks, k)
			}
		}
	case "index":
		o.prefix = f[1]
	case "compact", "recluster":
		o.deferRemap, err = strconv.ParseBool(f[1])
		if err == nil && o.kind == "recluster" {
			if len(f) != 3 {
				return o, fmt.Errorf("bad recluster %q", f)
			}
			for _, item := range strings.Split(f[2], ",") {
				id, e := strconv.ParseUint(item, 10, 32)
				if e != nil {
					return o, e
				}
				o.ids = append(o.ids, id)
			}
		}
	case "noop":
	default:
		return o, fmt.Errorf("unknown op %q", f[0])
	}
	return o, err
}

// apply plays the operation on a model of row id -> k.
func (o childOp) apply(m map[uint64]int64) {
	switch o.kind {
	case "append":
		for i := range o.n {
			m[o.first+uint64(i)] = o.k0 + int64(i)
		}
	case "delete":
		for _, id := range o.ids {
			delete(m, id)
		}
	case "update":
		for i, id := range o.ids {
			m[id] = o.ks[i]
		}
	}
}

// run commits the operation on tb. n is the number of rows a delete
// deleted (fewer than asked when a concurrent writer deleted some first).
func (o childOp) run(ctx context.Context, t testing.TB, tb *table.Table, mem memory.Allocator) (nt *table.Table, n uint64, err error) {
	switch o.kind {
	case "append":
		ks := make([]int64, o.n)
		for i := range ks {
			ks[i] = o.k0 + int64(i)
		}
		b := keyBatch(t, mem, ks, nil)
		defer b.Release()
		nt, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
		return nt, 0, err
	case "delete":
		return tb.DeleteRowIDs(ctx, o.ids)
	case "compact":
		nt, err = tb.Compact(ctx, table.CompactOptions{DeferIndexRemap: o.deferRemap, Mem: mem})
		return nt, 0, err
	case "recluster":
		frags := make([]uint32, len(o.ids))
		for i, id := range o.ids {
			frags[i] = uint32(id)
		}
		nt, err = tb.Recluster(ctx, "k", table.ReclusterOptions{Fragments: frags, DeferIndexRemap: o.deferRemap, Mem: mem})
		return nt, 0, err
	case "update":
		b := keyBatch(t, mem, o.ks, o.ids)
		defer b.Release()
		rdr, err := array.NewRecordReader(b.Schema(), []arrow.RecordBatch{b})
		if err != nil {
			return nil, 0, err
		}
		defer rdr.Release()
		nt, _, err = tb.Update(ctx, rdr, mem)
		return nt, 0, err
	default:
		// A stand-in for an index build: files under a fresh prefix, then
		// the commit that makes them part of the version.
		for _, name := range []string{"pages", "lookup"} {
			if err := tb.Store().Put(ctx, o.prefix+name, bytes.Repeat([]byte(name), 64)); err != nil {
				return nil, 0, err
			}
		}
		nt, err = tb.CommitIndex(ctx, &table.IndexMeta{Name: "k_idx", Column: "k", Kind: "test", Prefix: o.prefix,
			Fragments: roaring.BitmapOf(tb.FragmentIDs()...), DatasetVersion: tb.Version()}, tb.Index("k_idx") != nil)
		return nt, 0, err
	}
}

// childLine is one complete line a child printed: "SR <what> ...".
type childLine struct {
	what    string // "ready", "intent", "commit", "conflict"
	version uint64 // of a commit
	op      childOp
}

// parseChildOutput reads the complete "SR" lines of a child's stdout; a
// line cut short by a kill has no newline and is dropped.
func parseChildOutput(out []byte) ([]childLine, error) {
	var lines []childLine
	text := string(out)
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	} else {
		text = ""
	}
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "SR" {
			continue
		}
		cl := childLine{what: f[1]}
		var err error
		switch cl.what {
		case "intent", "conflict":
			cl.op, err = parseChildOp(f[2:])
		case "commit":
			if len(f) < 4 {
				return nil, fmt.Errorf("bad line %q", l)
			}
			if cl.version, err = strconv.ParseUint(f[2], 10, 64); err == nil {
				cl.op, err = parseChildOp(f[3:])
			}
		}
		if err != nil {
			return nil, fmt.Errorf("line %q: %w", l, err)
		}
		lines = append(lines, cl)
	}
	return lines, nil
}

// lockedBuffer collects a child's output while the parent polls it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.b.Bytes())
}

// childProc is a running child process.
type childProc struct {
	cmd            *exec.Cmd
	stdout, stderr *lockedBuffer
	done           chan struct{} // closed when the process has exited
	err            error         // of cmd.Wait, once done
}

// startChild runs child test name of this binary with env set.
func startChild(t *testing.T, name string, env ...string) *childProc {
	t.Helper()
	c := &childProc{cmd: exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.timeout=5m"),
		stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, done: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), env...)
	c.cmd.Stdout, c.cmd.Stderr = c.stdout, c.stderr
	require.NoError(t, c.cmd.Start())
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill() // a no-op once it exited
		<-c.done
	})
	return c
}

// kill SIGKILLs the child and waits for it; exited reports whether it had
// ended by itself before.
func (c *childProc) kill() (exited bool) {
	_ = c.cmd.Process.Kill()
	<-c.done
	return c.cmd.ProcessState.Exited()
}

// waitReady waits for the child's "SR ready" line.
func (c *childProc) waitReady(t *testing.T) {
	t.Helper()
	timeout := time.After(time.Minute)
	for !bytes.Contains(c.stdout.Bytes(), []byte("SR ready\n")) {
		select {
		case <-c.done:
			t.Fatalf("child ended before it was ready (%v):\n%s\n%s", c.err, c.stdout.Bytes(), c.stderr.Bytes())
		case <-timeout:
			c.kill()
			t.Fatalf("child not ready after a minute:\n%s\n%s", c.stdout.Bytes(), c.stderr.Bytes())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

func childEnvInt(t testing.TB, name string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(os.Getenv(name), 10, 64)
	require.NoError(t, err, name)
	return v
}

// say prints one protocol line. Stdout is unbuffered, and a line is far
// below PIPE_BUF, so it reaches the parent whole or not at all.
func say(format string, args ...any) { fmt.Printf("SR "+format+"\n", args...) }

// TestCrashChild is the writer TestCrash kills: it loops appends, deletes,
// updates and index builds on the table in $STABLEROW_TABLE_DIR, printing
// each operation before it starts (intent) and after its commit returned.
func TestCrashChild(t *testing.T) {
	if os.Getenv(envChild) != "crash" {
		t.Skip("a child process of TestCrash")
	}
	mem := exectest.Mem(t)
	ctx := context.Background()
	st, err := store.NewLocal(os.Getenv(envDir))
	require.NoError(t, err)
	tb, err := table.Open(ctx, st, childOpts)
	require.NoError(t, err)
	model := scanKeys(t, tb, mem)
	r := rand.New(rand.NewPCG(uint64(childEnvInt(t, envSeed)), 1))
	k := childEnvInt(t, envKBase)
	dur, err := time.ParseDuration(os.Getenv(envFor))
	require.NoError(t, err)
	say("ready")
	for deadline := time.Now().Add(dur); time.Now().Before(deadline); {
		o := nextCrashOp(r, tb, model, &k)
		say("intent %s", o)
		nt, n, err := o.run(ctx, t, tb, mem)
		require.NoError(t, err, "%s", o)
		if o.kind == "delete" {
			require.Equal(t, uint64(len(o.ids)), n, "%s", o)
		}
		tb = nt
		say("commit %d %s", tb.Version(), o)
		o.apply(model)
	}
}

// nextCrashOp picks the next operation of a single writer: it knows the
// row ids an append will get (no one else commits).
func nextCrashOp(r *rand.Rand, tb *table.Table, model map[uint64]int64, k *int64) childOp {
	ids := make([]uint64, 0, len(model))
	for id := range model {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	pick := func(n int) []uint64 {
		r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		return slices.Clone(ids[:min(n, len(ids))])
	}
	switch x := r.IntN(24); {
	case x < 9 || len(ids) < 20:
		o := childOp{kind: "append", first: tb.Manifest().NextRowID, k0: *k, n: 1 + r.IntN(150)}
		*k += int64(o.n)
		return o
	case x < 14:
		n := 1 + r.IntN(8)
		if len(ids) > 1500 {
			n = 1 + r.IntN(200) // keep the table small enough to verify quickly
		}
		return childOp{kind: "delete", ids: pick(n)}
	case x < 19:
		o := childOp{kind: "update", ids: pick(1 + r.IntN(8))}
		for range o.ids {
			o.ks = append(o.ks, *k)
			*k++
		}
		return o
	case x < 20:
		return childOp{kind: "index", prefix: fmt.Sprintf("_indices/%016x/", r.Uint64())}
	case x < 22:
		return childOp{kind: "compact", deferRemap: r.IntN(2) == 0}
	default:
		o := childOp{kind: "recluster", deferRemap: r.IntN(2) == 0}
		fs := tb.FragmentIDs()
		r.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
		for _, id := range fs[:min(len(fs), 2+r.IntN(3))] {
			o.ids = append(o.ids, uint64(id))
		}
		slices.Sort(o.ids)
		return o
	}
}

// crashStats are the figures TestCrash reports.
type crashStats struct {
	rounds, kills, commits       int
	killedMidOp, unprinted       int
	versionsExpired              int
	orphansDeleted, tempsDeleted int
	orphanBytes                  int64
	ops                          map[string]int // committed operations by kind
}

// TestCrash SIGKILLs a writer child at random moments (during appends,
// deletes, updates, index builds, compactions and reclusters), round after
// round, and checks after each kill that the table opens at the last
// printed version or just after it (the operation in flight committed
// before its print: one version, two for a rewrite), holds exactly the
// rows of the printed log plus that operation, keeps row ids unique and
// stable, and that Cleanup removes what the killed writes left while every
// kept version still reads in full.
func TestCrash(t *testing.T) {
	rounds, maxDelay := 40, 400
	if testing.Short() {
		rounds, maxDelay = 8, 250
	}
	mem := exectest.Mem(t)
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.NewLocal(dir)
	require.NoError(t, err)
	_, err = table.Create(ctx, st, userSchema, childOpts)
	require.NoError(t, err)
	model := map[uint64]int64{}
	version := uint64(1)
	r := rand.New(rand.NewPCG(8, 8))
	s := crashStats{ops: map[string]int{}}
	for round := range rounds {
		c := startChild(t, "TestCrashChild", envChild+"=crash", envDir+"="+dir,
			fmt.Sprintf("%s=%d", envSeed, round), fmt.Sprintf("%s=%d", envKBase, int64(round+1)*1_000_000), envFor+"=1m")
		c.waitReady(t)
		time.Sleep(time.Duration(r.IntN(maxDelay)) * time.Millisecond)
		if c.kill() { // SIGKILL
			t.Fatalf("round %d: the child ended by itself (%v):\n%s\n%s", round, c.err, c.stdout.Bytes(), c.stderr.Bytes())
		}
		s.rounds++
		s.kills++
		lines, err := parseChildOutput(c.stdout.Bytes())
		require.NoError(t, err)
		var pending *childOp
		for _, l := range lines {
			switch l.what {
			case "intent":
				pending = &l.op
			case "commit":
				require.True(t, l.version >= version+1 && l.version <= version+l.op.maxCommits() ||
					l.version == version && l.op.maxCommits() == 2,
					"round %d: %s took the table from version %d to %d", round, l.op, version, l.version)
				version = l.version
				l.op.apply(model)
				s.commits++
				s.ops[l.op.kind]++
				pending = nil
			}
		}
		latest, err := table.LatestVersion(ctx, st)
		require.NoError(t, err)
		switch {
		case latest == version:
		case pending != nil && latest > version && latest <= version+pending.maxCommits():
			// The commit landed; the kill came before its print.
			pending.apply(model)
			version = latest
			s.unprinted++
			s.commits++
			s.ops[pending.kind]++
		default:
			t.Fatalf("round %d: table at version %d, last printed commit %d (pending %v)", round, latest, version, pending)
		}
		if pending != nil {
			s.killedMidOp++
		}
		tb, err := table.Open(ctx, st, table.Options{})
		require.NoError(t, err)
		require.Equal(t, model, scanKeys(t, tb, mem), "round %d: version %d", round, latest)

		keep := 8
		if round%4 == 0 {
			keep = 0
		}
		rep, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1, KeepVersions: keep})
		require.NoError(t, err)
		s.versionsExpired += rep.VersionsDeleted
		s.orphansDeleted += rep.FilesDeleted
		s.tempsDeleted += rep.TempFilesDeleted
		s.orphanBytes += rep.BytesDeleted + rep.TempBytesDeleted
		checkNoOrphans(t, st, mem)
		tb, err = table.Open(ctx, st, table.Options{})
		require.NoError(t, err)
		require.Equal(t, version, tb.Version())
		require.Equal(t, model, scanKeys(t, tb, mem), "round %d after Cleanup", round)
	}
	t.Logf("crash: %d rounds, %d SIGKILLs (%d mid-operation, %d after an unprinted commit), %d commits, %d rows live; "+
		"Cleanup removed %d orphaned files + %d temp files (%d bytes), expired %d versions; operations %v",
		s.rounds, s.kills, s.killedMidOp, s.unprinted, s.commits, len(model), s.orphansDeleted, s.tempsDeleted, s.orphanBytes, s.versionsExpired, s.ops)
}

// checkNoOrphans checks the result of a Cleanup without writers: the kept
// versions are dense and each reads in full and finds its index files and
// rowmaps (so no file one needs is gone), and every file left under data/, _indices/ and _rowmaps/ is one a
// kept version names; no temporary file is left.
func checkNoOrphans(t *testing.T, st *store.Local, mem memory.Allocator) {
	t.Helper()
	ctx := context.Background()
	infos, err := table.Versions(ctx, st)
	require.NoError(t, err)
	need := map[string]bool{}
	var prefixes []string
	for i, vi := range infos {
		require.Equal(t, infos[0].Version+uint64(i), vi.Version, "kept versions are dense")
		tb, err := table.OpenVersion(ctx, st, vi.Version, table.Options{})
		require.NoError(t, err)
		require.Equal(t, tb.LiveRows(), countRows(t, tb, mem), "version %d", vi.Version)
		for _, f := range tb.Fragments() {
			need[f.DataFile] = true
		}
		for _, ix := range tb.Indexes() {
			for _, name := range []string{"pages", "lookup"} {
				_, err := st.Size(ctx, ix.Prefix+name)
				require.NoError(t, err, "version %d index file", vi.Version)
			}
			prefixes = append(prefixes, ix.Prefix)
		}
		hist, err := tb.History()
		require.NoError(t, err)
		for _, tr := range hist {
			if tr.RowMap != "" {
				_, err := st.Size(ctx, tr.RowMap)
				require.NoError(t, err, "version %d rowmap", vi.Version)
				need[tr.RowMap] = true
			}
		}
	}
	for _, dir := range []string{"data/", "_indices/", "_rowmaps/"} {
		ps, err := st.List(ctx, dir)
		require.NoError(t, err)
		for _, p := range ps {
			ok := need[p] || slices.ContainsFunc(prefixes, func(pre string) bool { return strings.HasPrefix(p, pre) })
			require.True(t, ok, "Cleanup left the orphan %s", p)
		}
	}
	require.NoError(t, filepath.WalkDir(st.Root(), func(f string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
			t.Errorf("Cleanup left the temp file %s", f)
		}
		return err
	}))
}

// countRows scans every data file of the snapshot and counts live rows.
func countRows(t testing.TB, tb *table.Table, mem memory.Allocator) uint64 {
	t.Helper()
	sc, err := tb.Scan(context.Background(), table.ScanOptions{Columns: []string{"k"}, Mem: mem})
	require.NoError(t, err)
	defer sc.Release()
	var n uint64
	for sc.Next() {
		n += uint64(sc.RecordBatch().NumRows())
	}
	require.NoError(t, sc.Err())
	return n
}
