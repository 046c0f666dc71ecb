package table_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// TestMultiprocChild is one of TestMultiproc's writers: until its time is
// up it appends rows with its own unique k values, deletes and updates
// random live rows and now and then compacts, from fresh or stale
// snapshots, and prints every commit ("commit <version> <op>") and every
// refused one ("conflict <op>"). Any error other than a typed conflict
// fails it.
func TestMultiprocChild(t *testing.T) {
	if os.Getenv(envChild) != "multiproc" {
		t.Skip("a child process of TestMultiproc")
	}
	mem := exectest.Mem(t)
	ctx := context.Background()
	st, err := store.NewLocal(os.Getenv(envDir))
	require.NoError(t, err)
	tb, err := table.Open(ctx, st, childOpts)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(uint64(childEnvInt(t, envSeed)), 2))
	k := childEnvInt(t, envKBase)
	dur, err := time.ParseDuration(os.Getenv(envFor))
	require.NoError(t, err)
	say("ready")
	for deadline := time.Now().Add(dur); time.Now().Before(deadline); {
		if r.IntN(4) > 0 { // else keep a stale snapshot: a rebase, or a conflict
			tb, err = tb.Latest(ctx)
			require.NoError(t, err)
		}
		var o childOp
		switch x := r.IntN(20); {
		case x < 10 || tb.LiveRows() < 10:
			o = childOp{kind: "append", k0: k, n: 1 + r.IntN(20)}
			k += int64(o.n)
		case x < 15:
			o = childOp{kind: "delete", ids: pickLive(r, tb, 1)}
		case x == 19:
			o = childOp{kind: "compact", deferRemap: r.IntN(2) == 0}
		default:
			o = childOp{kind: "update", ids: pickLive(r, tb, 1+r.IntN(3))}
			for range o.ids {
				o.ks = append(o.ks, k)
				k++
			}
		}
		if (o.kind == "delete" || o.kind == "update") && len(o.ids) == 0 {
			continue // found no live row to pick
		}
		nt, n, err := o.run(ctx, t, tb, mem)
		if errors.Is(err, table.ErrConflict) {
			say("conflict %s", o)
			continue
		}
		require.NoError(t, err, "%s", o)
		if o.kind == "delete" && n == 0 {
			// Another writer deleted the row first; deletes commute, so this
			// one still committed a version, deleting nothing.
			o = childOp{kind: "noop"}
		}
		if nt.Version() == tb.Version() {
			continue // a compaction with nothing to do
		}
		if o.kind == "append" {
			// Appends get their row ids at commit time; ours is the newest
			// fragment of the version it produced (n <= MaxRowsPerFragment).
			fs := nt.Fragments()
			lo, hi, ok := fs[len(fs)-1].RowIDs.MinMax()
			require.True(t, ok && hi-lo+1 == uint64(o.n))
			o.first = lo
		}
		tb = nt
		say("commit %d %s", tb.Version(), o)
	}
}

// pickLive returns up to n distinct row ids of live rows of tb.
func pickLive(r *rand.Rand, tb *table.Table, n int) []uint64 {
	var ids []uint64
	fs := tb.Fragments()
	for tries := 0; len(ids) < n && tries < 100; tries++ {
		f := fs[r.IntN(len(fs))]
		if f.LiveRows() == 0 {
			continue
		}
		addr := uint64(rowid.NewAddress(f.ID, uint32(r.Uint64N(f.PhysicalRows))))
		if id, ok := tb.RowIDAt(addr); ok && tb.IsLive(addr) && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// digest summarizes a row id -> k state; equal states give equal digests
// and it updates as rows come and go.
type digest struct {
	rows uint64
	sum  uint64
}

func mix(id uint64, k int64) uint64 {
	x := id*0x9e3779b97f4a7c15 ^ uint64(k)*0xc2b2ae3d27d4eb4f
	x ^= x >> 31
	return x * 0x94d049bb133111eb
}

func (d *digest) add(id uint64, k int64)    { d.rows++; d.sum += mix(id, k) }
func (d *digest) remove(id uint64, k int64) { d.rows--; d.sum -= mix(id, k) }

// TestMultiproc runs several writer processes against one local table
// while goroutines of this process scan and take from the newest
// snapshots. Afterwards the versions are dense and each of 2..latest was
// logged by exactly one writer (or is a rewrite's reserve commit, which
// changes no row); replaying the writers' logs in version order gives a model
// the final table equals; every snapshot a reader saw equals the model at
// its version; and every refused commit was a typed ErrConflict.
func TestMultiproc(t *testing.T) {
	procs, dur, readers := 4, 6*time.Second, 3
	if testing.Short() {
		procs, dur, readers = 3, 2*time.Second, 2
	}
	mem := exectest.Mem(t)
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.NewLocal(dir)
	require.NoError(t, err)
	_, err = table.Create(ctx, st, userSchema, childOpts)
	require.NoError(t, err)

	children := make([]*childProc, procs)
	for w := range children {
		children[w] = startChild(t, "TestMultiprocChild", envChild+"=multiproc", envDir+"="+dir,
			fmt.Sprintf("%s=%d", envSeed, w), fmt.Sprintf("%s=%d", envKBase, int64(w+1)*1_000_000_000),
			envFor+"="+dur.String(), "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	}
	for _, c := range children {
		c.waitReady(t)
	}

	// Readers: every snapshot is self-consistent (LiveRows = rows scanned,
	// unique row ids, takes return what the scan saw); its digest is
	// checked against the replayed model at the end.
	var stop atomic.Bool
	var mu sync.Mutex
	seen := map[uint64]digest{}
	var snapshots, takes atomic.Int64
	var wg sync.WaitGroup
	readErr := make(chan error, readers+1)
	// Cleanup runs alongside the writers with its default age guard: every
	// file is younger than it, so it must find what to keep and delete
	// nothing, whatever the writers are in the middle of.
	var cleanups atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			rep, err := table.Cleanup(ctx, st, table.CleanupOptions{KeepVersions: 3})
			if err == nil && rep.FilesDeleted+rep.TempFilesDeleted+rep.VersionsDeleted > 0 {
				err = fmt.Errorf("Cleanup beside writers deleted %+v", rep)
			}
			if err != nil {
				readErr <- err
				return
			}
			cleanups.Add(1)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 3))
			for !stop.Load() {
				if err := readOnce(ctx, st, r, mem, &mu, seen, &takes); err != nil {
					readErr <- err
					return
				}
				snapshots.Add(1)
				time.Sleep(5 * time.Millisecond) // leave the writers some CPU
			}
		}()
	}
	var logs [][]childLine
	for w, c := range children {
		<-c.done
		require.NoError(t, c.err, "writer %d:\n%s\n%s", w, c.stdout.Bytes(), c.stderr.Bytes())
		lines, err := parseChildOutput(c.stdout.Bytes())
		require.NoError(t, err)
		logs = append(logs, lines)
	}
	stop.Store(true)
	wg.Wait()
	close(readErr)
	for err := range readErr {
		t.Error(err)
	}

	latest, err := table.LatestVersion(ctx, st)
	require.NoError(t, err)
	byVersion := make([]*childOp, latest+1)
	conflicts := map[string]int{}
	for w, lines := range logs {
		for _, l := range lines {
			switch l.what {
			case "commit":
				require.True(t, l.version >= 2 && l.version <= latest, "writer %d committed version %d of %d", w, l.version, latest)
				require.Nil(t, byVersion[l.version], "version %d committed twice", l.version)
				byVersion[l.version] = &l.op
			case "conflict":
				conflicts[l.op.kind]++
			}
		}
	}
	model := map[uint64]int64{}
	var d digest
	want := map[uint64]digest{1: d}
	vs, err := table.Versions(ctx, st)
	require.NoError(t, err)
	require.Len(t, vs, int(latest), "versions are dense")
	reserves := 0
	for v := uint64(2); v <= latest; v++ {
		o := byVersion[v]
		if o == nil {
			// A rewrite's first commit (it reserves fragment ids and changes
			// no row) is the only one a writer does not log.
			require.Equal(t, "reserve", vs[v-1].Kind, "version %d has no writer that committed it", v)
			require.Equal(t, vs[v-2].LiveRows, vs[v-1].LiveRows)
			want[v] = d
			reserves++
			continue
		}
		switch o.kind {
		case "append":
			for i := range o.n {
				id := o.first + uint64(i)
				_, dup := model[id]
				require.False(t, dup, "version %d reuses row id %d", v, id)
			}
		case "delete", "update":
			for _, id := range o.ids {
				k, ok := model[id]
				require.True(t, ok, "version %d %s of row id %d, which is not live", v, o.kind, id)
				d.remove(id, k)
			}
		}
		o.apply(model)
		switch o.kind {
		case "append":
			for i := range o.n {
				d.add(o.first+uint64(i), o.k0+int64(i))
			}
		case "update":
			for i, id := range o.ids {
				d.add(id, o.ks[i])
			}
		}
		want[v] = d
	}
	for v, got := range seen {
		require.Equal(t, want[v], got, "a reader's snapshot of version %d differs from the model", v)
	}
	final, err := table.Open(ctx, st, table.Options{})
	require.NoError(t, err)
	require.Equal(t, model, scanKeys(t, final, mem))

	// With the writers gone, Cleanup without the guard removes what the
	// refused commits left and nothing a version needs.
	rep, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1})
	require.NoError(t, err)
	checkNoOrphans(t, st, mem)
	final, err = table.Open(ctx, st, table.Options{})
	require.NoError(t, err)
	require.Equal(t, model, scanKeys(t, final, mem))
	kinds := map[string]int{}
	for _, o := range byVersion {
		if o != nil {
			kinds[o.kind]++
		}
	}
	t.Logf("multiproc: %d writer processes for %v: %d commits %v + %d reserves, conflicts refused (all ErrConflict) %v, %d rows live; "+
		"%d reader snapshots (%d distinct versions) and %d takes consistent; %d concurrent Cleanups deleted nothing; "+
		"after the writers Cleanup removed %d orphaned files (%d bytes)",
		procs, dur, latest-1-uint64(reserves), kinds, reserves, conflicts, len(model), snapshots.Load(), len(seen), takes.Load(),
		cleanups.Load(), rep.FilesDeleted, rep.BytesDeleted)
}

// readOnce checks one snapshot of the newest version: the scan's rows
// agree with LiveRows and carry unique row ids, and a take of some of them
// by located address returns the same rows.
func readOnce(ctx context.Context, st store.Store, r *rand.Rand, mem memory.Allocator, mu *sync.Mutex, seen map[uint64]digest, takes *atomic.Int64) error {
	tb, err := table.Open(ctx, st, table.Options{})
	if err != nil {
		return err
	}
	rows, err := readKeys(ctx, tb, mem)
	if err != nil {
		return err
	}
	var d digest
	ids := make([]uint64, 0, len(rows))
	for id, k := range rows {
		d.add(id, k)
		ids = append(ids, id)
	}
	mu.Lock()
	prev, ok := seen[tb.Version()]
	seen[tb.Version()] = d
	mu.Unlock()
	if ok && prev != d {
		return fmt.Errorf("two reads of version %d differ", tb.Version())
	}
	if len(ids) == 0 {
		return nil
	}
	want := make([]uint64, 1+r.IntN(32))
	for i := range want {
		want[i] = ids[r.IntN(len(ids))]
	}
	addrs, found := tb.Locate(want)
	for i, ok := range found {
		if !ok {
			return fmt.Errorf("version %d: Locate misses live row id %d", tb.Version(), want[i])
		}
	}
	b, err := tb.Take(ctx, addrs, nil, []string{"_rowid", "k"}, mem)
	if err != nil {
		return err
	}
	defer b.Release()
	got, err := exectest.Rows(b)
	if err != nil {
		return err
	}
	for i, row := range got {
		if row[0] != want[i] || row[1] != rows[want[i]] {
			return fmt.Errorf("version %d: take of row id %d gave %v, scan had k %d", tb.Version(), want[i], row, rows[want[i]])
		}
	}
	takes.Add(1)
	return nil
}
