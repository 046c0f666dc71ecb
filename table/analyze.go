package table

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Analyze rebuilds the statistics of every fragment of the version: its
// zone map (per batch the null counts and bounds) and its columns'
// distinct-count sketches over the live rows only, so a table written
// before sketches (or before zone maps) gets them, and one whose rows
// were mostly deleted gets counts of what is left, as PostgreSQL's
// ANALYZE refreshes pg_statistic. It reads every data file and commits
// one version (kind "analyze") that changes nothing but the fragments'
// zone maps: the same data files, rows, row ids and deletions, so
// conservation holds as for any commit, and a fragment that a concurrent
// rewrite replaced or removed keeps what its writer gave it.
func (t *Table) Analyze(ctx context.Context, mem memory.Allocator) (*Table, error) {
	us := t.m.Schema
	zb := newZoneBuilder(us)
	cols := make([]int, us.NumFields())
	for i := range cols {
		cols[i] = i
	}
	type stats struct {
		file  string
		zones []byte
	}
	got := map[uint32]stats{}
	for _, f := range t.m.Fragments {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		z, err := t.analyzeFragment(ctx, f, zb, cols, mem)
		if err != nil {
			return nil, err
		}
		got[f.ID] = stats{file: f.DataFile, zones: z}
	}
	mutate := func(_, next *Manifest) error {
		frags := slices.Clone(next.Fragments)
		for i, f := range frags {
			s, ok := got[f.ID]
			if !ok || s.file != f.DataFile {
				continue
			}
			c := *f // fragments are immutable: replace the entry
			c.File.Zones = s.zones
			frags[i] = &c
		}
		next.Fragments = frags
		return nil
	}
	return t.commit(ctx, &txn{kind: "analyze", base: t.m, detail: fmt.Sprintf("%d fragments", len(got)), mutate: mutate})
}

// analyzeFragment reads f's batches and returns its zone map blob, the
// sketches over its live rows.
func (t *Table) analyzeFragment(ctx context.Context, f *Fragment, zb *zoneBuilder, cols []int, mem memory.Allocator) ([]byte, error) {
	d, err := t.openData(ctx, f, mem)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	skets := make([]*Sketch, len(cols))
	for c := range skets {
		skets[c] = &Sketch{}
	}
	zones := make([][]ColumnZone, 0, len(f.File.Spans))
	for i := range f.File.Spans {
		arrs, rows, err := d.batch(i, cols, nil)
		if err != nil {
			return nil, err
		}
		first := uint64(i) * f.BatchRows
		live := func(j int) bool { return f.IsLive(uint32(first + uint64(j))) }
		if f.Deletions.IsEmpty() {
			live = nil
		}
		rb := array.NewRecordBatch(t.m.Schema, arrs, rows)
		zones = append(zones, zb.batch(rb))
		for c, sk := range skets {
			sk.addColumn(arrs[c], zb.trim[c], live)
		}
		rb.Release()
		for _, a := range arrs {
			a.Release()
		}
	}
	return encodeZoneMap(&ZoneMap{Batches: zones, Sketches: skets}, zb.kinds), nil
}
