package table

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/progress"
)

// ScanOptions selects what a scan reads.
type ScanOptions struct {
	// Columns by name, in output order; may include _rowid and _rowaddr.
	// nil means all user columns.
	Columns []string
	// Fragments restricts the scan to these fragment ids (nil: all).
	Fragments []uint32
	// Mem allocates the output (nil: memory.DefaultAllocator).
	Mem memory.Allocator
	// WithDeleted also returns deleted rows (for diagnostics).
	WithDeleted bool
	// Ranges, when set, restricts the scan to these row ranges of
	// fragments, read in the order given (Fragments must then be nil):
	// how a scan is cut into partitions finer than a fragment.
	Ranges []FragmentRange
	// Where is a conjunction of simple predicates: batches whose zone
	// maps prove that no row satisfies one of them are skipped, never
	// read (zonescan.go). The scan still returns every row of the
	// batches it reads: the caller filters them.
	Where []ZonePred
}

// FragmentRange is the physical offsets [Start, End) of a fragment. Start
// is a multiple of the fragment's BatchRows and End one too or the
// fragment's PhysicalRows, so a range reads whole data file batches.
type FragmentRange struct {
	Fragment   uint32
	Start, End uint64
}

// systemBatchRows is the batch length of scans that read no data file:
// system columns are generated, so bigger batches cost nothing.
const systemBatchRows = 1 << 16

// Scanner streams the live rows of a table snapshot as record batches. It
// implements array.RecordReader; a batch is valid until the next call to
// Next (Retain it to keep it).
type Scanner struct {
	ctx   context.Context
	t     *Table
	p     *projection
	mem   memory.Allocator
	frags []*Fragment
	spans [][2]uint64 // per entry of frags, the offsets [start, end) read
	opt   ScanOptions
	meter *progress.Meter // the statement's, if it watches progress
	stats ScanStats

	fi   int       // current fragment
	d    *dataFile // open data file of frags[fi] (user columns only)
	next uint64    // next physical offset in frags[fi]
	cur  arrow.RecordBatch
	err  error
	refs atomic.Int64

	// Per-scan scratch, reused every batch: the data file's columns
	// (p.cols) and the output columns.
	data, cols []arrow.Array
}

// Scan starts a scan of the snapshot.
func (t *Table) Scan(ctx context.Context, opt ScanOptions) (*Scanner, error) {
	p, err := t.project(opt.Columns)
	if err != nil {
		return nil, err
	}
	var frags []*Fragment
	var spans [][2]uint64
	if opt.Ranges != nil {
		if frags, spans, err = t.selectRanges(opt); err != nil {
			return nil, err
		}
	} else {
		if frags, err = t.selectFragments(opt.Fragments); err != nil {
			return nil, err
		}
		spans = make([][2]uint64, len(frags))
		for i, f := range frags {
			spans[i] = [2]uint64{0, f.PhysicalRows}
		}
	}
	var skipped int64
	if len(opt.Where) > 0 {
		preds, err := t.resolveZonePreds(opt.Where)
		if err != nil {
			return nil, err
		}
		if frags, spans, skipped, err = t.pruneByZones(preds, frags, spans); err != nil {
			return nil, err
		}
	}
	mem := opt.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	s := &Scanner{ctx: ctx, t: t, p: p, mem: mem, frags: frags, spans: spans, opt: opt, meter: progress.From(ctx),
		stats: ScanStats{BatchesSkipped: skipped}}
	if s.meter != nil {
		var rows uint64
		for _, sp := range spans {
			rows += sp[1] - sp[0]
		}
		s.meter.WillRead(int64(rows))
	}
	if len(spans) > 0 {
		s.next = spans[0][0]
	}
	s.refs.Store(1)
	return s, nil
}

// selectRanges checks opt.Ranges against the snapshot.
func (t *Table) selectRanges(opt ScanOptions) ([]*Fragment, [][2]uint64, error) {
	if opt.Fragments != nil {
		return nil, nil, errorf(ErrInvalidArgument, "scan: both Fragments and Ranges set")
	}
	frags := make([]*Fragment, len(opt.Ranges))
	spans := make([][2]uint64, len(opt.Ranges))
	for i, r := range opt.Ranges {
		f := t.m.Fragment(r.Fragment)
		if f == nil {
			return nil, nil, errorf(ErrInvalidArgument, "no fragment %d in version %d", r.Fragment, t.m.Version)
		}
		if r.Start > r.End || r.End > f.PhysicalRows || r.Start%f.BatchRows != 0 || (r.End%f.BatchRows != 0 && r.End != f.PhysicalRows) {
			return nil, nil, errorf(ErrInvalidArgument, "scan: range [%d, %d) of fragment %d (%d rows in batches of %d) is not whole batches",
				r.Start, r.End, r.Fragment, f.PhysicalRows, f.BatchRows)
		}
		frags[i], spans[i] = f, [2]uint64{r.Start, r.End}
	}
	return frags, spans, nil
}

// ScanColumns is Scan in the shape index builders consume.
func (t *Table) ScanColumns(ctx context.Context, columns []string, fragments []uint32, mem memory.Allocator) (array.RecordReader, error) {
	if fragments == nil {
		fragments = []uint32{}
	}
	return t.Scan(ctx, ScanOptions{Columns: columns, Fragments: fragments, Mem: mem})
}

func (t *Table) selectFragments(ids []uint32) ([]*Fragment, error) {
	if ids == nil {
		return t.m.Fragments, nil
	}
	out := make([]*Fragment, 0, len(ids))
	seen := map[uint32]bool{}
	for _, id := range ids {
		f := t.m.Fragment(id)
		if f == nil {
			return nil, errorf(ErrInvalidArgument, "no fragment %d in version %d", id, t.m.Version)
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, f)
		}
	}
	return out, nil
}

func (s *Scanner) Schema() *arrow.Schema { return s.p.schema }
func (s *Scanner) Err() error            { return s.err }
func (s *Scanner) Retain()               { s.refs.Add(1) }
func (s *Scanner) Release() {
	if s.refs.Add(-1) == 0 {
		s.closeAll()
	}
}

// Stats is what the scan has read so far, and the batches it skips.
func (s *Scanner) Stats() ScanStats { return s.stats }

// RecordBatch is the current batch.
func (s *Scanner) RecordBatch() arrow.RecordBatch { return s.cur }

// Record is the deprecated name of RecordBatch.
func (s *Scanner) Record() arrow.RecordBatch { return s.cur }

func (s *Scanner) closeAll() {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.d != nil {
		s.d.Close()
		s.d = nil
	}
}

// Next advances to the next non-empty batch.
func (s *Scanner) Next() bool {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	for s.err == nil && s.fi < len(s.frags) {
		if err := s.ctx.Err(); err != nil {
			s.err = err
			break
		}
		f, end := s.frags[s.fi], s.spans[s.fi][1]
		if s.next >= end {
			if s.d != nil && (s.fi+1 == len(s.frags) || s.frags[s.fi+1] != f) {
				s.d.Close()
				s.d = nil
			}
			s.fi++
			if s.fi < len(s.spans) {
				s.next = s.spans[s.fi][0]
			}
			continue
		}
		b, err := s.read(f, end)
		if err != nil {
			s.err = err
			break
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		s.cur = b
		return true
	}
	s.closeAll()
	return false
}

// read produces the batch starting at s.next of f (before end) and
// advances.
func (s *Scanner) read(f *Fragment, end uint64) (arrow.RecordBatch, error) {
	var data []arrow.Array // the user columns p.cols of the batch
	var n uint64
	start := s.next
	if s.p.user {
		if s.d == nil {
			d, err := s.t.openData(s.ctx, f, s.mem)
			if err != nil {
				return nil, err
			}
			s.d = d
		}
		bi := int(start / f.BatchRows)
		cs, rows, err := s.d.batch(bi, s.p.cols, s.data)
		if err != nil {
			return nil, err
		}
		s.stats.BatchesRead++
		s.stats.BytesRead += int64(s.d.bytesOf(bi, s.p.cols))
		s.data, data, n = cs, cs, uint64(rows)
		defer releaseAll(data)
	} else {
		n = min(systemBatchRows, end-start)
	}
	s.next += n
	s.meter.Read(int64(n)) // physical rows, as WillRead counted them
	// The output batch copies the column slice: s.cols is scratch.
	cols := slices.Grow(s.cols[:0], len(s.p.src))[:len(s.p.src)]
	clear(cols)
	s.cols = cols
	defer releaseAll(cols)
	for i, at := range s.p.at {
		if at >= 0 {
			cols[i] = data[at]
			cols[i].Retain()
		} else {
			cols[i] = systemColumn(s.mem, f, s.p.names[i], start, n)
		}
	}
	out := array.NewRecordBatch(s.p.schema, cols, int64(n))
	if s.opt.WithDeleted {
		return out, nil
	}
	dead := deadIn(f, start, n)
	if dead == 0 {
		return out, nil
	}
	defer out.Release()
	if dead == n {
		return emptyBatch(s.mem, s.p.schema), nil
	}
	mask := liveMask(s.mem, f, start, n)
	defer mask.Release()
	ctx := compute.WithAllocator(s.ctx, s.mem)
	res, err := compute.FilterRecordBatch(ctx, out, mask, compute.DefaultFilterOptions())
	if err != nil {
		return nil, fmt.Errorf("table: filter deleted rows: %w", err)
	}
	return res, nil
}

// releaseAll releases the non-nil arrays of as.
func releaseAll(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

// deadIn counts deleted offsets in [start, start+n).
func deadIn(f *Fragment, start, n uint64) uint64 {
	bm := f.Deletions.Bitmap()
	if bm == nil || bm.IsEmpty() {
		return 0
	}
	return bm.Rank(uint32(start+n-1)) - rankBefore(bm, start)
}

func rankBefore(bm *roaring.Bitmap, start uint64) uint64 {
	if start == 0 {
		return 0
	}
	return bm.Rank(uint32(start - 1))
}

func liveMask(mem memory.Allocator, f *Fragment, start, n uint64) *array.Boolean {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.Reserve(int(n))
	for i := uint64(0); i < n; i++ {
		b.UnsafeAppend(!f.Deletions.Contains(uint32(start + i)))
	}
	return b.NewBooleanArray()
}

func emptyBatch(mem memory.Allocator, s *arrow.Schema) arrow.RecordBatch {
	cols := make([]arrow.Array, s.NumFields())
	for i, f := range s.Fields() {
		cols[i] = array.MakeArrayOfNull(mem, f.Type, 0)
	}
	b := array.NewRecordBatch(s, cols, 0)
	for _, c := range cols {
		c.Release()
	}
	return b
}
