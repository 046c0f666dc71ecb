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
type ScanExec struct {
	t         *table.Table
	columns   []string
	fragments []uint32 // nil: all
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
	return fmt.Sprintf("ScanExec: version=%d, columns=[%s], fragments=%s", s.t.Version(), strings.Join(s.columns, ", "), frags)
}

func (s *ScanExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	sc, err := s.t.Scan(ctx, table.ScanOptions{Columns: s.columns, Fragments: s.fragments, Mem: tc.mem()})
	if err != nil {
		return nil, fmt.Errorf("exec: scan: %w", err)
	}
	return &scanStream{n: s, sc: sc}, nil
}

type scanStream struct {
	n  *ScanExec
	sc *table.Scanner
}

func (s *scanStream) Schema() *arrow.Schema { return s.n.schema }

func (s *scanStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.sc == nil {
		return nil, ErrClosed
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
		s.sc.Release()
		s.sc = nil
	}
	return nil
}
