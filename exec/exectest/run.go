package exectest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
)

// Input is one operator input given as rows of Go values.
type Input struct {
	Schema *arrow.Schema
	Rows   [][]any
}

// Case is an operator under test: Build gets one ValuesExec per Input.
type Case struct {
	Inputs  []Input
	Build   func(in []exec.Node) (exec.Node, error)
	Params  map[int]any
	Want    [][]any
	Ordered bool // compare in order; otherwise as multisets
}

// ChunkSizes are the input re-chunkings every case is run with.
var ChunkSizes = []int{1, 2, 7, 1024}

// Run executes c for every chunk size, with plain and with padded inputs
// (sliced back with NewSlice so offsets are non-zero), and output batch sizes
// of the same values, checking results and leaks each time.
func Run(t *testing.T, c Case) {
	t.Helper()
	for _, chunk := range ChunkSizes {
		for _, padded := range []bool{false, true} {
			t.Run(fmt.Sprintf("chunk=%d/padded=%v", chunk, padded), func(t *testing.T) {
				mem := Mem(t)
				got, err := runOnce(mem, c, chunk, padded)
				if err != nil {
					t.Fatal(err)
				}
				want := c.Want
				if !c.Ordered {
					got, want = sortRows(got), sortRows(want)
				}
				if len(got) == 0 && len(want) == 0 {
					return
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("rows mismatch\n got: %v\nwant: %v", got, want)
				}
			})
		}
	}
}

func runOnce(mem memory.Allocator, c Case, chunk int, padded bool) ([][]any, error) {
	var nodes []exec.Node
	var vals []*exec.ValuesExec
	defer func() {
		for _, v := range vals {
			v.Release()
		}
	}()
	for _, in := range c.Inputs {
		bs, err := Chunk(mem, in.Schema, in.Rows, chunk, padded)
		if err != nil {
			return nil, err
		}
		v, err := exec.NewValuesExec(in.Schema, bs)
		for _, b := range bs {
			b.Release()
		}
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		nodes = append(nodes, v)
	}
	n, err := c.Build(nodes)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	s, err := n.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: chunk, Params: c.Params})
	if err != nil {
		return nil, err
	}
	out, err := exec.Collect(ctx, s)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, b := range out {
			b.Release()
		}
	}()
	for _, b := range out {
		if !b.Schema().Equal(n.Schema()) {
			return nil, fmt.Errorf("exectest: batch schema %s != node schema %s", b.Schema(), n.Schema())
		}
		if b.NumRows() > int64(chunk) && chunk > 0 {
			// Operators must respect BatchSize.
			return nil, fmt.Errorf("exectest: batch of %d rows exceeds BatchSize %d", b.NumRows(), chunk)
		}
	}
	return Rows(out...)
}

// Chunk splits rows into batches of size rows; when padded each batch is built
// with one extra row on both sides and sliced back, so its offset is 1.
func Chunk(mem memory.Allocator, schema *arrow.Schema, rows [][]any, size int, padded bool) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	for lo := 0; lo < len(rows); lo += size {
		part := rows[lo:min(len(rows), lo+size)]
		if padded {
			p := make([][]any, 0, len(part)+2)
			p = append(p, part[0])
			p = append(p, part...)
			p = append(p, part[len(part)-1])
			part = p
		}
		b, err := Batch(mem, schema, part)
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			return nil, err
		}
		if padded {
			s := b.NewSlice(1, b.NumRows()-1)
			b.Release()
			b = s
		}
		out = append(out, b)
	}
	return out, nil
}

func sortRows(rows [][]any) [][]any {
	keyed := make([]string, len(rows))
	idx := make([]int, len(rows))
	for i, r := range rows {
		keyed[i] = fmt.Sprintf("%#v", r)
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case keyed[a] < keyed[b]:
			return -1
		case keyed[a] > keyed[b]:
			return 1
		}
		return 0
	})
	out := make([][]any, len(rows))
	for i, j := range idx {
		out[i] = rows[j]
	}
	return out
}
