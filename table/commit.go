package table

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/stablerow/stablerow/table/deletion"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// newFragment is a data file written by a transaction but not yet given a
// fragment id. Fresh rows get row ids at apply time (so concurrent appends
// rebase by renumbering); moved rows keep theirs.
type newFragment struct {
	dataFile  string
	file      DataFileInfo
	rows      uint64
	batchRows uint64
	keptIDs   *rowid.Sequence // nil: assign fresh ids
	// renumber: keptIDs at or above the base's NextRowID are ids the
	// transaction allocated itself (a staged transaction's inserts); they
	// move up past the ids concurrent appends took (staged.go).
	renumber bool
	// deleted are offsets already dead when the fragment is added (rows a
	// transaction inserted and then deleted or updated).
	deleted *roaring.Bitmap
}

// txn is a transaction: deltas against its base version.
type txn struct {
	kind string
	base *Manifest
	add  []newFragment
	// del maps fragment id -> offsets to delete.
	del map[uint32]*roaring.Bitmap
	// strict: every offset in del must still be live when applied (an
	// update moved those rows; deleting a row someone else deleted would
	// resurrect it in the new fragment).
	strict bool
	// movedIDs are the ids of the rows an update moves, checked against the
	// ids at the deleted offsets (conservation of row ids).
	movedIDs []uint64
	// index, when set, is added or replaces the index of the same name.
	index   *IndexMeta
	replace bool
	// removed lists the fragments the transaction removes (rewrites), so
	// later conflict checks see them in the version's summary.
	removed []uint32
	detail  string
	// ownIDs is how many fresh row ids the transaction's added fragments
	// use (renumbered at apply); rowLevel: conflicts with concurrent
	// deletes and updates are decided per row by the strict check in
	// apply, not per fragment (a staged transaction, staged.go).
	ownIDs   uint64
	rowLevel bool
	// mutate, when set, may change the manifest after the deltas are
	// applied (rewrites and index commits of later features).
	mutate func(base, next *Manifest) error
}

func (tx *txn) touched() []uint32 {
	ids := make([]uint32, 0, len(tx.del))
	for id := range tx.del {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// commutes reports whether tx can be applied on top of a version produced
// by other (committed after tx's base).
func (tx *txn) commutes(other TxnSummary) error {
	if tx.kind == "constraints" && writesRows(other.Kind) || other.Kind == "constraints" && writesRows(tx.kind) {
		// constraints.go: rows and constraints were each checked
		// against the other's older state.
		return errorf(ErrConflict, "a concurrent %s changed the table while its constraints changed (%s)", other.Kind, tx.kind)
	}
	if ix := tx.index; ix != nil && ix.Unique && ix.Column != RowID && other.RowsAdded > 0 {
		// A new unique index was checked over the rows its build read;
		// rows added since were checked against no such index.
		return errorf(ErrConflict, "a concurrent %s added rows while unique index %q was built", other.Kind, ix.Name)
	}
	if tx.kind == "append" || other.Kind == "append" || other.Kind == "create" {
		return nil
	}
	if other.Kind == "index" {
		if tx.index != nil && other.Detail == tx.index.Name {
			return errorf(ErrConflict, "index %q was changed by a concurrent commit", tx.index.Name)
		}
		return nil
	}
	if tx.kind == "index" {
		// An index commit only records coverage; later versions that removed
		// covered fragments are handled when the index is used.
		return nil
	}
	mine := tx.touched()
	overlap := func(ids []uint32) bool {
		for _, id := range ids {
			if _, ok := slices.BinarySearch(mine, id); ok {
				return true
			}
		}
		return false
	}
	if tx.kind == "delete" && (other.Kind == "rewrite" || other.Kind == "reserve") {
		// A rewrite moves rows but keeps their row ids: apply re-finds the
		// rows this delete targets by id in the rewritten fragments.
		return nil
	}
	if overlap(other.Removed) {
		return errorf(ErrConflict, "a concurrent %s removed fragments this %s changes", other.Kind, tx.kind)
	}
	if tx.kind == "delete" && other.Kind == "delete" {
		return nil // deletion vectors union
	}
	if tx.rowLevel && (other.Kind == "delete" || other.Kind == "update") {
		// Row writes of others in the same fragments: apply's strict check
		// refuses exactly the rows both changed (PostgreSQL's per-row
		// serialization failure), the rest rebases.
		return nil
	}
	if overlap(other.Touched) {
		return errorf(ErrConflict, "a concurrent %s changed fragments this %s changes", other.Kind, tx.kind)
	}
	return nil
}

// apply builds the next manifest from latest and checks conservation.
func (tx *txn) apply(latest *Manifest) (*Manifest, error) {
	next := latest.clone()
	next.Version = latest.Version + 1
	next.TimestampNanos = time.Now().UnixNano()
	var newlyDeleted uint64
	var deletedIDs []uint64
	del, err := tx.rebaseDeletes(latest)
	if err != nil {
		return nil, err
	}
	for _, id := range sortedKeys(del) {
		add := del[id]
		i := slices.IndexFunc(next.Fragments, func(f *Fragment) bool { return f.ID == id })
		if i < 0 {
			return nil, errorf(ErrConflict, "fragment %d no longer exists", id)
		}
		f := *next.Fragments[i]
		if !add.IsEmpty() && uint64(add.Maximum()) >= f.PhysicalRows {
			return nil, errorf(ErrConservation, "delete of offset %d in fragment %d of %d rows", add.Maximum(), id, f.PhysicalRows)
		}
		old := f.Deletions.Bitmap()
		fresh := add.Clone()
		if old != nil {
			fresh.AndNot(old)
		}
		if tx.strict && fresh.GetCardinality() != add.GetCardinality() {
			return nil, errorf(ErrConflict, "rows of fragment %d this %s moves were deleted concurrently", id, tx.kind)
		}
		if tx.movedIDs != nil {
			it := fresh.Iterator()
			for it.HasNext() {
				rid, _ := f.RowIDs.Get(uint64(it.Next()))
				deletedIDs = append(deletedIDs, rid)
			}
		}
		newlyDeleted += fresh.GetCardinality()
		f.Deletions = f.Deletions.Union(deletion.FromBitmap(fresh))
		next.Fragments[i] = &f
	}
	var added uint64
	// A staged transaction's own fresh ids start at its base's NextRowID;
	// concurrent appends since took shift more ids, so its ids move up by
	// that much (one shift keeps their order and their ranges).
	shift := next.NextRowID - tx.base.NextRowID
	next.NextRowID += tx.ownIDs
	for _, nf := range tx.add {
		ids := nf.keptIDs
		if nf.renumber && shift != 0 {
			ids = renumberOwn(ids, tx.base.NextRowID, shift)
		}
		if ids == nil {
			ids = rowid.NewRange(next.NextRowID, next.NextRowID+nf.rows)
			next.NextRowID += nf.rows
		}
		if next.NextFragmentID == ^uint32(0) {
			return nil, errorf(ErrInvalidArgument, "fragment ids exhausted")
		}
		nfr := &Fragment{ID: next.NextFragmentID, DataFile: nf.dataFile,
			File: nf.file, PhysicalRows: nf.rows, BatchRows: nf.batchRows, RowIDs: ids}
		live := nf.rows
		if nf.deleted != nil && !nf.deleted.IsEmpty() {
			nfr.Deletions = deletion.FromBitmap(nf.deleted)
			live -= nf.deleted.GetCardinality()
		}
		next.Fragments = append(next.Fragments, nfr)
		next.NextFragmentID++
		added += live
	}
	if tx.movedIDs != nil {
		a, b := slices.Clone(tx.movedIDs), deletedIDs
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return nil, errorf(ErrConservation, "%s moves %d row ids but deletes %d rows with other ids", tx.kind, len(a), len(b))
		}
		for i := 1; i < len(a); i++ {
			if a[i] == a[i-1] {
				return nil, errorf(ErrConservation, "%s moves row id %d twice", tx.kind, a[i])
			}
		}
	}
	if tx.index != nil {
		i := slices.IndexFunc(next.Indexes, func(ix *IndexMeta) bool { return ix.Name == tx.index.Name })
		switch {
		case i >= 0 && !tx.replace:
			return nil, errorf(ErrInvalidArgument, "index %q already exists", tx.index.Name)
		case i >= 0:
			next.Indexes[i] = tx.index
		default:
			next.Indexes = append(next.Indexes, tx.index)
		}
	}
	if tx.mutate != nil {
		if err := tx.mutate(latest, next); err != nil {
			return nil, err
		}
	}
	next.Txn = TxnSummary{Kind: tx.kind, BaseVersion: tx.base.Version, Touched: sortedKeys(del),
		Removed: slices.Sorted(slices.Values(tx.removed)), RowsAdded: added, RowsDeleted: newlyDeleted, Detail: tx.detail}
	if tx.index != nil {
		next.Txn.Detail = tx.index.Name
	}
	if tx.mutate == nil {
		if got, want := next.LiveRows(), latest.LiveRows()+added-newlyDeleted; got != want {
			return nil, errorf(ErrConservation, "%s: %d live rows after commit, expected %d", tx.kind, got, want)
		}
	}
	if err := next.validate(); err != nil {
		return nil, fmt.Errorf("%w: %s would write an invalid manifest: %w", ErrConservation, tx.kind, err)
	}
	return next, nil
}

// rebaseDeletes returns the offsets to delete against latest. For a delete
// whose fragments a concurrent rewrite replaced, the target rows are found
// again by row id (rewrites keep ids) among latest's live rows; rows
// deleted meanwhile are simply gone. Anything else keeps tx.del as is.
func (tx *txn) rebaseDeletes(latest *Manifest) (map[uint32]*roaring.Bitmap, error) {
	if tx.kind != "delete" {
		return tx.del, nil
	}
	var ids []uint64
	out := make(map[uint32]*roaring.Bitmap, len(tx.del))
	for id, offs := range tx.del {
		if latest.Fragment(id) != nil {
			out[id] = offs
			continue
		}
		f := tx.base.Fragment(id)
		if f == nil {
			return nil, errorf(ErrConflict, "fragment %d is unknown", id)
		}
		it := offs.Iterator()
		for it.HasNext() {
			rid, ok := f.RowIDs.Get(uint64(it.Next()))
			if !ok {
				return nil, errorf(ErrConservation, "fragment %d: offset outside its row ids", id)
			}
			ids = append(ids, rid)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	addrs, found := latest.locate(ids)
	for i, a := range addrs {
		if !found[i] {
			continue
		}
		ad := rowid.Address(a)
		bm := out[ad.Fragment()]
		if bm == nil {
			bm = roaring.New()
			out[ad.Fragment()] = bm
		} else if _, shared := tx.del[ad.Fragment()]; shared && bm == tx.del[ad.Fragment()] {
			bm = bm.Clone()
			out[ad.Fragment()] = bm
		}
		bm.Add(ad.Offset())
	}
	return out, nil
}

func sortedKeys(m map[uint32]*roaring.Bitmap) []uint32 {
	ids := make([]uint32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// renumberOwn moves the ids at or above from up by shift.
func renumberOwn(s *rowid.Sequence, from, shift uint64) *rowid.Sequence {
	ids := s.AppendTo(make([]uint64, 0, s.Len()))
	for i, id := range ids {
		if id >= from {
			ids[i] = id + shift
		}
	}
	return rowid.NewSequence(ids)
}

// commit applies tx on the newest version and writes it with
// put-if-absent, rebasing over concurrent commits that commute with it.
// On a transaction's staged snapshot it publishes nothing (staged.go).
func (t *Table) commit(ctx context.Context, tx *txn) (*Table, error) {
	if t.stage != nil {
		return t.stage.stageCommit(ctx, tx)
	}
	return t.publish(ctx, tx, nil)
}

// publish is commit's optimistic loop. With claim set it writes the
// version as that transaction's claim (txncommit.go), its Prev the
// visible version it was applied on.
//
// The version written is the newest version number plus one, applied on
// the newest visible version: they differ when the newest is a claim not
// committed, which head waits on (pending) or writes past (aborted).
func (t *Table) publish(ctx context.Context, tx *txn, claim *Claim) (*Table, error) {
	latest := tx.base
	top := tx.base.Version
	checked := tx.base.Version
	if in := intentOf(ctx); in != nil {
		// Renewed now, the record stays live for a whole TTL: the file
		// check below and the manifest put both happen inside it.
		if err := in.renew(ctx); err != nil {
			return nil, err
		}
	}
	present := map[string]bool{}
	for attempt := 0; attempt <= t.opts.CommitRetries; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Check every version committed since the base (once each).
		for v := checked + 1; v <= latest.Version; v++ {
			m := latest
			if v != latest.Version {
				var err error
				if m, err = readManifest(ctx, t.st, v); err != nil {
					return nil, err
				}
				// An aborted claim's deltas never happened.
				if skip, err := skippedClaim(ctx, t.opts, m); err != nil {
					return nil, err
				} else if skip {
					continue
				}
			}
			if err := tx.commutes(m.Txn); err != nil {
				return nil, fmt.Errorf("%w (version %d)", err, v)
			}
		}
		checked = latest.Version
		next, err := tx.apply(latest)
		if err != nil {
			return nil, err
		}
		next.Version = top + 1
		if claim != nil {
			c := *claim
			c.Prev = latest.Version
			next.Txn.Claim = &c
			if err := next.validate(); err != nil {
				return nil, fmt.Errorf("%w: %s would write an invalid claim: %w", ErrConservation, tx.kind, err)
			}
		}
		if err := t.checkNewFiles(ctx, latest, next, present); err != nil {
			return nil, err
		}
		if check := t.opts.CommitCheck; check != nil && next.Txn.RowsAdded > 0 {
			if err := check(ctx, newTable(t.st, latest, t.opts), newTable(t.st, next, t.opts), latest.Version != tx.base.Version); err != nil {
				return nil, err
			}
		}
		b, err := next.MarshalBinary()
		if err != nil {
			return nil, err
		}
		err = t.st.PutIfAbsent(ctx, manifestPath(next.Version), b)
		if err == nil {
			return newTable(t.st, next, t.opts), nil
		}
		if !errors.Is(err, store.ErrExists) {
			return nil, fmt.Errorf("table: commit version %d: %w", next.Version, err)
		}
		// Someone wrote next.Version first: move to the newest version.
		if top, latest, err = head(ctx, t.st, t.opts, true); err != nil {
			return nil, err
		}
	}
	return nil, errorf(ErrConflict, "gave up after %d concurrent commits", t.opts.CommitRetries)
}

// checkNewFiles checks, before next is published, that every file next
// references and latest does not (the files this commit adds) exists at the
// size recorded for it: data files at their DataFileInfo size, row maps
// present. (Index files are the index packages' own; their builds keep
// the grace period.) A missing file is ErrMissingFile and nothing
// is published, so no write is reported that cannot be read. present
// remembers what one commit call has checked (a rebase retries with the
// same files).
func (t *Table) checkNewFiles(ctx context.Context, latest, next *Manifest, present map[string]bool) error {
	old := map[string]bool{}
	for _, f := range latest.Fragments {
		old[path.Clean(f.DataFile)] = true
	}
	for _, f := range next.Fragments {
		p := path.Clean(f.DataFile)
		if old[p] || present[p] {
			continue
		}
		size, err := t.st.Size(ctx, p)
		if errors.Is(err, store.ErrNotFound) {
			return errorf(ErrMissingFile, "version %d: data file %s of fragment %d is gone (removed by VACUUM while this write was stalled?); nothing was committed", next.Version, p, f.ID)
		}
		if err != nil {
			return fmt.Errorf("table: commit version %d: check %s: %w", next.Version, p, err)
		}
		if uint64(size) != f.File.Size {
			return errorf(ErrMissingFile, "version %d: data file %s of fragment %d is %d bytes, %d were written; nothing was committed", next.Version, p, f.ID, size, f.File.Size)
		}
		present[p] = true
	}
	if len(next.Extra) > 0 {
		was, err := latest.rowMapPaths()
		if err != nil {
			return err
		}
		now, err := next.rowMapPaths()
		if err != nil {
			return err
		}
		for _, p := range now {
			p = path.Clean(p)
			if present[p] || slices.ContainsFunc(was, func(w string) bool { return path.Clean(w) == p }) {
				continue
			}
			if _, err := t.st.Size(ctx, p); errors.Is(err, store.ErrNotFound) {
				return errorf(ErrMissingFile, "version %d: row map %s is gone; nothing was committed", next.Version, p)
			} else if err != nil {
				return fmt.Errorf("table: commit version %d: check %s: %w", next.Version, p, err)
			}
			present[p] = true
		}
	}
	return nil
}

// CommitIndex records an index (built by an index package under
// meta.Prefix) in a new version. With replace, it supersedes the index of
// the same name (an optimized or remapped build); without, a name clash is
// ErrInvalidArgument.
func (t *Table) CommitIndex(ctx context.Context, meta *IndexMeta, replace bool) (*Table, error) {
	if meta == nil || meta.Name == "" || meta.Prefix == "" {
		return nil, errorf(ErrInvalidArgument, "index needs a name and a prefix")
	}
	if t.ColumnIndex(meta.Column) < 0 {
		return nil, errorf(ErrInvalidArgument, "index %q: unknown column %q", meta.Name, meta.Column)
	}
	c := *meta
	if c.Fragments == nil {
		c.Fragments = roaring.New()
	}
	return t.commit(ctx, &txn{kind: "index", base: t.m, index: &c, replace: replace})
}
