package fileio

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/exec"
)

// ReadParquetExec is read_parquet('file') in FROM: a leaf node streaming a
// Parquet file's rows in the engine's types, or the files a glob matched,
// one after the other. The schema was read from the files' footers at
// plan time; Execute opens each file again under the policy and refuses
// it if its schema changed since.
type ReadParquetExec struct {
	paths   []string
	schema  *arrow.Schema
	policy  Policy
	metrics exec.Metrics
}

// NewReadParquetExec returns the node; schema is the plan-time schema and
// paths the files in the order read.
func NewReadParquetExec(paths []string, schema *arrow.Schema, policy Policy) *ReadParquetExec {
	return &ReadParquetExec{paths: paths, schema: schema, policy: policy}
}

func (n *ReadParquetExec) Name() string                { return "ReadParquetExec" }
func (n *ReadParquetExec) Schema() *arrow.Schema       { return n.schema }
func (n *ReadParquetExec) Children() []exec.Node       { return nil }
func (n *ReadParquetExec) Properties() exec.Properties { return exec.Properties{} }
func (n *ReadParquetExec) Metrics() *exec.Metrics      { return &n.metrics }
func (n *ReadParquetExec) String() string {
	return "ReadParquetExec: " + filesText(n.paths)
}

// filesText renders a node's files for EXPLAIN: the one file, or the
// count and the first and last of a glob's.
func filesText(paths []string) string {
	if len(paths) == 1 {
		return "file=" + strconv.Quote(paths[0])
	}
	q := make([]string, 0, 2)
	q = append(q, strconv.Quote(paths[0]), strconv.Quote(paths[len(paths)-1]))
	return fmt.Sprintf("files=%d [%s]", len(paths), strings.Join(q, " .. "))
}

// Execute returns the stream; no file is opened before the first Next.
func (n *ReadParquetExec) Execute(ctx context.Context, tc *exec.TaskContext) (exec.Stream, error) {
	batch := tc.BatchSize
	if batch <= 0 {
		batch = exec.DefaultBatchSize
	}
	s := &parquetStream{n: n, tc: tc, batch: batch}
	// The first file is opened now, so a missing file or a changed schema
	// fails Execute as it did for one file.
	if err := s.open(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// sameColumns compares the column types by position (the plan's names may
// be the query's aliases).
func sameColumns(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i := range a.Fields() {
		if !arrow.TypeEqual(a.Field(i).Type, b.Field(i).Type) {
			return false
		}
	}
	return true
}

// parquetStream reads the node's files in order, one open at a time.
type parquetStream struct {
	n     *ReadParquetExec
	tc    *exec.TaskContext
	batch int
	next  int // index of the next file to open
	r     *ParquetReader
	path  string
}

func (s *parquetStream) open(ctx context.Context) error {
	s.path = s.n.paths[s.next]
	s.next++
	f, err := s.n.policy.Open(s.path)
	if err != nil {
		return err
	}
	r, err := NewParquetReader(ctx, f, s.tc.Mem, s.batch)
	if err != nil {
		return fmt.Errorf("read_parquet(%q): %w", s.path, err)
	}
	if !sameColumns(r.Schema(), s.n.schema) {
		r.Close()
		return fmt.Errorf("%w: read_parquet(%q): the file's columns changed since the query was planned", ErrSchema, s.path)
	}
	s.r = r
	return nil
}

func (s *parquetStream) Schema() *arrow.Schema { return s.n.schema }
func (s *parquetStream) Close() error {
	if s.r == nil {
		return nil
	}
	err := s.r.Close()
	s.r = nil
	return err
}

func (s *parquetStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	for {
		if s.r == nil {
			if s.next >= len(s.n.paths) {
				return nil, io.EOF
			}
			if err := s.open(ctx); err != nil {
				return nil, err
			}
		}
		b, err := s.r.Next(ctx)
		if err == io.EOF {
			if err := s.Close(); err != nil {
				return nil, fmt.Errorf("read_parquet(%q): %w", s.path, err)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read_parquet(%q): %w", s.path, err)
		}
		out := newBatch(s.n.schema, b.Columns(), b.NumRows())
		b.Release()
		s.n.metrics.OutputRows.Add(out.NumRows())
		s.n.metrics.OutputBatches.Add(1)
		s.n.metrics.ElapsedCompute.Add(int64(time.Since(start)))
		return out, nil
	}
}
