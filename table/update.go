package table

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table/rowid"
)

// Update replaces whole rows. rdr yields batches whose first column is
// _rowid (uint64) followed by every user column in table order: the new
// values of the row with that id. Each changed row moves to a new fragment
// and keeps its row id; its old copy is deleted in the same commit.
//
// Every id must name a live row, at most once per call (ErrInvalidArgument
// otherwise). A concurrent delete of a moved row makes the commit fail with
// ErrConflict rather than resurrect the row.
func (t *Table) Update(ctx context.Context, rdr array.RecordReader, mem memory.Allocator) (_ *Table, _ uint64, err error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	ctx, end := t.hold(ctx, "update")
	defer end(&err)
	fw := t.newFragmentWriter(ctx, mem)
	var ids []uint64
	seen := map[uint64]bool{}
	fail := func(err error) (*Table, uint64, error) {
		fw.abort()
		return nil, 0, err
	}
	for rdr.Next() {
		b := rdr.RecordBatch()
		if b.NumCols() < 1 {
			return fail(errorf(ErrSchema, "update: batch has no columns"))
		}
		rc, ok := b.Column(0).(*array.Uint64)
		if !ok || rc.NullN() > 0 {
			return fail(errorf(ErrSchema, "update: first column must be a non-null uint64 _rowid, got %s", b.Column(0).DataType()))
		}
		for _, id := range rc.Uint64Values() {
			if seen[id] {
				return fail(errorf(ErrInvalidArgument, "update: row id %d given twice", id))
			}
			seen[id] = true
			ids = append(ids, id)
		}
		view := array.NewRecordBatch(arrow.NewSchema(b.Schema().Fields()[1:], nil), b.Columns()[1:], b.NumRows())
		cb, err := t.conform(view)
		view.Release()
		if err != nil {
			return fail(err)
		}
		err = fw.write(cb)
		cb.Release()
		if err != nil {
			return fail(err)
		}
	}
	if err := rdr.Err(); err != nil {
		return fail(fmt.Errorf("table: update input: %w", err))
	}
	if len(ids) == 0 {
		fw.abort()
		return t, 0, nil
	}
	addrs, found := t.Locate(ids)
	for i, ok := range found {
		if !ok {
			return fail(errorf(ErrInvalidArgument, "update: row id %d has no live row in version %d", ids[i], t.m.Version))
		}
	}
	frags, err := fw.finish()
	if err != nil {
		return fail(err)
	}
	off := 0
	for i := range frags {
		frags[i].keptIDs = rowid.NewSequence(ids[off : off+int(frags[i].rows)])
		off += int(frags[i].rows)
	}
	del, err := t.groupAddrs(addrs)
	if err != nil {
		return nil, 0, err
	}
	nt, err := t.commit(ctx, &txn{kind: "update", base: t.m, add: frags, del: del, strict: true, movedIDs: ids})
	if err != nil {
		return nil, 0, err
	}
	return nt, uint64(len(ids)), nil
}

// UpdateBatches is Update over a slice of batches (_rowid, then every user
// column).
func (t *Table) UpdateBatches(ctx context.Context, batches []arrow.RecordBatch, mem memory.Allocator) (*Table, uint64, error) {
	if len(batches) == 0 {
		return t, 0, nil
	}
	return t.Update(ctx, &sliceReader{schema: batches[0].Schema(), batches: batches, i: -1}, mem)
}
