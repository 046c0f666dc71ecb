package table

import (
	"context"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/rowid"
)

// Staged is one table's part of a multi-statement transaction: a private
// line of versions on top of the snapshot the transaction read (its base).
//
// Every write of the transaction (Append, Update, DeleteAddrs and the
// functions built on them) runs on Staged.Table(). It stores its data files
// as any writer does, under one write intent held for the whole
// transaction (so VACUUM keeps them between statements), but its commit
// only applies the deltas to the private manifest in memory: nothing is
// published, and the returned snapshot (again staged) is readable like any
// other, so the transaction's later statements see its own writes
// (PostgreSQL's read-your-writes within a transaction) while every other
// reader sees the published versions only.
//
// Commit publishes the difference between the base and the private
// manifest as ONE version, through the ordinary optimistic commit:
// rebased over concurrent commits that do not touch the same rows, refused
// with ErrConflict when one does (PostgreSQL REPEATABLE READ's "first
// updater wins": heap_update's serialization failure when the row version
// it would change was changed by a transaction its snapshot cannot see).
// Rollback publishes nothing; the files stay orphans for VACUUM.
//
// Only row writes stage. A commit of any other kind (an index, a rewrite,
// a compaction) on a staged snapshot is refused with ErrStaged, since it
// could not be undone by a rollback.
type Staged struct {
	mu   sync.Mutex
	base *Table // published snapshot the transaction started from
	cur  *Table // base plus every write so far (staged)
	ictx context.Context
	end  func(*error)
	done bool
}

// ErrStaged: an operation a transaction cannot stage (an index build, a
// rewrite), or a write on a transaction that has ended.
var ErrStaged = errkind.New(errkind.Unsupported, "table: not allowed inside a transaction")

// Stage starts a transaction's private line of versions on snapshot t.
// ctx bounds the transaction's write intent (its renewal runs until Commit
// or Rollback); it is not used for the statements' work.
func (t *Table) Stage(ctx context.Context) *Staged {
	s := &Staged{base: t}
	s.ictx, s.end = holdIntent(context.WithoutCancel(ctx), t.st, "transaction")
	cur := *t
	cur.stage = s
	s.cur = &cur
	return s
}

// IsStaged reports whether t is a transaction's private snapshot: its
// version number is private, so caches keyed by version (index resolvers)
// must not be used with it.
func (t *Table) IsStaged() bool { return t.stage != nil }

// Table is the transaction's current view: the base plus its own writes.
func (s *Staged) Table() *Table {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// Base is the published snapshot the transaction started from.
func (s *Staged) Base() *Table { return s.base }

// Changed reports whether the transaction wrote anything.
func (s *Staged) Changed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur.m != s.base.m
}

// withIntent is ctx carrying the transaction's write intent, so the files
// a statement stores are named by it (holdIntent then shares it and its
// end is the transaction's, not the statement's).
func (s *Staged) withIntent(ctx context.Context) context.Context {
	return context.WithValue(ctx, intentKey{}, intentOf(s.ictx))
}

// hold is holdIntent for a writer on t: a staged snapshot's writes use the
// transaction's intent.
func (t *Table) hold(ctx context.Context, purpose string) (context.Context, func(*error)) {
	if t.stage != nil {
		ctx = t.stage.withIntent(ctx)
	}
	return holdIntent(ctx, t.st, purpose)
}

// stageCommit is commit for a staged snapshot: apply tx to the private
// manifest, publish nothing.
func (s *Staged) stageCommit(ctx context.Context, tx *txn) (*Table, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil, errorf(ErrStaged, "the transaction has ended")
	}
	switch tx.kind {
	case "append", "delete", "update":
	default:
		return nil, errorf(ErrStaged, "a %s commit", tx.kind)
	}
	if tx.base != s.cur.m {
		// Statements of one transaction run one after another, each on
		// the current view; a write from an older view would drop one.
		return nil, errorf(ErrConflict, "a %s of this transaction started from an older view of it", tx.kind)
	}
	next, err := tx.apply(tx.base)
	if err != nil {
		return nil, err
	}
	nt := newTable(s.base.st, next, s.base.opts)
	nt.stage = s
	s.cur = nt
	return nt, nil
}

// Commit publishes the transaction's writes as one new version and ends
// it. With nothing written it publishes nothing and returns the base. On
// any error nothing is published and the transaction has ended all the
// same (PostgreSQL: a failed COMMIT rolls back).
func (s *Staged) Commit(ctx context.Context) (_ *Table, err error) {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return nil, errorf(ErrStaged, "the transaction has ended")
	}
	s.done = true
	cur := s.cur.m
	s.mu.Unlock()
	defer s.end(&err)
	if cur == s.base.m {
		return s.base, nil
	}
	tx, err := s.combined(cur)
	if err != nil {
		return nil, err
	}
	return s.base.commit(s.withIntent(ctx), tx)
}

// Rollback ends the transaction publishing nothing. The data files it
// stored are named by no manifest; once its intent is gone VACUUM removes
// them. Safe to call more than once and after Commit.
func (s *Staged) Rollback() {
	s.mu.Lock()
	done := s.done
	s.done = true
	s.mu.Unlock()
	if !done {
		s.end(nil)
	}
}

// combined is the one txn that takes the base to the private manifest cur:
// the offsets cur deletes in the base's fragments, and the fragments the
// transaction added (with the deletions later statements made in them).
//
// Only appends: kind "append", which commutes with every commit, as a
// single INSERT does. Anything else: kind "update", strict (every deleted
// offset must still be live when applied, so a row another writer deleted
// or moved since the snapshot is a conflict, not a silent double delete)
// and rowLevel (a concurrent delete or update of other rows of the same
// fragments rebases: the strict check is per row).
func (s *Staged) combined(cur *Manifest) (*txn, error) {
	base := s.base.m
	tx := &txn{kind: "append", base: base, del: map[uint32]*roaring.Bitmap{}, ownIDs: cur.NextRowID - base.NextRowID, detail: "transaction"}
	for _, f := range cur.Fragments {
		if f.ID >= base.NextFragmentID {
			ids := f.RowIDs.AppendTo(make([]uint64, 0, f.PhysicalRows))
			nf := newFragment{dataFile: f.DataFile, file: f.File, rows: f.PhysicalRows, batchRows: f.BatchRows,
				keptIDs: rowid.NewSequence(ids), renumber: true}
			if bm := f.Deletions.Bitmap(); bm != nil && !bm.IsEmpty() {
				nf.deleted = bm.Clone()
			}
			tx.add = append(tx.add, nf)
			continue
		}
		bf := base.Fragment(f.ID)
		if bf == nil {
			return nil, errorf(ErrConservation, "transaction: fragment %d is in neither the base nor the added fragments", f.ID)
		}
		fresh := roaring.New()
		if bm := f.Deletions.Bitmap(); bm != nil {
			fresh = bm.Clone()
		}
		if old := bf.Deletions.Bitmap(); old != nil {
			fresh.AndNot(old)
		}
		if !fresh.IsEmpty() {
			tx.del[f.ID] = fresh
		}
	}
	for _, bf := range base.Fragments {
		if cur.Fragment(bf.ID) == nil {
			return nil, errorf(ErrConservation, "transaction: fragment %d of the base is gone", bf.ID)
		}
	}
	if len(tx.del) > 0 {
		tx.kind, tx.strict, tx.rowLevel = "update", true, true
	}
	return tx, nil
}
