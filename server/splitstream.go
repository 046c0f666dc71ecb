package server

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table"
)

// errShape: a taken column that does not fit the statement's output (a
// bug: takeColumns checked the types when the take was planned).
var errShape = errkind.New(errkind.Internal, "server: split take output")

// streamEndpoint is the DoGet of one endpoint of a split take, on its own goroutine, one
// batch in flight (as results.stream):
//
//	     ┌──────────────────────────────────────────────┐
//	     v                                              │ sent
//	next task ──► ExecuteTake ──► shape (statement's ──► send
//	     │           │             output schema)
//	     │ none left └─ error ──────────────────────────────► send error ──► end (endpoint may be read again)
//	     v
//	endpoint 0 of a LEFT take: the missing ids' rows, in batches ──► send
//	     │
//	     v
//	end (endpoint read)
//
// Either context ending (the take dropped, the DoGet client gone) stops
// it between batches.
func (s *Server) streamEndpoint(ctx context.Context, p *splitTake, ep uint32) (*arrow.Schema, <-chan flight.StreamChunk) {
	ch := make(chan flight.StreamChunk)
	last := trackLast(ctx)
	go func() {
		defer close(ch)
		complete := false
		defer func() { s.splits.end(p, ep, complete) }()
		send := func(b arrow.RecordBatch) bool {
			sb := &sentBatch{RecordBatch: b}
			select {
			case ch <- flight.StreamChunk{Data: sb}:
				last.set(sb)
				return true
			case <-ctx.Done():
			case <-p.ctx.Done():
			}
			sb.Release()
			return false
		}
		fail := func(err error) {
			select {
			case ch <- flight.StreamChunk{Err: s.statusOf(err)}:
			case <-ctx.Done():
			}
		}
		alive := func() error {
			if err := p.ctx.Err(); err != nil {
				return err
			}
			return ctx.Err()
		}
		g := p.groups[ep]
		for _, k := range g.tasks {
			if err := alive(); err != nil {
				fail(err)
				return
			}
			b, err := s.endpointBatch(ctx, p, &p.plan.Tasks[k])
			if err != nil {
				fail(err)
				return
			}
			if !send(b) {
				fail(alive()) // the take dropped: say so, not a silent end
				return
			}
		}
		if ep == 0 {
			for lo := 0; lo < len(p.missingOrd); lo += s.opt.SplitBatchRows {
				hi := min(lo+s.opt.SplitBatchRows, len(p.missingOrd))
				if err := alive(); err != nil {
					fail(err)
					return
				}
				b, err := missingBatch(s.mem, p, lo, hi)
				if err != nil {
					fail(err)
					return
				}
				if !send(b) {
					fail(alive())
					return
				}
			}
		}
		if err := alive(); err != nil {
			fail(err)
			return
		}
		complete = true
	}()
	return p.schema, ch
}

// endpointBatch takes one task's rows and shapes them into the statement's
// output: v.ord is the 1-based position of the id (ExecuteTake's ord, as
// a bigint), v.rowid the id (the row's _rowid, which equals it), a table
// column as taken (the system columns converted from uint64 to bigint).
func (s *Server) endpointBatch(ctx context.Context, p *splitTake, k *access.TakeTask) (arrow.RecordBatch, error) {
	b, err := access.ExecuteTake(ctx, p.t, k, p.columns, s.mem)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	n := int(b.NumRows())
	ordCol := b.Column(int(b.NumCols()) - 1).(*array.Uint64)
	cols := make([]arrow.Array, len(p.shape.out))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	colOf := func(name string) arrow.Array {
		for i, c := range p.columns {
			if c == name {
				return b.Column(i)
			}
		}
		return nil
	}
	for i, o := range p.shape.out {
		want := p.schema.Field(i).Type
		switch o.kind {
		case outOrd:
			ib := array.NewInt64Builder(s.mem)
			ib.Reserve(n)
			for j := range n {
				ib.UnsafeAppend(int64(ordCol.Value(j)))
			}
			cols[i] = ib.NewArray()
			ib.Release()
		case outRowID, outTable:
			name := o.name
			if o.kind == outRowID {
				name = table.RowID
			}
			c, err := convert(s.mem, colOf(name), want)
			if err != nil {
				return nil, err
			}
			cols[i] = c
		}
	}
	out := array.NewRecordBatch(p.schema, cols, int64(n))
	return out, nil
}

// convert returns c as type want: itself (retained), or a uint64 column
// as bigint.
func convert(mem memory.Allocator, c arrow.Array, want arrow.DataType) (arrow.Array, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: a column was not taken", errShape)
	}
	if arrow.TypeEqual(c.DataType(), want) {
		c.Retain()
		return c, nil
	}
	u, ok := c.(*array.Uint64)
	if !ok || want.ID() != arrow.INT64 {
		return nil, fmt.Errorf("%w: %s for %s", errShape, c.DataType(), want)
	}
	ib := array.NewInt64Builder(mem)
	defer ib.Release()
	ib.Reserve(u.Len())
	for j := range u.Len() {
		if u.IsNull(j) {
			ib.UnsafeAppendBoolToBitmap(false)
			continue
		}
		v := u.Value(j)
		if v > 1<<63-1 {
			return nil, fmt.Errorf("%w: %d out of bigint range", errShape, v)
		}
		ib.UnsafeAppend(int64(v))
	}
	return ib.NewArray(), nil
}

// missingBatch is the rows of missing ids lo..hi of a LEFT take: ord and
// rowid set, every table column NULL, as the LEFT JOIN gives them.
func missingBatch(mem memory.Allocator, p *splitTake, lo, hi int) (arrow.RecordBatch, error) {
	n := hi - lo
	cols := make([]arrow.Array, len(p.shape.out))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, o := range p.shape.out {
		switch o.kind {
		case outOrd, outRowID:
			ib := array.NewInt64Builder(mem)
			ib.Reserve(n)
			for j := lo; j < hi; j++ {
				if o.kind == outOrd {
					ib.UnsafeAppend(int64(p.missingOrd[j]) + 1)
				} else {
					ib.UnsafeAppend(p.missingID[j])
				}
			}
			cols[i] = ib.NewArray()
			ib.Release()
		default:
			cols[i] = array.MakeArrayOfNull(mem, p.schema.Field(i).Type, n)
		}
	}
	return array.NewRecordBatch(p.schema, cols, int64(n)), nil
}
