package table_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// onFirstList runs f once, at the first listing of the table's versions.
type onFirstList struct {
	store.Store
	once *sync.Once
	f    func()
}

func (s onFirstList) List(ctx context.Context, prefix string) ([]string, error) {
	if strings.HasPrefix(prefix, "_versions") {
		s.once.Do(s.f)
	}
	return s.Store.List(ctx, prefix)
}

// OpenTables keeps a snapshot of several tables from holding half a
// transaction whose commit point falls between its reads of two tables:
// a is read while the transaction's claims are pending (so at the version
// under its claim), the transaction then commits, and b is read with its
// claim visible. a's pin must move forward to its claim; opening the two
// one after another does show half of it.
func TestOpenTablesHoldsTransactionsWhole(t *testing.T) {
	ctx := context.Background()
	f := newTxnFixture(t, time.Hour)
	parts := f.stageBoth(t)
	claimed, commit := make(chan struct{}), make(chan struct{})
	defer table.SetClaimHookForTest(func(ctx context.Context, name string) error {
		if name == "" {
			close(claimed)
			<-commit
		}
		return nil
	})()
	done := make(chan error, 1)
	go func() {
		_, err := table.CommitTxn(ctx, parts)
		done <- err
	}()
	<-claimed
	va := f.open(t, "a").Version()
	var commitErr error
	stores := map[string]store.Store{"a": f.st["a"], "b": onFirstList{f.st["b"], &sync.Once{}, func() {
		close(commit)
		commitErr = <-done
	}}}
	tbs, errs := table.OpenTables(ctx, stores, f.opts, nil)
	require.NoError(t, commitErr)
	require.Empty(t, errs)
	in, err := f.whole(tbs["a"], tbs["b"])
	require.NoError(t, err)
	require.True(t, in, "b was read after the commit point, so a shows it too")
	require.Equal(t, va+1, tbs["a"].Version())

	// The same interleaving with the tables opened one by one: half.
	f = newTxnFixture(t, time.Hour)
	parts = f.stageBoth(t)
	claimed, commit = make(chan struct{}), make(chan struct{})
	go func() {
		_, err := table.CommitTxn(ctx, parts)
		done <- err
	}()
	<-claimed
	a := f.open(t, "a")
	close(commit)
	require.NoError(t, <-done)
	_, err = f.whole(a, f.open(t, "b"))
	require.ErrorContains(t, err, "half a transaction", "opening one by one is not enough")
}

// A claim is written in manifest format 4 and only a claim: ordinary
// versions stay format 3, so a binary that predates claims refuses a
// claim rather than reading it as a version. A table opened without the
// transaction store refuses a claim it meets (ErrNoTxnStore), and a claim
// whose transaction's committed record does not list it is ErrCorrupt.
func TestClaimFormatAndResolution(t *testing.T) {
	ctx := context.Background()
	f := newTxnFixture(t, time.Hour)
	f.opts.Txns = losingRecords{f.txns}
	parts := f.stageBoth(t)
	defer table.SetClaimHookForTest(func(ctx context.Context, name string) error {
		if name == "" {
			return errCrash
		}
		return nil
	})()
	_, err := table.CommitTxn(ctx, parts)
	require.ErrorIs(t, err, errCrash)
	f.opts.Txns = f.txns

	top, err := table.LatestVersion(ctx, f.st["a"])
	require.NoError(t, err)
	format := func(v uint64) uint16 {
		b, err := f.st["a"].Get(ctx, fmt.Sprintf("_versions/%020d.manifest", v))
		require.NoError(t, err)
		return binary.LittleEndian.Uint16(b[4:])
	}
	require.EqualValues(t, 6, format(top), "a claim")
	require.EqualValues(t, 5, format(top-1), "an ordinary version")

	_, err = table.Open(ctx, f.st["a"], table.Options{})
	require.ErrorIs(t, err, table.ErrNoTxnStore)
	_, err = table.OpenVersion(ctx, f.st["a"], top-1, table.Options{})
	require.NoError(t, err, "versions under the claim read without the transaction store")
	_, err = table.OpenVersion(ctx, f.st["a"], top, f.opts)
	require.ErrorIs(t, err, table.ErrNotFound, "a pending claim is no version")

	b, err := f.st["a"].Get(ctx, fmt.Sprintf("_versions/%020d.manifest", top))
	require.NoError(t, err)
	m, err := table.UnmarshalManifest(b)
	require.NoError(t, err)
	require.Equal(t, "a", m.Txn.Claim.Table)
	require.Equal(t, top-1, m.Txn.Claim.Prev)
	_, err = table.DecideTxn(ctx, f.txns, &table.TxnRecord{ID: m.Txn.Claim.TxnID, State: table.TxnCommitted,
		Tables: []table.TxnTable{{Name: "a", Version: top + 5}}})
	require.NoError(t, err)
	_, err = table.Open(ctx, f.st["a"], f.opts)
	require.ErrorIs(t, err, table.ErrCorrupt)

	// Every damaged claim byte is caught by the manifest's checksum.
	for i := len(b) - 40; i < len(b); i++ {
		c := append([]byte(nil), b...)
		c[i] ^= 0x10
		_, err := table.UnmarshalManifest(c)
		require.ErrorIs(t, err, table.ErrCorrupt, "byte %d", i)
	}
}

// Cleanup under a pending claim: the claim's files are kept (its
// transaction may still commit) and the version under it is kept however
// few versions are asked for (a claim is no version); once the claim is
// decided committed, it reads whole.
func TestCleanupKeepsPendingClaim(t *testing.T) {
	ctx := context.Background()
	f := newTxnFixture(t, time.Hour)
	f.opts.Txns = losingRecords{f.txns}
	parts := f.stageBoth(t)
	defer table.SetClaimHookForTest(func(ctx context.Context, name string) error {
		if name == "" {
			return errCrash
		}
		return nil
	})()
	_, err := table.CommitTxn(ctx, parts)
	require.ErrorIs(t, err, errCrash)
	f.opts.Txns = f.txns

	_, err = table.Cleanup(ctx, f.st["a"], table.CleanupOptions{MinAge: -1, KeepVersions: 1})
	require.ErrorIs(t, err, table.ErrNoTxnStore, "a claim cannot be judged without the transaction store")
	for _, n := range []string{"a", "b"} {
		_, err := table.Cleanup(ctx, f.st[n], table.CleanupOptions{MinAge: -1, KeepVersions: 1, Txns: f.txns})
		require.NoError(t, err)
	}
	a, b := f.open(t, "a"), f.open(t, "b")
	in, err := f.whole(a, b)
	require.NoError(t, err, "the versions under the claims are kept")
	require.False(t, in)

	var rec table.TxnRecord
	for _, n := range []string{"a", "b"} {
		top, err := table.LatestVersion(ctx, f.st[n])
		require.NoError(t, err)
		raw, err := f.st[n].Get(ctx, fmt.Sprintf("_versions/%020d.manifest", top))
		require.NoError(t, err)
		m, err := table.UnmarshalManifest(raw)
		require.NoError(t, err)
		rec.ID, rec.State = m.Txn.Claim.TxnID, table.TxnCommitted
		rec.Tables = append(rec.Tables, table.TxnTable{Name: n, Version: top})
	}
	_, err = table.DecideTxn(ctx, f.txns, &rec)
	require.NoError(t, err)
	in, err = f.whole(f.open(t, "a"), f.open(t, "b"))
	require.NoError(t, err, "the claims' files were kept")
	require.True(t, in)
}

// countGets counts the objects read whole (manifests, records).
type countGets struct {
	store.Store
	n *int
}

func (s countGets) Get(ctx context.Context, p string) ([]byte, error) {
	*s.n++
	return s.Store.Get(ctx, p)
}

// Latest on a snapshot that is still the newest returns it without
// reading its manifest again (one listing): resolving claims costs
// nothing when there is none on top.
func TestLatestUnchangedReadsNoManifest(t *testing.T) {
	ctx := context.Background()
	var n int
	st := countGets{store.NewMemory(), &n}
	tb, err := table.Create(ctx, st, userSchema, table.Options{Txns: store.NewMemory()})
	require.NoError(t, err)
	n = 0
	same, err := tb.Latest(ctx)
	require.NoError(t, err)
	require.Same(t, tb, same)
	require.Zero(t, n)
}

// A table's Versions lists committed versions only: an aborted claim is
// in the store's listing (table.Versions, Txn.Claim set) and not in the
// table's history; a committed claim is in both.
func TestVersionsSkipUncommittedClaims(t *testing.T) {
	ctx := context.Background()
	f := newTxnFixture(t, time.Hour)
	parts := f.stageBoth(t)
	_, err := table.CommitTxn(ctx, parts)
	require.NoError(t, err)
	committedTop := f.open(t, "a").Version()

	f.opts.Txns = losingRecords{f.txns}
	parts = f.stageBoth(t)
	f.opts.Txns = f.txns
	defer table.SetClaimHookForTest(func(ctx context.Context, name string) error {
		if name == "" {
			return errCrash
		}
		return nil
	})()
	_, err = table.CommitTxn(ctx, parts)
	require.ErrorIs(t, err, errCrash)
	// The claims are pending; a writer aborts a's after the grace.
	f.opts.ClaimGrace = time.Millisecond
	a := f.appendKeys(t, f.open(t, "a"), 9000)

	all, err := table.Versions(ctx, f.st["a"])
	require.NoError(t, err)
	mine, err := a.Versions(ctx)
	require.NoError(t, err)
	require.Len(t, mine, len(all)-1, "the aborted claim is no version")
	var claims, committedClaims int
	for _, v := range all {
		if v.Txn.Claim != nil {
			claims++
		}
	}
	for _, v := range mine {
		if v.Txn.Claim != nil {
			committedClaims++
			require.Equal(t, committedTop, v.Version)
		}
	}
	require.Equal(t, 2, claims)
	require.Equal(t, 1, committedClaims)
	require.Equal(t, a.Version(), mine[len(mine)-1].Version)
}
