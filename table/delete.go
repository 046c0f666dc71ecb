package table

import (
	"context"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table/rowid"
)

// Locate finds the live address of each row id from the fragments' row id
// sequences (fragments pruned by their id range; O(log n) per probe).
// found[i] is false for ids with no live row. This is the write path's
// resolver; queries use the BTree on _rowid instead.
func (t *Table) Locate(ids []uint64) (addrs []uint64, found []bool) {
	return t.m.locate(ids)
}

func (m *Manifest) locate(ids []uint64) (addrs []uint64, found []bool) {
	addrs = make([]uint64, len(ids))
	found = make([]bool, len(ids))
	type span struct {
		f      *Fragment
		lo, hi uint64
	}
	spans := make([]span, 0, len(m.Fragments))
	for _, f := range m.Fragments {
		if lo, hi, ok := f.RowIDs.MinMax(); ok && f.LiveRows() > 0 {
			spans = append(spans, span{f, lo, hi})
		}
	}
	for i, id := range ids {
		for _, s := range spans {
			if id < s.lo || id > s.hi {
				continue
			}
			off, ok := s.f.RowIDs.Position(id)
			if ok && s.f.IsLive(uint32(off)) {
				addrs[i], found[i] = uint64(rowid.NewAddress(s.f.ID, uint32(off))), true
				break
			}
		}
	}
	return addrs, found
}

// DeleteRowIDs deletes the rows with the given row ids (ids with no live
// row are ignored) and returns the new snapshot and the rows deleted.
func (t *Table) DeleteRowIDs(ctx context.Context, ids []uint64) (*Table, uint64, error) {
	addrs, found := t.Locate(ids)
	live := addrs[:0]
	for i, a := range addrs {
		if found[i] {
			live = append(live, a)
		}
	}
	return t.DeleteAddrs(ctx, live)
}

// DeleteAddrs deletes the rows at the given addresses. Addresses of rows
// already deleted are ignored; addresses outside the table are an error.
func (t *Table) DeleteAddrs(ctx context.Context, addrs []uint64) (*Table, uint64, error) {
	del, err := t.groupAddrs(addrs)
	if err != nil {
		return nil, 0, err
	}
	if len(del) == 0 {
		return t, 0, nil
	}
	nt, err := t.commit(ctx, &txn{kind: "delete", base: t.m, del: del})
	if err != nil {
		return nil, 0, err
	}
	return nt, nt.m.Txn.RowsDeleted, nil
}

func (t *Table) groupAddrs(addrs []uint64) (map[uint32]*roaring.Bitmap, error) {
	del := map[uint32]*roaring.Bitmap{}
	for _, a := range addrs {
		ad := rowid.Address(a)
		f := t.m.Fragment(ad.Fragment())
		if f == nil || uint64(ad.Offset()) >= f.PhysicalRows {
			return nil, errorf(ErrInvalidArgument, "delete: address %s is not in version %d", ad, t.m.Version)
		}
		if f.Deletions.Contains(ad.Offset()) {
			continue
		}
		bm := del[f.ID]
		if bm == nil {
			bm = roaring.New()
			del[f.ID] = bm
		}
		bm.Add(ad.Offset())
	}
	return del, nil
}

// Predicate evaluates a batch (of the columns the caller asked for) to one
// boolean per row; true (not NULL) selects the row.
type Predicate func(ctx context.Context, b arrow.RecordBatch) (*array.Boolean, error)

// DeleteWhere deletes the live rows for which pred is true. pred sees the
// named columns (nil: all user columns).
func (t *Table) DeleteWhere(ctx context.Context, columns []string, pred Predicate, mem memory.Allocator) (*Table, uint64, error) {
	addrs, err := t.Select(ctx, columns, pred, mem)
	if err != nil {
		return nil, 0, err
	}
	return t.DeleteAddrs(ctx, addrs)
}

// Select returns the addresses of the live rows for which pred is true.
func (t *Table) Select(ctx context.Context, columns []string, pred Predicate, mem memory.Allocator) ([]uint64, error) {
	if columns == nil {
		for _, f := range t.m.Schema.Fields() {
			columns = append(columns, f.Name)
		}
	}
	cols := append(slices.Clone(columns), RowAddr)
	sc, err := t.Scan(ctx, ScanOptions{Columns: cols, Mem: mem})
	if err != nil {
		return nil, err
	}
	defer sc.Release()
	var addrs []uint64
	for sc.Next() {
		b := sc.RecordBatch()
		view := b.NewSlice(0, b.NumRows())
		proj := array.NewRecordBatch(arrow.NewSchema(b.Schema().Fields()[:len(columns)], nil), view.Columns()[:len(columns)], b.NumRows())
		view.Release()
		mask, err := pred(ctx, proj)
		proj.Release()
		if err != nil {
			return nil, fmt.Errorf("table: predicate: %w", err)
		}
		if mask.Len() != int(b.NumRows()) {
			mask.Release()
			return nil, errorf(ErrInvalidArgument, "predicate returned %d values for %d rows", mask.Len(), b.NumRows())
		}
		ra := b.Column(len(columns)).(*array.Uint64)
		for i := 0; i < mask.Len(); i++ {
			if mask.IsValid(i) && mask.Value(i) {
				addrs = append(addrs, ra.Value(i))
			}
		}
		mask.Release()
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return addrs, nil
}
