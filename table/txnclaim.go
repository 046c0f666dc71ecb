package table

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
)

// Claims: a transaction over several tables (doc.go, "Transactions over
// several tables") writes each table's next version as a claim naming the
// transaction, before its record decides it. This file resolves claims
// for readers and writers; txncommit.go takes them.

// DefaultClaimGrace is how long a writer waits on another transaction's
// pending claim before aborting that transaction. The claims and the
// record of a live transaction are a few store puts apart, so a claim
// pending this long is almost surely its writer's crash; waiting less
// would abort live transactions on a slow store for nothing.
const DefaultClaimGrace = 10 * time.Second

// ErrNoTxnStore: a transaction's claim was met by a table opened without
// the database's transaction store (Options.Txns), which alone can say
// whether the claim is a version.
var ErrNoTxnStore = errkind.New(errkind.InvalidArgument, "table: this table holds a transaction's claim; reading it needs the database's transaction store")

// resolveClaim says whether m is visible: TxnCommitted for an ordinary
// version or a committed claim, TxnPending or TxnAborted for a claim that
// is not (the table then reads at m.Txn.Claim.Prev).
func resolveClaim(ctx context.Context, txns store.Store, m *Manifest) (TxnState, error) {
	c := m.Txn.Claim
	if c == nil {
		return TxnCommitted, nil
	}
	if txns == nil {
		return TxnPending, fmt.Errorf("%w (version %d, transaction %s)", ErrNoTxnStore, m.Version, c.TxnID)
	}
	state, rec, err := ReadTxn(ctx, txns, c.TxnID)
	if err != nil || state != TxnCommitted {
		return state, err
	}
	for _, tt := range rec.Tables {
		if tt.Name == c.Table && tt.Version == m.Version {
			return TxnCommitted, nil
		}
	}
	// The record is the commit point of exactly the claims it lists; a
	// claim it does not list was written by no commit of it.
	return TxnPending, errorf(ErrCorrupt, "version %d claims table %q for transaction %s, whose committed record does not list it", m.Version, c.Table, c.TxnID)
}

// head returns the newest version number of the table in st and its
// newest visible manifest. A claim on top that is not committed is
// skipped to its Prev (every version between the two is an aborted claim:
// a writer only writes past a claim decided aborted). With wait (a writer
// about to build on the head), a pending claim on top is first waited on
// for up to opts.ClaimGrace and then aborted, so the writer never builds
// on, nor claims above, an undecided claim.
func head(ctx context.Context, st store.Store, opts Options, wait bool) (uint64, *Manifest, error) {
	top, err := LatestVersion(ctx, st)
	if err != nil {
		return 0, nil, err
	}
	m, err := readManifest(ctx, st, top)
	if err != nil {
		return 0, nil, err
	}
	state, err := resolveClaim(ctx, opts.Txns, m)
	if err != nil {
		return 0, nil, err
	}
	if state == TxnPending && wait {
		if state, err = awaitClaim(ctx, opts, m.Txn.Claim.TxnID); err != nil {
			return 0, nil, err
		}
	}
	for state != TxnCommitted {
		prev := m.Txn.Claim.Prev
		if m, err = readManifest(ctx, st, prev); err != nil {
			return 0, nil, fmt.Errorf("table: the version under an undecided claim: %w", err)
		}
		if state, err = resolveClaim(ctx, opts.Txns, m); err != nil {
			return 0, nil, err
		}
	}
	return top, m, nil
}

// claimPoll is the first pause between looks at a pending transaction's
// record; it doubles up to claimPollMax.
const (
	claimPoll    = 2 * time.Millisecond
	claimPollMax = 100 * time.Millisecond
)

// awaitClaim waits for transaction id to be decided, up to opts.ClaimGrace
// measured on this process's clock from now (not from the claim's time:
// writers' clocks may disagree), then aborts it. It returns the decision
// in force: committed if the transaction won the race to its record.
func awaitClaim(ctx context.Context, opts Options, id string) (TxnState, error) {
	deadline := time.Now().Add(opts.ClaimGrace)
	pause := claimPoll
	for time.Now().Before(deadline) {
		state, _, err := ReadTxn(ctx, opts.Txns, id)
		if err != nil || state != TxnPending {
			return state, err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return TxnPending, ctx.Err()
		case <-t.C:
		}
		pause = min(2*pause, claimPollMax)
	}
	rec, err := DecideTxn(ctx, opts.Txns, &TxnRecord{ID: id, State: TxnAborted, DecidedNanos: time.Now().UnixNano(),
		By: fmt.Sprintf("a writer waited %v on its pending claim", opts.ClaimGrace)})
	if err != nil {
		return TxnPending, err
	}
	return rec.State, nil
}

// skippedClaim reports whether version v, read while rebasing over the
// versions after a base, is an undecided or aborted claim whose deltas
// never happened. Below the visible head no claim is pending (see head),
// so not committed means aborted.
func skippedClaim(ctx context.Context, opts Options, m *Manifest) (bool, error) {
	state, err := resolveClaim(ctx, opts.Txns, m)
	if err != nil {
		return false, err
	}
	return state != TxnCommitted, nil
}

// isExists reports a lost put-if-absent.
func isExists(err error) bool { return errors.Is(err, store.ErrExists) }
