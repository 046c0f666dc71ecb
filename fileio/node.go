package fileio

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/exec"
)

// ReadParquetExec is read_parquet('file') in FROM: a leaf node streaming a
// Parquet file's rows in the engine's types. Its schema was read from the
// file's footer at plan time; Execute opens the file again under the
// policy and refuses it if the schema changed since.
type ReadParquetExec struct {
	path    string
	schema  *arrow.Schema
	policy  Policy
	metrics exec.Metrics
}

// NewReadParquetExec returns the node; schema is the plan-time schema.
func NewReadParquetExec(path string, schema *arrow.Schema, policy Policy) *ReadParquetExec {
	return &ReadParquetExec{path: path, schema: schema, policy: policy}
}

func (n *ReadParquetExec) Name() string                { return "ReadParquetExec" }
func (n *ReadParquetExec) Schema() *arrow.Schema       { return n.schema }
func (n *ReadParquetExec) Children() []exec.Node       { return nil }
func (n *ReadParquetExec) Properties() exec.Properties { return exec.Properties{} }
func (n *ReadParquetExec) Metrics() *exec.Metrics      { return &n.metrics }
func (n *ReadParquetExec) String() string {
	return "ReadParquetExec: file=" + strconv.Quote(n.path)
}

// Execute opens the file; no rows are read before the first Next.
func (n *ReadParquetExec) Execute(ctx context.Context, tc *exec.TaskContext) (exec.Stream, error) {
	f, err := n.policy.Open(n.path)
	if err != nil {
		return nil, err
	}
	batch := tc.BatchSize
	if batch <= 0 {
		batch = exec.DefaultBatchSize
	}
	r, err := NewParquetReader(ctx, f, tc.Mem, batch)
	if err != nil {
		return nil, fmt.Errorf("read_parquet(%q): %w", n.path, err)
	}
	if !sameColumns(r.Schema(), n.schema) {
		r.Close()
		return nil, fmt.Errorf("%w: read_parquet(%q): the file's columns changed since the query was planned", ErrSchema, n.path)
	}
	return &parquetStream{n: n, r: r}, nil
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

type parquetStream struct {
	n *ReadParquetExec
	r *ParquetReader
}

func (s *parquetStream) Schema() *arrow.Schema { return s.n.schema }
func (s *parquetStream) Close() error          { return s.r.Close() }

func (s *parquetStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	b, err := s.r.Next(ctx)
	if err != nil {
		if err != io.EOF {
			err = fmt.Errorf("read_parquet(%q): %w", s.n.path, err)
		}
		return nil, err
	}
	out := newBatch(s.n.schema, b.Columns(), b.NumRows())
	b.Release()
	s.n.metrics.OutputRows.Add(out.NumRows())
	s.n.metrics.OutputBatches.Add(1)
	s.n.metrics.ElapsedCompute.Add(int64(time.Since(start)))
	return out, nil
}
