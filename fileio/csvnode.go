package fileio

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/exec"
)

// ReadCSVExec is read_csv('file') in FROM: a leaf node streaming CSV files
// (one, or a glob's, in order) as batches of the plan-time schema, which
// the sniffer (or the query's names and types) gave. Memory is one batch:
// a file is read as it is consumed, never whole. A value that does not
// fit its column is an error naming the file, line and column.
type ReadCSVExec struct {
	paths   []string
	schema  *arrow.Schema
	opt     Options
	policy  Policy
	metrics exec.Metrics
}

// NewReadCSVExec returns the node; opt is the sniffed (or given) dialect.
func NewReadCSVExec(paths []string, schema *arrow.Schema, opt Options, policy Policy) *ReadCSVExec {
	return &ReadCSVExec{paths: paths, schema: schema, opt: opt, policy: policy}
}

func (n *ReadCSVExec) Name() string                { return "ReadCSVExec" }
func (n *ReadCSVExec) Schema() *arrow.Schema       { return n.schema }
func (n *ReadCSVExec) Children() []exec.Node       { return nil }
func (n *ReadCSVExec) Properties() exec.Properties { return exec.Properties{} }
func (n *ReadCSVExec) Metrics() *exec.Metrics      { return &n.metrics }
func (n *ReadCSVExec) String() string {
	return "ReadCSVExec: " + filesText(n.paths)
}

// Execute opens the first file (a missing one fails here).
func (n *ReadCSVExec) Execute(ctx context.Context, tc *exec.TaskContext) (exec.Stream, error) {
	batch := tc.BatchSize
	if batch <= 0 {
		batch = exec.DefaultBatchSize
	}
	s := &csvStream{n: n, tc: tc, batch: batch}
	if err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}

type csvStream struct {
	n     *ReadCSVExec
	tc    *exec.TaskContext
	batch int
	next  int
	r     *CSVReader
	path  string
}

func (s *csvStream) open() error {
	s.path = s.n.paths[s.next]
	s.next++
	f, err := s.n.policy.Open(s.path)
	if err != nil {
		return err
	}
	r, err := NewCSVReader(f, s.n.schema, s.n.opt, s.tc.Mem, s.batch)
	if err != nil {
		f.Close()
		return fmt.Errorf("read_csv(%q): %w", s.path, err)
	}
	s.r = r
	return nil
}

func (s *csvStream) Schema() *arrow.Schema { return s.n.schema }
func (s *csvStream) Close() error {
	if s.r == nil {
		return nil
	}
	err := s.r.Close()
	s.r = nil
	return err
}

func (s *csvStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	for {
		if s.r == nil {
			if s.next >= len(s.n.paths) {
				return nil, io.EOF
			}
			if err := s.open(); err != nil {
				return nil, err
			}
		}
		b, err := s.r.Next(ctx)
		if err == io.EOF {
			if err := s.Close(); err != nil {
				return nil, fmt.Errorf("read_csv(%q): %w", s.path, err)
			}
			continue
		}
		if err != nil {
			// The reader's error names the line and column; this names the file.
			return nil, fmt.Errorf("read_csv(%q): %w", s.path, err)
		}
		s.n.metrics.OutputRows.Add(b.NumRows())
		s.n.metrics.OutputBatches.Add(1)
		s.n.metrics.ElapsedCompute.Add(int64(time.Since(start)))
		return b, nil
	}
}
