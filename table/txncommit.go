package table

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// TxnPart is one table's part of a transaction over several tables.
type TxnPart struct {
	// Name is the table's name in the database: the record lists it, and
	// readers of several tables match claims to tables by it.
	Name   string
	Staged *Staged
}

// abortTimeout bounds the abort a failed commit writes on its way out,
// whatever its caller's context: the abort spares other writers the wait
// of ClaimGrace, and is not worth more.
const abortTimeout = 10 * time.Second

// CommitTxn publishes the writes of several tables' transactions (one
// Staged per table, all started by the same database transaction) all at
// once or not at all, and ends them (doc.go, "Transactions over several
// tables"):
//
//  1. In table name order, each written table's next version is claimed:
//     written with put-if-absent as a claim naming the transaction, by
//     the ordinary optimistic commit (rebased over concurrent commits that
//     commute with it, ErrConflict on one that does not, waiting on
//     another transaction's pending claim as head does). A claim is no
//     version yet: readers skip it.
//  2. The commit point: the transaction's record, committed, listing each
//     claim, put with put-if-absent (DecideTxn). From that one put on,
//     every claim is a version, in every table at once.
//  3. Any failure before 2 decides the transaction aborted, so its claims
//     are skipped for good and writers waiting on them go on at once. A
//     writer that waited ClaimGrace on a claim may have aborted the
//     transaction first: the commit point then returns that abort, and
//     the commit fails with ErrConflict.
//
// With one table written it is that table's Staged.Commit: one version,
// no claim. The parts' tables must have been opened with the database's
// transaction store (Options.Txns), the same for all. It returns the new
// snapshot of each part, in the order given. On any error nothing of the
// transaction is visible, except that a store error at the commit point
// itself leaves the outcome as unknown as a failed manifest put does.
func CommitTxn(ctx context.Context, parts []TxnPart) (_ []*Table, err error) {
	if len(parts) == 0 {
		return nil, nil
	}
	byName := slices.Clone(parts)
	slices.SortFunc(byName, func(a, b TxnPart) int { return cmp.Compare(a.Name, b.Name) })
	for i, p := range byName {
		if p.Name == "" || p.Staged == nil {
			return nil, errorf(ErrInvalidArgument, "transaction part %d has no name or no staged table", i)
		}
		if i > 0 && p.Name == byName[i-1].Name {
			return nil, errorf(ErrInvalidArgument, "table %q is twice in one transaction", p.Name)
		}
	}
	// End every part now: a commit is the transaction's end whatever
	// happens (PostgreSQL: a failed COMMIT rolls back).
	curs := make([]*Manifest, len(byName))
	var ending []*Staged // the parts this call ends (not ended before)
	for i, p := range byName {
		s := p.Staged
		s.mu.Lock()
		if !s.done {
			ending = append(ending, s)
		}
		s.done = true
		curs[i] = s.cur.m
		s.mu.Unlock()
	}
	already := len(ending) != len(byName)
	defer func() {
		for _, s := range ending {
			s.end(&err)
		}
	}()
	if already {
		return nil, errorf(ErrStaged, "the transaction has ended")
	}
	txns := byName[0].Staged.base.opts.Txns
	for _, p := range byName {
		if t := p.Staged.base.opts.Txns; t == nil || t != txns {
			return nil, fmt.Errorf("%w: table %q is not opened with the transaction store of the others", ErrNoTxnStore, p.Name)
		}
	}
	var written []int
	for i, p := range byName {
		if curs[i] != p.Staged.base.m {
			written = append(written, i)
		}
	}
	out := map[string]*Table{}
	for _, p := range byName {
		out[p.Name] = p.Staged.base
	}
	result := func() []*Table {
		r := make([]*Table, len(parts))
		for i, p := range parts {
			r[i] = out[p.Name]
		}
		return r
	}
	if len(written) <= 1 {
		for _, i := range written {
			s := byName[i].Staged
			tx, err := s.combined(curs[i])
			if err != nil {
				return nil, err
			}
			if out[byName[i].Name], err = s.base.commit(s.withIntent(ctx), tx); err != nil {
				return nil, err
			}
		}
		return result(), nil
	}

	id := NewID()
	rec := &TxnRecord{ID: id, State: TxnCommitted, By: "commit"}
	abort := func(why error) error {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
		defer cancel()
		// An abort that cannot be stored leaves the claims pending until
		// a writer's ClaimGrace runs out: readers skip them all the same.
		_, _ = DecideTxn(actx, txns, &TxnRecord{ID: id, State: TxnAborted, DecidedNanos: time.Now().UnixNano(), By: "its commit failed"})
		return why
	}
	for _, i := range written {
		p := byName[i]
		s := p.Staged
		tx, err := s.combined(curs[i])
		if err != nil {
			return nil, abort(err)
		}
		if err := claimHook(ctx, p.Name); err != nil {
			return nil, abort(err)
		}
		nt, err := s.base.publish(s.withIntent(ctx), tx, &Claim{TxnID: id, Table: p.Name})
		if err != nil {
			return nil, abort(fmt.Errorf("table %q: %w", p.Name, err))
		}
		out[p.Name] = nt
		rec.Tables = append(rec.Tables, TxnTable{Name: p.Name, Version: nt.Version()})
	}
	if err := claimHook(ctx, ""); err != nil {
		return nil, abort(err)
	}
	rec.DecidedNanos = time.Now().UnixNano()
	got, err := DecideTxn(ctx, txns, rec)
	if err != nil {
		return nil, fmt.Errorf("table: the commit point of transaction %s: %w (its outcome is unknown: the record may have been stored)", id, err)
	}
	if got.State != TxnCommitted {
		return nil, errorf(ErrConflict, "transaction %s was aborted before its commit point (%s): nothing was published", id, got.By)
	}
	return result(), nil
}

// claimHook runs before each claim (with the table's name) and before the
// commit point (with ""); tests use it to act between the steps. An error
// fails the commit as a store error would.
var claimHook = func(ctx context.Context, table string) error { return nil }
