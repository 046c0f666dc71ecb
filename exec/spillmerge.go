package exec

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/value"
)

// kwayMerge merges sorted runs into one sorted stream, a batch at a time.
// It holds one batch per run (plus the pieces of the batch it is
// building), so its memory is runs × batch size, not the input's size.
// Ties go to the earlier run: runs are cut from the input in order, so the
// merge is stable, as SortExec promises.
type kwayMerge struct {
	schema *arrow.Schema
	keys   []SortKey
	mem    memory.Allocator
	h      cursorHeap
	all    []*mergeCursor // every cursor, for close
}

type mergeCursor struct {
	run   int // index of the run: the tie-breaker
	src   runSource
	b     arrow.RecordBatch // current batch; nil when the run is done
	row   int
	cols  []arrow.Array // b's key columns
	piece int           // b's index in the output being built, -1 if none
}

func newKWayMerge(ctx context.Context, schema *arrow.Schema, keys []SortKey, mem memory.Allocator, runs []runSource) (*kwayMerge, error) {
	m := &kwayMerge{schema: schema, keys: keys, mem: mem}
	for i, r := range runs {
		c := &mergeCursor{run: i, src: r, piece: -1}
		m.all = append(m.all, c)
		ok, err := m.advance(ctx, c)
		if err != nil {
			m.close()
			return nil, err
		}
		if ok {
			m.h.cs = append(m.h.cs, c)
		}
	}
	m.h.keys = keys
	heap.Init(&m.h)
	return m, nil
}

// advance loads c's next non-empty batch; false when the run is done.
func (m *kwayMerge) advance(ctx context.Context, c *mergeCursor) (bool, error) {
	if c.b != nil {
		c.b.Release()
		c.b = nil
	}
	c.piece = -1
	for {
		b, err := c.src.next(ctx)
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		c.b, c.row = b, 0
		c.cols = c.cols[:0]
		for _, k := range m.keys {
			c.cols = append(c.cols, b.Column(k.Column))
		}
		return true, nil
	}
}

// pick is one output row: row of pieces[piece].
type pick struct{ piece, row int }

// next returns the next merged batch of at most n rows, or io.EOF.
func (m *kwayMerge) next(ctx context.Context, n int) (arrow.RecordBatch, error) {
	if len(m.h.cs) == 0 {
		return nil, io.EOF
	}
	var pieces []arrow.RecordBatch
	defer func() {
		for _, p := range pieces {
			p.Release()
		}
		for _, c := range m.h.cs {
			c.piece = -1
		}
	}()
	picks := make([]pick, 0, n)
	for len(picks) < n && len(m.h.cs) > 0 {
		if len(picks)&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		c := m.h.cs[0]
		if c.piece < 0 {
			c.piece = len(pieces)
			c.b.Retain()
			pieces = append(pieces, c.b)
		}
		picks = append(picks, pick{c.piece, c.row})
		c.row++
		if c.row < int(c.b.NumRows()) {
			heap.Fix(&m.h, 0)
			continue
		}
		ok, err := m.advance(ctx, c)
		if err != nil {
			return nil, err
		}
		if ok {
			heap.Fix(&m.h, 0)
		} else {
			heap.Pop(&m.h)
		}
	}
	return gatherPicks(ctx, m.mem, m.schema, pieces, picks)
}

func (m *kwayMerge) close() error {
	var first error
	for _, c := range m.all {
		if c.b != nil {
			c.b.Release()
			c.b = nil
		}
		if err := c.src.close(); err != nil && first == nil {
			first = err
		}
	}
	m.all, m.h.cs = nil, nil
	return first
}

// gatherPicks builds the batch of picks (rows of pieces, in order). One run of
// consecutive rows of one piece is a slice; otherwise each piece's rows
// are taken, concatenated, and put in pick order by one more take.
func gatherPicks(ctx context.Context, mem memory.Allocator, schema *arrow.Schema, pieces []arrow.RecordBatch, picks []pick) (arrow.RecordBatch, error) {
	if len(pieces) == 1 && picks[len(picks)-1].row-picks[0].row == len(picks)-1 {
		s := pieces[0].NewSlice(int64(picks[0].row), int64(picks[0].row+len(picks)))
		defer s.Release()
		return array.NewRecordBatch(schema, s.Columns(), s.NumRows()), nil
	}
	cctx := compute.WithAllocator(ctx, mem)
	per := make([][]int64, len(pieces))
	rank := make([]int64, len(picks))
	for i, p := range picks {
		rank[i] = int64(len(per[p.piece]))
		per[p.piece] = append(per[p.piece], int64(p.row))
	}
	offs := make([]int64, len(pieces))
	var total int64
	for p := range pieces {
		offs[p] = total
		total += int64(len(per[p]))
	}
	perm := make([]int64, len(picks))
	for i, p := range picks {
		perm[i] = offs[p.piece] + rank[i]
	}
	permArr := int64Array(mem, perm)
	defer permArr.Release()
	idx := make([]arrow.Array, len(pieces))
	defer ReleaseArrays(idx)
	for p := range pieces {
		idx[p] = int64Array(mem, per[p])
	}
	cols := make([]arrow.Array, schema.NumFields())
	parts := make([]arrow.Array, len(pieces))
	for c := range cols {
		for p, b := range pieces {
			t, err := compute.TakeArray(cctx, b.Column(c), idx[p])
			if err != nil {
				ReleaseArrays(parts)
				ReleaseArrays(cols)
				return nil, err
			}
			parts[p] = t
		}
		var all arrow.Array
		var err error
		if len(parts) == 1 {
			all, parts[0] = parts[0], nil
		} else {
			all, err = array.Concatenate(parts, mem)
			ReleaseArrays(parts)
		}
		if err != nil {
			ReleaseArrays(cols)
			return nil, err
		}
		cols[c], err = compute.TakeArray(cctx, all, permArr)
		all.Release()
		if err != nil {
			ReleaseArrays(cols)
			return nil, err
		}
	}
	out := array.NewRecordBatch(schema, cols, int64(len(picks)))
	ReleaseArrays(cols)
	return out, nil
}

func int64Array(mem memory.Allocator, v []int64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(v, nil)
	return b.NewArray()
}

// ReleaseArrays releases and clears the non-nil arrays of as.
func ReleaseArrays(as []arrow.Array) {
	for i, a := range as {
		if a != nil {
			a.Release()
			as[i] = nil
		}
	}
}

// cursorHeap orders cursors by their current row's keys, then by run.
type cursorHeap struct {
	cs   []*mergeCursor
	keys []SortKey
}

func (h *cursorHeap) Len() int      { return len(h.cs) }
func (h *cursorHeap) Swap(i, j int) { h.cs[i], h.cs[j] = h.cs[j], h.cs[i] }
func (h *cursorHeap) Push(x any)    { h.cs = append(h.cs, x.(*mergeCursor)) }
func (h *cursorHeap) Pop() any {
	c := h.cs[len(h.cs)-1]
	h.cs = h.cs[:len(h.cs)-1]
	return c
}

func (h *cursorHeap) Less(i, j int) bool {
	a, b := h.cs[i], h.cs[j]
	for k, key := range h.keys {
		if r := compareKey(a.cols[k], a.row, b.cols[k], b.row, key); r != 0 {
			return r < 0
		}
	}
	return a.run < b.run
}

// compareKey compares row i of x with row j of y (two arrays of one type)
// under key's direction and NULL placement: the order SortExec's in-memory
// sort uses.
func compareKey(x arrow.Array, i int, y arrow.Array, j int, key SortKey) int {
	nx, ny := x.IsNull(i), y.IsNull(j)
	switch {
	case nx && ny:
		return 0
	case nx:
		if key.NullsFirst {
			return -1
		}
		return 1
	case ny:
		if key.NullsFirst {
			return 1
		}
		return -1
	}
	r := compareValues(x, i, y, j)
	if key.Descending {
		return -r
	}
	return r
}

// compareValues compares non-null values; the types are SortExec's.
func compareValues(x arrow.Array, i int, y arrow.Array, j int) int {
	switch a := x.(type) {
	case *array.Int64:
		return cmp.Compare(a.Value(i), y.(*array.Int64).Value(j))
	case *array.Int32:
		return cmp.Compare(a.Value(i), y.(*array.Int32).Value(j))
	case *array.Uint64:
		return cmp.Compare(a.Value(i), y.(*array.Uint64).Value(j))
	case *array.Uint32:
		return cmp.Compare(a.Value(i), y.(*array.Uint32).Value(j))
	case *array.Int16:
		return cmp.Compare(a.Value(i), y.(*array.Int16).Value(j))
	case *array.Date32:
		return cmp.Compare(a.Value(i), y.(*array.Date32).Value(j))
	case *array.Timestamp:
		return cmp.Compare(a.Value(i), y.(*array.Timestamp).Value(j))
	case *array.Decimal128: // one scale in a column
		return a.Value(i).Cmp(y.(*array.Decimal128).Value(j))
	case *array.Float32:
		return value.CompareFloat(a.Value(i), y.(*array.Float32).Value(j))
	case *array.Float64:
		return value.CompareFloat(a.Value(i), y.(*array.Float64).Value(j))
	case *array.String:
		return strings.Compare(a.Value(i), y.(*array.String).Value(j))
	case *array.Boolean:
		p, q := a.Value(i), y.(*array.Boolean).Value(j)
		switch {
		case p == q:
			return 0
		case !p:
			return -1
		}
		return 1
	}
	return 0 // NewSortExec admits only the types above (comparator in sort.go)
}
