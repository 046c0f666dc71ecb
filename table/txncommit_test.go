package table_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// txnFixture is a database of two tables, a and b, in memory stores (the
// memory store's put-if-absent is the contract S3's conditional put and
// local disk's link give), with the transaction store every table is
// opened with.
type txnFixture struct {
	txns store.Store
	st   map[string]store.Store
	opts table.Options
	mem  memory.Allocator
}

// Keys of the fixture: a holds 0..19 and b 100..119 at first; the
// transaction under test (stageBoth) deletes key 0 from a and appends
// 1000..1009 to a and 2000..2009 to b.
func newTxnFixture(t *testing.T, grace time.Duration) *txnFixture {
	t.Helper()
	f := &txnFixture{txns: store.NewMemory(), st: map[string]store.Store{"a": store.NewMemory(), "b": store.NewMemory()}, mem: exectest.Mem(t)}
	f.opts = table.Options{Txns: f.txns, ClaimGrace: grace, MaxRowsPerFragment: 8, BatchRows: 4}
	for name, first := range map[string]int64{"a": 0, "b": 100} {
		tb, err := table.Create(context.Background(), f.st[name], userSchema, f.opts)
		require.NoError(t, err)
		f.appendKeys(t, tb, span(first, 20)...)
	}
	return f
}

func span(first int64, n int) []int64 {
	ks := make([]int64, n)
	for i := range ks {
		ks[i] = first + int64(i)
	}
	return ks
}

func (f *txnFixture) open(t *testing.T, name string) *table.Table {
	t.Helper()
	tb, err := table.Open(context.Background(), f.st[name], f.opts)
	require.NoError(t, err)
	return tb
}

func (f *txnFixture) appendKeys(t *testing.T, tb *table.Table, ks ...int64) *table.Table {
	t.Helper()
	b := keyBatch(t, f.mem, ks, nil)
	defer b.Release()
	nt, err := tb.AppendBatches(context.Background(), []arrow.RecordBatch{b}, f.mem)
	require.NoError(t, err)
	return nt
}

// keys is the set of k values of a snapshot.
func (f *txnFixture) keys(tb *table.Table) (map[int64]bool, error) {
	got, err := readKeys(context.Background(), tb, f.mem)
	if err != nil {
		return nil, err
	}
	ks := map[int64]bool{}
	for _, k := range got {
		ks[k] = true
	}
	return ks, nil
}

// stageBoth stages the transaction under test and returns its parts.
func (f *txnFixture) stageBoth(t *testing.T) []table.TxnPart {
	t.Helper()
	ctx := context.Background()
	sa, sb := f.open(t, "a").Stage(ctx), f.open(t, "b").Stage(ctx)
	f.appendKeys(t, sa.Table(), span(1000, 10)...)
	got, err := readKeys(ctx, sa.Table(), f.mem)
	require.NoError(t, err)
	for id, k := range got {
		if k == 0 {
			_, n, err := sa.Table().DeleteRowIDs(ctx, []uint64{id})
			require.NoError(t, err)
			require.EqualValues(t, 1, n)
		}
	}
	f.appendKeys(t, sb.Table(), span(2000, 10)...)
	return []table.TxnPart{{Name: "b", Staged: sb}, {Name: "a", Staged: sa}}
}

// whole checks that snapshots of a and b hold the transaction under test
// entirely or not at all, and reports which.
func (f *txnFixture) whole(a, b *table.Table) (bool, error) {
	ka, err := f.keys(a)
	if err != nil {
		return false, err
	}
	kb, err := f.keys(b)
	if err != nil {
		return false, err
	}
	in := ka[1000]
	for i := int64(0); i < 10; i++ {
		if ka[1000+i] != in || kb[2000+i] != in {
			return false, fmt.Errorf("half a transaction: a v%d has 1000: %v, 1000+%d: %v; b v%d has 2000+%d: %v", a.Version(), in, i, ka[1000+i], b.Version(), i, kb[2000+i])
		}
	}
	if ka[0] == in {
		return false, fmt.Errorf("a v%d: key 0 deleted: %v, rows appended: %v", a.Version(), !ka[0], in)
	}
	return in, nil
}

// openBoth opens a and b as one snapshot (OpenTables).
func (f *txnFixture) openBoth() (a, b *table.Table, err error) {
	tbs, errs := table.OpenTables(context.Background(), f.st, f.opts, nil)
	for _, e := range errs {
		return nil, nil, e
	}
	return tbs["a"], tbs["b"], nil
}

// Two tables written in one transaction become visible at once: before
// each claim and before the commit point, both tables (opened one by one
// or together) show nothing of it; readers looping through the commit
// never see one table's part without the other's; after it both show
// all of it, and the record lists the claimed versions.
func TestCommitTxnTwoTablesAtOnce(t *testing.T) {
	ctx := context.Background()
	f := newTxnFixture(t, time.Hour)
	parts := f.stageBoth(t)
	va, vb := f.open(t, "a").Version(), f.open(t, "b").Version()

	var steps []string
	defer table.SetClaimHookForTest(func(ctx context.Context, name string) error {
		steps = append(steps, name)
		for _, one := range []bool{true, false} {
			a, b := f.open(t, "a"), f.open(t, "b")
			if !one {
				var err error
				if a, b, err = f.openBoth(); err != nil {
					return err
				}
			}
			in, err := f.whole(a, b)
			if err != nil {
				return err
			}
			if in || a.Version() != va || b.Version() != vb {
				return fmt.Errorf("before the commit point: visible %v, versions %d %d", in, a.Version(), b.Version())
			}
		}
		return nil
	})()

	stop := make(chan struct{})
	var seen [2]atomic.Int64
	var wg sync.WaitGroup
	readerErr := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			a, b, err := f.openBoth()
			if err == nil {
				var in bool
				if in, err = f.whole(a, b); err == nil {
					if in {
						seen[1].Add(1)
					} else {
						seen[0].Add(1)
					}
					continue
				}
			}
			readerErr <- err
			return
		}
	}()
	got, err := table.CommitTxn(ctx, parts)
	close(stop)
	wg.Wait()
	require.NoError(t, err)
	select {
	case err := <-readerErr:
		t.Fatal(err)
	default:
	}
	require.Equal(t, []string{"a", "b", ""}, steps, "claims in name order, then the commit point")
	require.Len(t, got, 2)
	require.Equal(t, "b", parts[0].Name)
	require.Equal(t, vb+1, got[0].Version(), "results in the order given")
	require.Equal(t, va+1, got[1].Version())

	a, b := f.open(t, "a"), f.open(t, "b")
	in, err := f.whole(a, b)
	require.NoError(t, err)
	require.True(t, in)
	require.Equal(t, va+1, a.Version())
	require.Equal(t, vb+1, b.Version())
	claim := a.Manifest().Txn.Claim
	require.NotNil(t, claim)
	state, rec, err := table.ReadTxn(ctx, f.txns, claim.TxnID)
	require.NoError(t, err)
	require.Equal(t, table.TxnCommitted, state)
	require.Equal(t, []table.TxnTable{{Name: "a", Version: va + 1}, {Name: "b", Version: vb + 1}}, rec.Tables)
	t.Logf("reader saw the transaction absent %d times, whole %d times", seen[0].Load(), seen[1].Load())

	// A committed claim is a version like any other: the next writer
	// builds on it.
	a = f.appendKeys(t, a, 5000)
	require.Equal(t, va+2, a.Version())
	ka, err := f.keys(a)
	require.NoError(t, err)
	require.True(t, ka[1000] && ka[5000] && !ka[0])
}

// ROLLBACK publishes neither table, and Cleanup reclaims the files the
// transaction stored once its intents are gone.
func TestCommitTxnRollbackPublishesNothing(t *testing.T) {
	ctx := context.Background()
	f := newTxnFixture(t, time.Hour)
	va, vb := f.open(t, "a").Version(), f.open(t, "b").Version()
	parts := f.stageBoth(t)
	for _, p := range parts {
		p.Staged.Rollback()
	}
	_, err := table.CommitTxn(ctx, parts)
	require.ErrorIs(t, err, table.ErrStaged, "a rolled-back transaction cannot commit")
	a, b := f.open(t, "a"), f.open(t, "b")
	require.Equal(t, va, a.Version())
	require.Equal(t, vb, b.Version())
	in, err := f.whole(a, b)
	require.NoError(t, err)
	require.False(t, in)
	for _, name := range []string{"a", "b"} {
		rep, err := table.Cleanup(ctx, f.st[name], table.CleanupOptions{MinAge: -1, Txns: f.txns})
		require.NoError(t, err)
		require.NotZero(t, rep.FilesDeleted, "table %s: the rolled-back files are orphans", name)
	}
}

// A concurrent commit that changes a row the transaction changes, in the
// second table it claims: COMMIT fails with ErrConflict and neither table
// shows anything of it, although the first table's claim was written. The
// claim was decided aborted on the way out, so the next writer of that
// table goes on at once (the grace is an hour) and writes past it, and
// Cleanup reclaims the aborted claim's files.
func TestCommitTxnConflictOnSecondTable(t *testing.T) {
	ctx := context.Background()
	f := newTxnFixture(t, time.Hour)
	va, vb := f.open(t, "a").Version(), f.open(t, "b").Version()
	parts := f.stageBoth(t)
	// The transaction also deletes key 100 of b, and so does another
	// writer, first.
	sb := parts[0].Staged
	gotB, err := readKeys(ctx, sb.Table(), f.mem)
	require.NoError(t, err)
	var id100 uint64
	for id, k := range gotB {
		if k == 100 {
			id100 = id
		}
	}
	_, _, err = sb.Table().DeleteRowIDs(ctx, []uint64{id100})
	require.NoError(t, err)
	_, _, err = f.open(t, "b").DeleteRowIDs(ctx, []uint64{id100})
	require.NoError(t, err)

	_, err = table.CommitTxn(ctx, parts)
	require.ErrorIs(t, err, table.ErrConflict)
	a, b := f.open(t, "a"), f.open(t, "b")
	require.Equal(t, va, a.Version(), "a reads under its aborted claim")
	require.Equal(t, vb+1, b.Version(), "b holds the other writer's delete only")
	in, err := f.whole(a, b)
	require.NoError(t, err)
	require.False(t, in)
	top, err := table.LatestVersion(ctx, f.st["a"])
	require.NoError(t, err)
	require.Equal(t, va+1, top, "the claim is there")
	_, err = table.OpenVersion(ctx, f.st["a"], top, f.opts)
	require.ErrorIs(t, err, table.ErrNotFound, "an aborted claim is no version")

	start := time.Now()
	a = f.appendKeys(t, a, 5000)
	require.Less(t, time.Since(start), 10*time.Second, "no wait on a decided claim")
	require.Equal(t, va+2, a.Version(), "written past the aborted claim")
	ka, err := f.keys(a)
	require.NoError(t, err)
	require.True(t, ka[5000] && ka[0] && !ka[1000])

	rep, err := table.Cleanup(ctx, f.st["a"], table.CleanupOptions{MinAge: -1, Txns: f.txns})
	require.NoError(t, err)
	require.NotZero(t, rep.FilesDeleted, "the aborted claim's files are orphans")
	a = f.open(t, "a")
	ka, err = f.keys(a)
	require.NoError(t, err, "nothing a version needs was removed")
	require.True(t, ka[5000] && ka[0])
}

// crashStore fails every operation from the moment the shared counter
// of mutating operations (puts and deletes, over all the stores that
// share it) reaches its limit: the process died there. With after, the
// operation that reaches the limit lands and then reports the crash (the
// put was made, its answer lost).
type crashStore struct {
	store.Store
	c *crashCounter
}

type crashCounter struct {
	mu      sync.Mutex
	n, at   int
	after   bool
	crashed bool
}

var errCrash = errors.New("injected crash")

func (c *crashCounter) mutate(op func() error) error {
	c.mu.Lock()
	if c.crashed {
		c.mu.Unlock()
		return errCrash
	}
	c.n++
	if c.n < c.at {
		c.mu.Unlock()
		return op()
	}
	c.crashed = true
	c.mu.Unlock()
	if c.after {
		_ = op()
	}
	return errCrash
}

func (c *crashCounter) read() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.crashed {
		return errCrash
	}
	return nil
}

func (s crashStore) Put(ctx context.Context, p string, b []byte) error {
	return s.c.mutate(func() error { return s.Store.Put(ctx, p, b) })
}

func (s crashStore) PutIfAbsent(ctx context.Context, p string, b []byte) error {
	return s.c.mutate(func() error { return s.Store.PutIfAbsent(ctx, p, b) })
}

func (s crashStore) Delete(ctx context.Context, p string) error {
	return s.c.mutate(func() error { return s.Store.Delete(ctx, p) })
}

func (s crashStore) Get(ctx context.Context, p string) ([]byte, error) {
	if err := s.c.read(); err != nil {
		return nil, err
	}
	return s.Store.Get(ctx, p)
}

func (s crashStore) List(ctx context.Context, prefix string) ([]string, error) {
	if err := s.c.read(); err != nil {
		return nil, err
	}
	return s.Store.List(ctx, prefix)
}

func (s crashStore) Size(ctx context.Context, p string) (int64, error) {
	if err := s.c.read(); err != nil {
		return 0, err
	}
	return s.Store.Size(ctx, p)
}

// A crash at every step of the commit: at each mutating store operation
// of CommitTxn in turn (intent renewals, each claim, the commit point,
// the abort, the intents' removal), before it lands and after it landed
// with its answer lost. After each, readers of the stores as they are —
// each table alone and both together — see the transaction entirely or
// not at all, and the next writer of each table proceeds (a claim left
// pending is aborted after the grace) and keeps whatever was visible.
// The last rounds, with the crash past the commit's last operation,
// commit, so every step was crossed.
func TestCommitTxnCrashAtEveryStep(t *testing.T) {
	ctx := context.Background()
	for _, after := range []bool{false, true} {
		committed := false
		for at := 1; !committed; at++ {
			require.Less(t, at, 40, "the commit never completed")
			name := fmt.Sprintf("crash at operation %d (after=%v)", at, after)
			f := newTxnFixture(t, 20*time.Millisecond)
			c := &crashCounter{at: 1 << 30, after: after}
			under := f.st
			crashing := map[string]store.Store{}
			for n, st := range f.st {
				crashing[n] = crashStore{st, c}
			}
			f.st = crashing
			f.opts.Txns = crashStore{f.txns, c}
			parts := f.stageBoth(t)
			c.mu.Lock()
			c.at = c.n + at
			c.mu.Unlock()
			_, commitErr := table.CommitTxn(ctx, parts)
			c.mu.Lock()
			crashed := c.crashed
			c.mu.Unlock()
			if !crashed {
				require.NoError(t, commitErr, name)
				committed = true
			}

			// The process is gone; another opens the stores as they are.
			f.st, f.opts.Txns = under, f.txns
			a, b := f.open(t, "a"), f.open(t, "b")
			in, err := f.whole(a, b)
			require.NoError(t, err, name)
			a2, b2, err := f.openBoth()
			require.NoError(t, err, name)
			in2, err := f.whole(a2, b2)
			require.NoError(t, err, name)
			require.Equal(t, in, in2, name)
			if commitErr == nil {
				// A crash after the commit point (removing the intents)
				// does not fail the commit.
				require.True(t, in, name)
			}
			for i, tname := range []string{"a", "b"} {
				nt := f.appendKeys(t, f.open(t, tname), 7000+int64(i))
				ks, err := f.keys(nt)
				require.NoError(t, err, name)
				require.True(t, ks[7000+int64(i)], name)
				require.Equal(t, in, ks[1000] || ks[2000], "%s: table %s keeps what was visible", name, tname)
			}
			a, b = f.open(t, "a"), f.open(t, "b")
			in3, err := f.whole(a, b)
			require.NoError(t, err, name)
			require.Equal(t, in, in3, name)
			t.Logf("%s: committed %v", name, in)
		}
	}
}

// A writer that meets another transaction's pending claim waits for its
// decision: when the transaction commits meanwhile, the writer builds on
// its claim (nothing of either is lost); when it never decides, the
// writer aborts it after the grace and writes past it.
func TestWriterWaitsOnPendingClaim(t *testing.T) {
	ctx := context.Background()
	f := newTxnFixture(t, 5*time.Second)
	parts := f.stageBoth(t)
	release := make(chan struct{})
	claimed := make(chan struct{})
	restore := table.SetClaimHookForTest(func(ctx context.Context, name string) error {
		if name == "" {
			close(claimed)
			<-release
		}
		return nil
	})
	done := make(chan error, 1)
	go func() {
		_, err := table.CommitTxn(ctx, parts)
		done <- err
	}()
	<-claimed
	appended := make(chan *table.Table, 1)
	go func() {
		b := keyBatch(t, f.mem, []int64{6000}, nil)
		defer b.Release()
		nt, err := f.open(t, "a").AppendBatches(ctx, []arrow.RecordBatch{b}, f.mem)
		if err != nil {
			t.Error(err)
		}
		appended <- nt
	}()
	select {
	case <-appended:
		t.Fatal("the writer did not wait on the pending claim")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-done)
	nt := <-appended
	restore()
	ks, err := f.keys(nt)
	require.NoError(t, err)
	require.True(t, ks[6000] && ks[1000] && !ks[0], "the writer built on the committed claim")

	// A transaction that dies between its claims and its commit point,
	// its abort on the way out lost as well: the claims stay pending.
	f = newTxnFixture(t, 50*time.Millisecond)
	f.opts.Txns = losingRecords{f.txns}
	parts = f.stageBoth(t)
	defer table.SetClaimHookForTest(func(ctx context.Context, name string) error {
		if name == "" {
			return errCrash
		}
		return nil
	})()
	_, err = table.CommitTxn(ctx, parts)
	require.ErrorIs(t, err, errCrash)
	f.opts.Txns = f.txns
	a := f.open(t, "a")
	top, err := table.LatestVersion(ctx, f.st["a"])
	require.NoError(t, err)
	require.Equal(t, a.Version()+1, top, "a pending claim on top, read under")
	id := func() string {
		b, err := f.st["a"].Get(ctx, fmt.Sprintf("_versions/%020d.manifest", top))
		require.NoError(t, err)
		m, err := table.UnmarshalManifest(b)
		require.NoError(t, err)
		return m.Txn.Claim.TxnID
	}()
	state, _, err := table.ReadTxn(ctx, f.txns, id)
	require.NoError(t, err)
	require.Equal(t, table.TxnPending, state)
	start := time.Now()
	a = f.appendKeys(t, a, 6001)
	require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond, "the writer waited the grace")
	require.Equal(t, top+1, a.Version(), "and wrote past the claim")
	state, rec, err := table.ReadTxn(ctx, f.txns, id)
	require.NoError(t, err)
	require.Equal(t, table.TxnAborted, state, "the writer aborted it: %+v", rec)
	in, err := f.whole(f.open(t, "a"), f.open(t, "b"))
	require.NoError(t, err)
	require.False(t, in)
	_, err = table.CommitTxn(ctx, parts)
	require.ErrorIs(t, err, table.ErrStaged, "a failed commit ended the transaction")
}

// losingRecords fails every put of a transaction record.
type losingRecords struct{ store.Store }

func (s losingRecords) PutIfAbsent(ctx context.Context, p string, b []byte) error {
	if strings.HasPrefix(p, ".txn/") {
		return errors.New("lost")
	}
	return s.Store.PutIfAbsent(ctx, p, b)
}
