package exec

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/table"
)

// ScanExec reads columns of a table snapshot (system columns included),
// optionally only some fragments. Output is in fragment id, then physical
// offset order, which is _rowaddr ascending.
//
// Partitioned (WithPartitions), the fragments' data file batches are cut
// into contiguous runs of about equal rows, one per partition (a run may
// start or end inside a fragment, so a one-fragment table scans in
// parallel too): partition i's rows all come before partition i+1's, so
// concatenating the partitions in order is the unpartitioned output
// (SortPreservingMergeExec's tie-break relies on it).
type ScanExec struct {
	t         *table.Table
	columns   []string
	fragments []uint32                // nil: all
	parts     [][]table.FragmentRange // partitioned: the row ranges of each partition
	where     []table.ZonePred        // batches whose zone maps rule these out are skipped
	schema    *arrow.Schema
	metrics   Metrics
}

// NewScanExec scans the named columns (nil: user columns) of t.
func NewScanExec(t *table.Table, columns []string, fragments []uint32) (*ScanExec, error) {
	sc, err := t.Scan(context.Background(), table.ScanOptions{Columns: columns, Fragments: fragments})
	if err != nil {
		return nil, fmt.Errorf("exec: scan: %w", err)
	}
	schema := sc.Schema()
	sc.Release()
	if columns == nil {
		for _, f := range schema.Fields() {
			columns = append(columns, f.Name)
		}
	}
	return &ScanExec{t: t, columns: columns, fragments: fragments, schema: schema}, nil
}

// WithWhere is the scan skipping the data file batches whose zone maps
// prove that no row satisfies one of preds (table.ScanOptions.Where); it
// still returns every row of the batches it reads, so the filter stays
// above it.
func (s *ScanExec) WithWhere(preds []table.ZonePred) *ScanExec {
	return &ScanExec{t: s.t, columns: s.columns, fragments: s.fragments, parts: s.parts, where: preds, schema: s.schema}
}

func (s *ScanExec) Name() string          { return "ScanExec" }
func (s *ScanExec) Schema() *arrow.Schema { return s.schema }
func (s *ScanExec) Children() []Node      { return nil }
func (s *ScanExec) Metrics() *Metrics     { return &s.metrics }

// Properties: ordered by _rowaddr when it is projected.
func (s *ScanExec) Properties() Properties {
	for i, c := range s.columns {
		if c == table.RowAddr {
			return Properties{Ordering: []SortKey{{Column: i, Name: c}}}
		}
	}
	return Properties{}
}

func (s *ScanExec) String() string {
	frags := "all"
	if s.fragments != nil {
		frags = fmt.Sprint(s.fragments)
	}
	out := fmt.Sprintf("ScanExec: version=%d, columns=[%s], fragments=%s", s.t.Version(), strings.Join(s.columns, ", "), frags)
	if len(s.parts) > 1 {
		out += fmt.Sprintf(", partitions=%d", len(s.parts))
	}
	// The zone predicates are not shown: the FilterExec above shows the
	// condition, and EXPLAIN ANALYZE the batches they skipped
	// (batches_skipped, counted only for a scan given some).
	return out
}

// WithPartitions is the scan split into at most n partitions of
// contiguous whole batches balanced by physical rows (fewer when there are
// fewer batches; s itself when that is one).
func (s *ScanExec) WithPartitions(n int) *ScanExec {
	frags := s.t.Manifest().Fragments
	if s.fragments != nil {
		frags = frags[:0:0]
		seen := map[uint32]bool{}
		for _, id := range s.fragments {
			if f := s.t.Manifest().Fragment(id); f != nil && !seen[id] {
				seen[id] = true
				frags = append(frags, f)
			}
		}
	}
	var total, batches uint64
	for _, f := range frags {
		total += f.PhysicalRows
		if f.PhysicalRows > 0 {
			batches += (f.PhysicalRows + f.BatchRows - 1) / f.BatchRows
		}
	}
	n = int(min(uint64(max(n, 1)), batches))
	if n <= 1 {
		return s
	}
	parts := make([][]table.FragmentRange, 1, n)
	var acc uint64
	left := batches // not yet placed
	for _, f := range frags {
		for start := uint64(0); start < f.PhysicalRows; start += f.BatchRows {
			end := min(start+f.BatchRows, f.PhysicalRows)
			// Open the next partition once this one has its share of the
			// rows, or when each partition still to open needs one of
			// the batches left (never leaving one empty).
			cur := &parts[len(parts)-1]
			need := uint64(n - len(parts))
			if len(*cur) > 0 && need > 0 && (acc*uint64(n) >= total*uint64(len(parts)) || left == need) {
				parts = append(parts, nil)
				cur = &parts[len(parts)-1]
			}
			if k := len(*cur); k > 0 && (*cur)[k-1].Fragment == f.ID && (*cur)[k-1].End == start {
				(*cur)[k-1].End = end
			} else {
				*cur = append(*cur, table.FragmentRange{Fragment: f.ID, Start: start, End: end})
			}
			acc += end - start
			left--
		}
	}
	if len(parts) <= 1 {
		return s
	}
	return &ScanExec{t: s.t, columns: s.columns, fragments: s.fragments, parts: parts, where: s.where, schema: s.schema}
}

// OutputPartitions is the number of fragment runs (1 unpartitioned).
func (s *ScanExec) OutputPartitions() int { return max(len(s.parts), 1) }

// ExecutePartitions scans each partition's fragments.
func (s *ScanExec) ExecutePartitions(ctx context.Context, tc *TaskContext) ([]Stream, error) {
	if len(s.parts) <= 1 {
		st, err := s.Execute(ctx, tc)
		if err != nil {
			return nil, err
		}
		return []Stream{st}, nil
	}
	out := make([]Stream, 0, len(s.parts))
	for _, ranges := range s.parts {
		sc, err := s.t.Scan(ctx, table.ScanOptions{Columns: s.columns, Ranges: ranges, Mem: tc.Allocator(), Where: s.where})
		if err != nil {
			closeStreams(out)
			return nil, fmt.Errorf("exec: scan: %w", err)
		}
		out = append(out, &scanStream{n: s, sc: sc, tc: tc})
	}
	return out, nil
}

func (s *ScanExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	sc, err := s.t.Scan(ctx, table.ScanOptions{Columns: s.columns, Fragments: s.fragments, Mem: tc.Allocator(), Where: s.where})
	if err != nil {
		return nil, fmt.Errorf("exec: scan: %w", err)
	}
	return &scanStream{n: s, sc: sc, tc: tc}, nil
}

type scanStream struct {
	n  *ScanExec
	sc *table.Scanner
	tc *TaskContext
}

func (s *scanStream) Schema() *arrow.Schema { return s.n.schema }

func (s *scanStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.sc == nil {
		return nil, ErrClosed
	}
	if err := s.tc.pass(ctx); err != nil {
		return nil, err
	}
	start := time.Now()
	defer func() { s.n.metrics.ElapsedCompute.Add(int64(time.Since(start))) }()
	if !s.sc.Next() {
		if err := s.sc.Err(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	b := s.sc.RecordBatch()
	b.Retain() // the scanner releases its current batch on the next call
	s.n.metrics.OutputRows.Add(b.NumRows())
	s.n.metrics.OutputBatches.Add(1)
	return b, nil
}

func (s *scanStream) Close() error {
	if s.sc != nil {
		s.count()
		s.sc.Release()
		s.sc = nil
	}
	return nil
}

// count adds the scanner's own figures to the node's metrics (EXPLAIN
// ANALYZE shows them): data file batches read and skipped by zone maps,
// and the data file bytes read.
func (s *scanStream) count() {
	st := s.sc.Stats()
	m := &s.n.metrics
	m.Add("batches_read", st.BatchesRead)
	m.Add("bytes_read", st.BytesRead)
	if len(s.n.where) > 0 {
		m.Add("batches_skipped", st.BatchesSkipped)
	}
}
