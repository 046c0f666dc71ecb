package table_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// gatedReader yields batches; before batch pause it signals paused and
// waits for resume (or its context), so a test can act while the writer
// has stored some of its files and not committed.
type gatedReader struct {
	batches []arrow.RecordBatch
	i       int
	pause   int
	paused  chan struct{}
	resume  chan struct{}
	ctx     context.Context
	err     error
}

func (r *gatedReader) Retain()                        {}
func (r *gatedReader) Release()                       {}
func (r *gatedReader) Schema() *arrow.Schema          { return userSchema }
func (r *gatedReader) RecordBatch() arrow.RecordBatch { return r.batches[r.i] }
func (r *gatedReader) Record() arrow.RecordBatch      { return r.batches[r.i] }
func (r *gatedReader) Err() error                     { return r.err }
func (r *gatedReader) Next() bool {
	r.i++
	if r.i == r.pause {
		close(r.paused)
		select {
		case <-r.resume:
		case <-r.ctx.Done():
			r.err = r.ctx.Err()
			return false
		}
	}
	return r.i < len(r.batches)
}

func newGated(ctx context.Context, t *testing.T, mem memory.Allocator, n, per, pause int) (*gatedReader, int) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, uint64(n)))
	g := &gatedReader{i: -1, pause: pause, paused: make(chan struct{}), resume: make(chan struct{}), ctx: ctx}
	for range n {
		g.batches = append(g.batches, rowsBatch(t, mem, genRows(r, per), nil))
	}
	t.Cleanup(func() {
		for _, b := range g.batches {
			b.Release()
		}
	})
	return g, n * per
}

// intentEnv is one intent test's fresh table and what it runs with.
type intentEnv struct {
	ctx context.Context
	mem memory.Allocator
	st  store.Store
	tb  *table.Table
}

// newIntentEnv creates an empty table in st: fragments of 50 rows stored
// in batches of 8, so that an append of a few hundred rows stores several
// files before it commits.
func newIntentEnv(t *testing.T, st store.Store) intentEnv {
	t.Helper()
	ctx := context.Background()
	tb, err := table.Create(ctx, st, userSchema, table.Options{MaxRowsPerFragment: 50, BatchRows: 8})
	require.NoError(t, err)
	return intentEnv{ctx: ctx, mem: exectest.Mem(t), st: st, tb: tb}
}

// forIntentStores runs test as a subtest on each kind of store (memory,
// local directory), each with a fresh table.
func forIntentStores(t *testing.T, test func(t *testing.T, e intentEnv)) {
	for kind, newStore := range intentStores(t) {
		t.Run(kind, func(t *testing.T) { test(t, newIntentEnv(t, newStore())) })
	}
}

// intentStores makes each kind of store: memory, a local directory.
func intentStores(t *testing.T) map[string]func() store.Store {
	return map[string]func() store.Store{
		"memory": func() store.Store { return store.NewMemory() },
		"local": func() store.Store {
			l, err := store.NewLocal(t.TempDir())
			require.NoError(t, err)
			return l
		},
	}
}

// startAppend appends g's rows to tb on another goroutine; wait returns
// the append's outcome once it has ended.
func startAppend(ctx context.Context, tb *table.Table, g *gatedReader, mem memory.Allocator) (wait func() (*table.Table, error)) {
	var nt *table.Table
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		nt, err = tb.Append(ctx, g, mem)
	}()
	return func() (*table.Table, error) {
		<-done
		return nt, err
	}
}

// requireNothingPublished checks that the table in st is still at its
// first version (the empty table Create published).
func requireNothingPublished(t *testing.T, ctx context.Context, st store.Store) {
	t.Helper()
	v, err := table.LatestVersion(ctx, st)
	require.NoError(t, err)
	require.Equal(t, uint64(1), v, "nothing was published")
}

// TestVacuumKeepsRunningWritersFiles is issue 26's data loss: VACUUM with
// no grace period ran while an append had stored data files and not yet
// committed. It removed them, the append still reported success, and
// every read failed. Now the writer's intent names the files, VACUUM
// keeps them, and every row reads back.
func TestVacuumKeepsRunningWritersFiles(t *testing.T) {
	forIntentStores(t, func(t *testing.T, e intentEnv) {
		ctx, mem, st := e.ctx, e.mem, e.st
		g, rows := newGated(ctx, t, mem, 6, 50, 2)
		wait := startAppend(ctx, e.tb, g, mem)
		<-g.paused
		ps, err := st.List(ctx, "data/")
		require.NoError(t, err)
		require.Len(t, ps, 2, "the writer stored its first files")
		intents, err := st.List(ctx, "_intents/")
		require.NoError(t, err)
		require.Len(t, intents, 1, "the writer's intent is visible")

		rep, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1})
		require.NoError(t, err)
		require.Zero(t, rep.FilesDeleted+rep.TempFilesDeleted, "VACUUM removed a running writer's files")
		require.Equal(t, 2, rep.FilesInFlight)
		require.Equal(t, 1, rep.IntentsLive)
		close(g.resume)
		nt, err := wait()
		require.NoError(t, err)
		require.Len(t, scanAll(t, nt, mem), rows, "every row the append reported reads back")
		reopened, err := table.Open(ctx, st, table.Options{})
		require.NoError(t, err)
		require.Len(t, scanAll(t, reopened, mem), rows)
		intents, err = st.List(ctx, "_intents/")
		require.NoError(t, err)
		require.Empty(t, intents, "the intent is removed after the commit")
		rep, err = table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1})
		require.NoError(t, err)
		require.Zero(t, rep.FilesDeleted)
		require.Equal(t, 6, rep.FilesReferenced)
	})
}

// TestCommitRefusesMissingFile: a file of the write disappears before the
// commit (a VACUUM that found the writer's intent expired, or a lost
// object): the commit fails with ErrMissingFile naming the file, and no
// version is published.
func TestCommitRefusesMissingFile(t *testing.T) {
	forIntentStores(t, func(t *testing.T, e intentEnv) {
		ctx, st := e.ctx, e.st
		g, _ := newGated(ctx, t, e.mem, 4, 50, 1)
		wait := startAppend(ctx, e.tb, g, e.mem)
		<-g.paused
		ps, err := st.List(ctx, "data/")
		require.NoError(t, err)
		require.Len(t, ps, 1)
		require.NoError(t, st.Delete(ctx, ps[0]))
		close(g.resume)
		_, appendErr := wait()
		require.ErrorIs(t, appendErr, table.ErrMissingFile)
		require.ErrorContains(t, appendErr, ps[0])
		requireNothingPublished(t, ctx, st)
	})
}

// TestMissingCommittedFileIsCorrupt: a committed data file that goes
// missing reads as ErrCorrupt naming the file, not as "not found".
func TestMissingCommittedFileIsCorrupt(t *testing.T) {
	forIntentStores(t, func(t *testing.T, e intentEnv) {
		ctx, mem, st := e.ctx, e.mem, e.st
		b := rowsBatch(t, mem, genRows(rand.New(rand.NewPCG(2, 2)), 120), nil)
		tb, err := e.tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
		b.Release()
		require.NoError(t, err)
		gone := tb.Fragments()[1].DataFile
		require.NoError(t, st.Delete(ctx, gone))
		reopened, err := table.Open(ctx, st, table.Options{})
		require.NoError(t, err)
		sc, err := reopened.Scan(ctx, table.ScanOptions{Columns: []string{"k"}, Mem: mem})
		if err == nil {
			for sc.Next() {
			}
			err = sc.Err()
			sc.Release()
		}
		require.ErrorIs(t, err, table.ErrCorrupt)
		require.ErrorIs(t, err, errkind.Corrupt)
		require.Equal(t, errkind.Corrupt, errkind.Of(err))
		require.ErrorContains(t, err, gone)
	})
}

// failingIntentStore refuses puts of intent records once armed.
type failingIntentStore struct {
	store.Store
	mu    sync.Mutex
	armed bool
}

var errPutRefused = errors.New("injected: put refused")

func (s *failingIntentStore) Put(ctx context.Context, p string, b []byte) error {
	s.mu.Lock()
	armed := s.armed
	s.mu.Unlock()
	if armed && strings.HasPrefix(p, "_intents/") {
		return errPutRefused
	}
	return s.Store.Put(ctx, p, b)
}

// TestIntentRenewalFailureStopsWriter: when the intent cannot be renewed
// the writer stops with ErrIntentLost (naming the cause) instead of going
// on to commit files VACUUM may remove; nothing is published.
func TestIntentRenewalFailureStopsWriter(t *testing.T) {
	defer table.SetIntentTTLForTest(2 * time.Second)() // renewals every 0.5 s
	st := &failingIntentStore{Store: store.NewMemory()}
	e := newIntentEnv(t, st)
	ctx, mem := e.ctx, e.mem
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, _ := newGated(wctx, t, mem, 4, 50, 2)
	// The gate's context is the test's; the writer's own cancellation by
	// the lost intent shows in its error. Resume once the intent is lost.
	wait := startAppend(ctx, e.tb, g, mem)
	<-g.paused
	st.mu.Lock()
	st.armed = true
	st.mu.Unlock()
	time.Sleep(3 * time.Second) // past the expiry: the renewals failed
	close(g.resume)
	_, appendErr := wait()
	require.ErrorIs(t, appendErr, table.ErrIntentLost)
	require.ErrorIs(t, appendErr, errkind.Conflict)
	require.ErrorContains(t, appendErr, errPutRefused.Error())
	requireNothingPublished(t, ctx, st)
}

// TestCleanupIntents: VACUUM keeps what a live intent names (files and
// prefixes), also when the holder is this host's running process and the
// record's expiry has passed (a starved writer on this host is alive);
// removes the files of another host's expired intents and of intents
// whose holder process on this host is gone, and the expired records
// themselves; a corrupt intent record stops it before it deletes anything.
// Revocation markers whose writer can no longer read them go too.
func TestCleanupIntents(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	l, err := store.NewLocal(t.TempDir())
	require.NoError(t, err)
	fx := newCleanupFixture(t, l, mem)
	put := func(p string) {
		require.NoError(t, l.Put(ctx, p, []byte("bytes of "+p)))
	}
	live := []string{"data/0000000000000000000000000000000a.arrow", "_rowmaps/0000000000000000000000000000000b.rowmap"}
	livePrefix := "_indices/0000000000000000000000000000000c/"
	expired := "data/0000000000000000000000000000000d.arrow"
	deadHolder := "data/0000000000000000000000000000000e.arrow"
	starved := "data/0000000000000000000000000000000f.arrow"
	for _, p := range append(live, livePrefix+"pages", expired, deadHolder, starved) {
		put(p)
	}
	lp, lb := table.IntentForTest(live, []string{livePrefix}, time.Now().Add(time.Hour), 0)
	ep, eb := table.IntentElsewhereForTest([]string{expired}, nil, time.Now().Add(-time.Hour))
	// This process, its record expired an hour ago: alive, so live.
	sp, sb := table.IntentForTest([]string{starved}, nil, time.Now().Add(-time.Hour), 0)
	// A process that has exited: its intent is dead although not expired.
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	dp, db := table.IntentForTest([]string{deadHolder}, nil, time.Now().Add(time.Hour), uint64(cmd.Process.Pid))
	for p, b := range map[string][]byte{lp: lb, ep: eb, sp: sb, dp: db} {
		require.NoError(t, l.Put(ctx, p, b))
	}
	// Revocation markers left without their records: one of a dead holder
	// on this host and one of another host expired two days ago go; one of
	// another host expired an hour ago stays for its writer to see.
	mDead, mDeadB := table.IntentForTest(nil, nil, time.Now().Add(time.Hour), uint64(cmd.Process.Pid))
	mOld, mOldB := table.IntentElsewhereForTest(nil, nil, time.Now().Add(-48*time.Hour))
	mYoung, mYoungB := table.IntentElsewhereForTest(nil, nil, time.Now().Add(-time.Hour))
	for p, b := range map[string][]byte{mDead: mDeadB, mOld: mOldB, mYoung: mYoungB} {
		require.NoError(t, l.Put(ctx, table.RevokedPathForTest(p), b))
	}
	// A flipped byte in any record: nothing is deleted.
	bad := append([]byte(nil), lb...)
	bad[len(bad)/2] ^= 0x10
	badPath, _ := table.IntentForTest(nil, nil, time.Now(), 0)
	require.NoError(t, l.Put(ctx, badPath, bad))
	_, err = table.Cleanup(ctx, l, table.CleanupOptions{MinAge: -1})
	require.ErrorIs(t, err, table.ErrCorrupt)
	require.ErrorContains(t, err, badPath)
	require.NoError(t, l.Delete(ctx, badPath))

	rep, err := table.Cleanup(ctx, l, table.CleanupOptions{MinAge: -1})
	require.NoError(t, err)
	require.Equal(t, 4, rep.FilesInFlight)
	require.Equal(t, 2, rep.IntentsLive)
	require.Equal(t, 2, rep.IntentsExpired)
	for _, p := range append(live, livePrefix+"pages", lp, starved, sp, table.RevokedPathForTest(mYoung)) {
		_, err := l.Size(ctx, p)
		require.NoError(t, err, "%s was removed", p)
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		for _, p := range []string{expired, deadHolder, ep, dp, table.RevokedPathForTest(mDead), table.RevokedPathForTest(mOld)} {
			_, err := l.Size(ctx, p)
			require.ErrorIs(t, err, store.ErrNotFound, "%s is still there", p)
		}
	}
	// The expired record was revoked before its file went: the marker
	// stays for its writer to find.
	_, err = l.Size(ctx, table.RevokedPathForTest(ep))
	require.NoError(t, err)
	checkVersions(t, l, fx.history, mem)
}

// slowIntentStore makes every put of an intent record, once armed, land
// late: it waits longer than the intent TTL before storing the record, as
// the puts of a writer starved of CPU or queued behind its own data-file
// fsyncs did during the SF 10 load (issue 30). landed receives after each
// such put.
type slowIntentStore struct {
	store.Store
	delay  time.Duration
	gate   chan struct{} // when set, puts wait for it to close instead of delay
	mu     sync.Mutex
	armed  bool
	landed chan struct{}
}

func (s *slowIntentStore) Put(ctx context.Context, p string, b []byte) error {
	s.mu.Lock()
	armed := s.armed
	s.mu.Unlock()
	if !armed || !strings.HasSuffix(p, ".intent") {
		return s.Store.Put(ctx, p, b)
	}
	if s.gate != nil {
		<-s.gate
	} else {
		time.Sleep(s.delay)
	}
	err := s.Store.Put(ctx, p, b)
	select {
	case s.landed <- struct{}{}:
	default:
	}
	return err
}

// TestLateRenewalKeepsWrite is issue 30's lost SF 10 load: every renewal
// of the writer's intent landed after the record's expiry (the writer was
// alive, only slow), no VACUUM ran, and yet the writer declared its own
// intent lost and failed after 37 minutes. A late renewal loses nothing
// unless a VACUUM actually revoked the intent meanwhile, so the append
// commits and every row reads back.
func TestLateRenewalKeepsWrite(t *testing.T) {
	const ttl = 100 * time.Millisecond
	defer table.SetIntentTTLForTest(ttl)()
	for kind, newStore := range intentStores(t) {
		t.Run(kind, func(t *testing.T) {
			st := &slowIntentStore{Store: newStore(), delay: 3 * ttl, landed: make(chan struct{}, 1)}
			e := newIntentEnv(t, st)
			ctx, mem := e.ctx, e.mem
			g, rows := newGated(ctx, t, mem, 6, 50, 2)
			wait := startAppend(ctx, e.tb, g, mem)
			<-g.paused
			st.mu.Lock()
			st.armed = true
			st.mu.Unlock()
			<-st.landed // a renewal landed 3 TTLs after it began: past the old expiry
			close(g.resume)
			nt, err := wait()
			require.NoError(t, err, "a slow writer that nobody revoked lost its write")
			require.Len(t, scanAll(t, nt, mem), rows)
			reopened, err := table.Open(ctx, st, table.Options{})
			require.NoError(t, err)
			require.Len(t, scanAll(t, reopened, mem), rows)
			intents, err := st.List(ctx, "_intents/")
			require.NoError(t, err)
			require.Empty(t, intents)
		})
	}
}

// TestVacuumRevokesStalledWriter: a writer on another host (so VACUUM can
// judge it only by its expiry) stalls with its renewals stuck past the
// expiry; VACUUM revokes its intent and removes its files. When the
// renewal finally lands, the writer finds the revocation and fails with
// ErrIntentLost: nothing is published that cannot be read, and the
// record and its marker are gone after.
func TestVacuumRevokesStalledWriter(t *testing.T) {
	defer table.SetIntentTTLForTest(200 * time.Millisecond)()
	defer table.SetIntentClockSkewForTest(0)()
	defer table.SetIntentHolderForTest("elsewhere.invalid")()
	for kind, newStore := range intentStores(t) {
		t.Run(kind, func(t *testing.T) {
			gate := make(chan struct{})
			st := &slowIntentStore{Store: newStore(), gate: gate, landed: make(chan struct{}, 1)}
			e := newIntentEnv(t, st)
			ctx, mem := e.ctx, e.mem
			g, _ := newGated(ctx, t, mem, 6, 50, 2)
			wait := startAppend(ctx, e.tb, g, mem)
			<-g.paused
			st.mu.Lock()
			st.armed = true
			st.mu.Unlock()
			// Wait (on the condition, not a time) until VACUUM sees the
			// record expired; a dry run changes nothing.
			for {
				rep, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1, DryRun: true})
				require.NoError(t, err)
				if rep.IntentsExpired == 1 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			rep, err := table.Cleanup(ctx, st, table.CleanupOptions{MinAge: -1})
			require.NoError(t, err)
			require.Equal(t, 1, rep.IntentsExpired)
			require.Equal(t, 2, rep.FilesDeleted, "the revoked writer's files are orphans")
			close(gate)
			close(g.resume)
			_, appendErr := wait()
			require.ErrorIs(t, appendErr, table.ErrIntentLost)
			require.ErrorIs(t, appendErr, errkind.Conflict)
			require.ErrorContains(t, appendErr, "revoked")
			requireNothingPublished(t, ctx, st)
			intents, err := st.List(ctx, "_intents/")
			require.NoError(t, err)
			require.Empty(t, intents, "the writer removed its record and the marker it saw")
		})
	}
}
