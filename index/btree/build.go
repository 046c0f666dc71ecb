package btree

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/internal/radix"
	"github.com/stablerow/stablerow/table/store"
)

// Source is what a table offers an index builder: a scan of named columns
// of some fragments, "_rowaddr" included like any other column.
type Source interface {
	Version() uint64
	FragmentIDs() []uint32
	ScanColumns(ctx context.Context, columns []string, fragments []uint32, mem memory.Allocator) (array.RecordReader, error)
}

// entries is an index's content in memory while it is built: non-null keys
// (ordered uint64s or strings, one of the two) with their addresses, and
// the addresses of the null keys.
type entries struct {
	kind  keyKind
	parts []part // a composite key's columns (composite.go), else nil
	ukeys []uint64
	skeys []string
	addrs []uint64
	nulls []uint64
	// sorted stays true while every appended entry is >= the previous one.
	sorted, nullsSorted bool
}

func newEntries(kind keyKind, parts []part) *entries {
	return &entries{kind: kind, parts: parts, sorted: true, nullsSorted: true}
}

func (e *entries) len() int { return len(e.addrs) }

// addRecord appends a (key, address) batch, checking order as it goes.
func (e *entries) addRecord(rec arrow.RecordBatch) error {
	keyCols := 1
	if e.kind == kindComposite {
		keyCols = len(e.parts)
	}
	if int(rec.NumCols()) != keyCols+1 {
		return fmt.Errorf("%w: training batch has %d columns, want %d key column(s) and address", ErrInvalidArgument, rec.NumCols(), keyCols)
	}
	ac, ok := rec.Column(keyCols).(*array.Uint64)
	if !ok {
		return fmt.Errorf("%w: address column is %s, want uint64", ErrInvalidArgument, rec.Column(keyCols).DataType())
	}
	if ac.NullN() > 0 {
		return fmt.Errorf("%w: null row address", ErrInvalidArgument)
	}
	addrs := ac.Uint64Values()
	var valid []bool
	var err error
	if e.kind.stringy() {
		var ks []string
		if e.kind == kindComposite {
			ks, err = compositeKeys(e.parts, rec.Columns()[:keyCols])
		} else {
			ks, valid, err = stringKeys(e.kind, nil, rec.Column(0))
		}
		if err != nil {
			return err
		}
		for i, k := range ks {
			if valid != nil && !valid[i] {
				e.addNull(addrs[i])
				continue
			}
			if n := len(e.addrs); e.sorted && n > 0 {
				if c := cmp.Compare(k, e.skeys[n-1]); c < 0 || c == 0 && addrs[i] < e.addrs[n-1] {
					e.sorted = false
				}
			}
			e.skeys = append(e.skeys, k)
			e.addrs = append(e.addrs, addrs[i])
		}
		return nil
	}
	var ks []uint64
	if ks, valid, err = numericKeys(e.kind, rec.Column(0)); err != nil {
		return err
	}
	for i, k := range ks {
		if valid != nil && !valid[i] {
			e.addNull(addrs[i])
			continue
		}
		e.addU(k, addrs[i])
	}
	return nil
}

func (e *entries) addU(k, a uint64) {
	if n := len(e.addrs); e.sorted && n > 0 {
		if p := e.ukeys[n-1]; k < p || k == p && a < e.addrs[n-1] {
			e.sorted = false
		}
	}
	e.ukeys = append(e.ukeys, k)
	e.addrs = append(e.addrs, a)
}

func (e *entries) addNull(a uint64) {
	if n := len(e.nulls); n > 0 && a < e.nulls[n-1] {
		e.nullsSorted = false
	}
	e.nulls = append(e.nulls, a)
}

// sort establishes (key, address) order unless the input already had it:
// the sorted-input fast path, taken only when it was verified.
func (e *entries) sort() {
	if !e.nullsSorted {
		slices.Sort(e.nulls)
		e.nullsSorted = true
	}
	if e.sorted {
		return
	}
	if !e.kind.stringy() {
		radix.SortPairs(e.ukeys, e.addrs)
	} else {
		perm := make([]int32, len(e.addrs))
		for i := range perm {
			perm[i] = int32(i)
		}
		slices.SortFunc(perm, func(a, b int32) int {
			if c := cmp.Compare(e.skeys[a], e.skeys[b]); c != 0 {
				return c
			}
			return cmp.Compare(e.addrs[a], e.addrs[b])
		})
		ks, as := make([]string, len(perm)), make([]uint64, len(perm))
		for i, j := range perm {
			ks[i], as[i] = e.skeys[j], e.addrs[j]
		}
		e.skeys, e.addrs = ks, as
	}
	e.sorted = true
}

// Train builds an index under prefix from batches of (key, address): the
// key column of keyType (nullable) and a non-null uint64 address column.
// Input already sorted by (key, address) is detected and not re-sorted;
// any other input is sorted.
func Train(ctx context.Context, st store.Store, prefix string, keyType arrow.DataType, src array.RecordReader, meta Meta, opt Options) (*Index, error) {
	kind, err := kindOf(keyType)
	if err != nil {
		return nil, err
	}
	if _, err := opt.pageRows(); err != nil {
		return nil, err
	}
	e := newEntries(kind, nil)
	if err := e.addReader(ctx, src); err != nil {
		return nil, err
	}
	e.sort()
	return e.write(ctx, st, prefix, meta, opt)
}

// TrainKeys builds a composite index (composite.go) under prefix on
// meta.Keys, whose columns have types, from batches of the key columns in
// key order followed by the non-null uint64 address column. meta.Column
// is set to the first key column.
func TrainKeys(ctx context.Context, st store.Store, prefix string, types []arrow.DataType, src array.RecordReader, meta Meta, opt Options) (*Index, error) {
	parts, err := partsOf(meta.Keys, types)
	if err != nil {
		return nil, err
	}
	if _, err := opt.pageRows(); err != nil {
		return nil, err
	}
	e := newEntries(kindComposite, parts)
	if err := e.addReader(ctx, src); err != nil {
		return nil, err
	}
	e.sort()
	return e.write(ctx, st, prefix, meta, opt)
}

func (e *entries) addReader(ctx context.Context, src array.RecordReader) error {
	if src == nil {
		return fmt.Errorf("%w: nil source", ErrInvalidArgument)
	}
	for src.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := e.addRecord(src.RecordBatch()); err != nil {
			return err
		}
	}
	if err := src.Err(); err != nil {
		return fmt.Errorf("btree: training input: %w", err)
	}
	return nil
}

// TrainFrom builds an index over column of every fragment of src, scanning
// [column, "_rowaddr"]. The index records src's fragments and version.
func TrainFrom(ctx context.Context, st store.Store, prefix string, src Source, column string, opt Options) (*Index, error) {
	frags := src.FragmentIDs()
	rdr, err := src.ScanColumns(ctx, []string{column, "_rowaddr"}, frags, opt.mem())
	if err != nil {
		return nil, fmt.Errorf("btree: scan %s: %w", column, err)
	}
	defer rdr.Release()
	if rdr.Schema().NumFields() != 2 {
		return nil, fmt.Errorf("%w: scan returned %d columns", ErrInvalidArgument, rdr.Schema().NumFields())
	}
	meta := Meta{Column: column, FragmentIDs: frags, DatasetVersion: src.Version()}
	return Train(ctx, st, prefix, rdr.Schema().Field(0).Type, rdr, meta, opt)
}

// write encodes the sorted entries as pages and a lookup, stores both files
// (pages first: the lookup is what makes an index exist) and returns the
// opened index. The caller picks a fresh prefix for every new index.
func (e *entries) write(ctx context.Context, st store.Store, prefix string, meta Meta, opt Options) (*Index, error) {
	pr, err := opt.pageRows()
	if err != nil {
		return nil, err
	}
	lk := &lookup{kind: e.kind, pageRows: pr, meta: meta.clone(), parts: e.parts}
	lk.meta.Keys = keyParts(e.parts)
	if e.parts != nil {
		lk.meta.Column = e.parts[0].Column
	}
	buf := appendHeader(nil, filePages, e.kind, lk.version())
	var scratch []uint64
	addPage := func(lo, hi int, nulls bool) {
		start := len(buf)
		if nulls {
			buf = encodePage(buf, pageNull, nil, nil, e.nulls[lo:hi], scratch)
		} else if e.kind.stringy() {
			buf = encodePage(buf, pageString, nil, e.skeys[lo:hi], e.addrs[lo:hi], scratch)
		} else {
			buf = encodePage(buf, pageInt, e.ukeys[lo:hi], nil, e.addrs[lo:hi], scratch)
		}
		ref := pageRef{off: int64(start), length: uint32(len(buf) - start), rows: uint32(hi - lo), crc: crc(buf[start:])}
		if nulls {
			ref.nulls = ref.rows
			lk.nullPages++
		}
		lk.pages = append(lk.pages, ref)
		lk.rows += int64(hi - lo)
		switch {
		case e.kind.stringy():
			var mn, mx string
			if !nulls {
				mn, mx = e.skeys[lo], e.skeys[hi-1]
			}
			lk.smin, lk.smax = append(lk.smin, mn), append(lk.smax, mx)
		default:
			var mn, mx uint64
			if !nulls {
				mn, mx = e.ukeys[lo], e.ukeys[hi-1]
			}
			lk.umin, lk.umax = append(lk.umin, mn), append(lk.umax, mx)
		}
	}
	for lo := 0; lo < len(e.nulls); lo += pr {
		addPage(lo, min(lo+pr, len(e.nulls)), true)
	}
	for lo := 0; lo < len(e.addrs); lo += pr {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		addPage(lo, min(lo+pr, len(e.addrs)), false)
	}
	lk.pagesSize = int64(len(buf))
	lb := lk.encode()
	// Both files are created, never replaced: an existing index under the
	// prefix is left intact and the write fails with store.ErrExists.
	if err := st.PutIfAbsent(ctx, prefix+pagesName, buf); err != nil {
		return nil, fmt.Errorf("btree: write pages: %w", err)
	}
	if err := st.PutIfAbsent(ctx, prefix+lookupName, lb); err != nil {
		return nil, fmt.Errorf("btree: write lookup: %w", err)
	}
	return newIndex(st, prefix, lk, int64(len(lb)), opt), nil
}
