package exec_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/internal/arrowtest"
)

// TestCrossExecMatchesNestedLoop: CrossExec's rows are the nested loop
// join's with no condition (the oracle: every pair tested), as a
// multiset, for INNER and RIGHT (ON TRUE), over left inputs of 0, 1 and
// 57 rows in batches of 1, 5 and 64, and right inputs of 0, 1 and 9 rows
// with NULLs; a RIGHT join over an empty left is the right rows with NULL
// left columns. The left batch's columns are shared, not copied. Arrow
// memory is checked (exectest.Mem).
func TestCrossExecMatchesNestedLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 67))
	for _, nl := range []int{0, 1, 57} {
		for _, nr := range []int{0, 1, 9} {
			for _, chunk := range []int{1, 5, 64} {
				for _, typ := range []exec.JoinType{exec.JoinInner, exec.JoinRight} {
					left, right := arrowtest.RandRows(r, nl), arrowtest.RandRows(r, nr)
					mem := exectest.Mem(t)
					tc := &exec.TaskContext{Mem: mem, BatchSize: 16}
					nlj, err := exec.NewNestedLoopJoinExec(newParts([][][]any{left}, chunk), newParts([][][]any{right}, 4), typ, nil)
					if err != nil {
						t.Fatal(err)
					}
					want := collectRows(t, nlj, tc)
					cross, err := exec.NewCrossExec(newParts([][][]any{left}, chunk), newParts([][][]any{right}, 4), typ)
					if err != nil {
						t.Fatal(err)
					}
					if !cross.Schema().Equal(nlj.Schema()) {
						t.Fatalf("schema %s, want %s", cross.Schema(), nlj.Schema())
					}
					got := collectRows(t, cross, tc)
					if g, w := sortedRows(got), sortedRows(want); !slices.Equal(g, w) {
						t.Fatalf("%s, %d x %d rows, batches of %d:\n got %v\nwant %v", typ, nl, nr, chunk, g, w)
					}
					if m := cross.Metrics(); m.OutputRows.Load() != int64(len(want)) {
						t.Fatalf("output_rows %d, want %d", m.OutputRows.Load(), len(want))
					}
				}
			}
		}
	}
}

// TestCrossExecSharesLeftColumns: an output batch's left columns are the
// left batch's own arrays (the point of CrossExec over the nested loop's
// gather), and a right input beyond MaxCrossRows is ErrCrossTooLarge.
func TestCrossExecSharesLeftColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 68))
	mem := exectest.Mem(t)
	tc := &exec.TaskContext{Mem: mem, BatchSize: 16}
	left := &onceNode{rows: arrowtest.RandRows(r, 10)}
	cross, err := exec.NewCrossExec(left, newParts([][][]any{arrowtest.RandRows(r, 3)}, 4), exec.JoinInner)
	if err != nil {
		t.Fatal(err)
	}
	s, err := cross.Execute(context.Background(), tc)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		b, err := s.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if b.Column(1).Data() != left.sent.Column(1).Data() {
			t.Error("the left column was copied, not shared")
		}
		b.Release()
	}
	s.Close()
	left.sent.Release()

	big := make([][]any, exec.MaxCrossRows+1)
	for i := range big {
		big[i] = []any{int64(i), nil}
	}
	cross, err = exec.NewCrossExec(newParts([][][]any{arrowtest.RandRows(r, 2)}, 4), newParts([][][]any{big}, 1000), exec.JoinRight)
	if err != nil {
		t.Fatal(err)
	}
	s, err = cross.Execute(context.Background(), tc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(context.Background()); !errors.Is(err, exec.ErrCrossTooLarge) {
		t.Fatalf("%d right rows: %v, want ErrCrossTooLarge", len(big), err)
	}
	s.Close()
	if _, err := exec.NewCrossExec(cross, cross, exec.JoinLeft); err == nil {
		t.Fatal("a LEFT cross product was accepted")
	}
}

// onceNode emits its rows as one batch, which it keeps (retained) in
// sent for the test to compare against.
type onceNode struct {
	rows [][]any
	sent arrow.RecordBatch
	m    exec.Metrics
}

func (n *onceNode) Name() string                { return "onceNode" }
func (n *onceNode) Schema() *arrow.Schema       { return arrowtest.KVSchema }
func (n *onceNode) Children() []exec.Node       { return nil }
func (n *onceNode) Properties() exec.Properties { return exec.Properties{} }
func (n *onceNode) Metrics() *exec.Metrics      { return &n.m }
func (n *onceNode) String() string              { return "onceNode" }
func (n *onceNode) Execute(ctx context.Context, tc *exec.TaskContext) (exec.Stream, error) {
	b, err := exectest.Batch(tc.Mem, arrowtest.KVSchema, n.rows)
	if err != nil {
		return nil, err
	}
	b.Retain()
	n.sent = b
	return &onceStream{b: b}, nil
}

type onceStream struct{ b arrow.RecordBatch }

func (s *onceStream) Schema() *arrow.Schema { return arrowtest.KVSchema }
func (s *onceStream) Next(context.Context) (arrow.RecordBatch, error) {
	if s.b == nil {
		return nil, io.EOF
	}
	b := s.b
	s.b = nil
	return b, nil
}
func (s *onceStream) Close() error {
	if s.b != nil {
		s.b.Release()
		s.b = nil
	}
	return nil
}
