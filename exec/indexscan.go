package exec

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/table"
)

// IndexScanExec reads the rows at the addresses an index search returns
// (resolved when the stream starts, so the plan stays immutable), in
// address order, batch by batch through the table's take.
type IndexScanExec struct {
	t       *table.Table
	columns []string
	lookup  func(ctx context.Context) ([]uint64, error)
	desc    string
	schema  *arrow.Schema
	metrics Metrics
}

// NewIndexScanExec reads columns of t at the live addresses lookup
// returns; desc names the search for EXPLAIN.
func NewIndexScanExec(t *table.Table, columns []string, lookup func(ctx context.Context) ([]uint64, error), desc string) (*IndexScanExec, error) {
	sc, err := NewScanExec(t, columns, []uint32{})
	if err != nil {
		return nil, err
	}
	return &IndexScanExec{t: t, columns: columns, lookup: lookup, desc: desc, schema: sc.Schema()}, nil
}

func (n *IndexScanExec) Name() string           { return "IndexScanExec" }
func (n *IndexScanExec) Schema() *arrow.Schema  { return n.schema }
func (n *IndexScanExec) Children() []Node       { return nil }
func (n *IndexScanExec) Metrics() *Metrics      { return &n.metrics }
func (n *IndexScanExec) Properties() Properties { return Properties{} }
func (n *IndexScanExec) String() string {
	return fmt.Sprintf("IndexScanExec: %s, columns=[%s], version=%d", n.desc, strings.Join(n.columns, ", "), n.t.Version())
}

func (n *IndexScanExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	return &indexScanStream{n: n, tc: tc}, nil
}

type indexScanStream struct {
	n      *IndexScanExec
	tc     *TaskContext
	addrs  []uint64
	next   int
	looked bool
}

func (s *indexScanStream) Schema() *arrow.Schema { return s.n.schema }
func (s *indexScanStream) Close() error          { s.addrs = nil; return nil }

func (s *indexScanStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	defer func() { s.n.metrics.ElapsedCompute.Add(int64(time.Since(start))) }()
	if !s.looked {
		s.looked = true
		a, err := s.n.lookup(ctx)
		if err != nil {
			return nil, fmt.Errorf("exec: index scan: %w", err)
		}
		slices.Sort(a)
		s.addrs = slices.Compact(a)
		s.n.metrics.Add("addresses", int64(len(s.addrs)))
	}
	if s.next >= len(s.addrs) {
		return nil, io.EOF
	}
	end := min(len(s.addrs), s.next+s.tc.RowsPerBatch())
	b, err := s.n.t.Take(ctx, s.addrs[s.next:end], nil, s.n.columns, s.tc.Allocator())
	if err != nil {
		return nil, fmt.Errorf("exec: index scan: %w", err)
	}
	s.next = end
	s.n.metrics.OutputRows.Add(b.NumRows())
	s.n.metrics.OutputBatches.Add(1)
	return b, nil
}
