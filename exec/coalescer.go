package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Coalescer accumulates small batches up to BatchSize rows and slices big
// ones (zero-copy NewSlice), so downstream sees batches of ~BatchSize rows.
type Coalescer struct {
	schema  *arrow.Schema
	mem     memory.Allocator
	size    int
	pending []arrow.RecordBatch // retained, total rows < size
	rows    int
	ready   []arrow.RecordBatch // owned, full batches
}

// NewCoalescer returns a coalescer producing batches of size rows.
func NewCoalescer(schema *arrow.Schema, mem memory.Allocator, size int) *Coalescer {
	if size <= 0 {
		size = DefaultBatchSize
	}
	return &Coalescer{schema: schema, mem: mem, size: size}
}

// Push borrows b (the caller keeps its reference).
func (c *Coalescer) Push(b arrow.RecordBatch) error {
	n := int(b.NumRows())
	off := 0
	for off < n {
		take := min(c.size-c.rows, n-off)
		var part arrow.RecordBatch
		if off == 0 && take == n {
			b.Retain()
			part = b
		} else {
			part = b.NewSlice(int64(off), int64(off+take))
		}
		off += take
		c.pending = append(c.pending, part)
		c.rows += take
		if c.rows == c.size {
			if err := c.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Coalescer) flush() error {
	if c.rows == 0 {
		return nil
	}
	out, err := concatBatches(c.schema, c.mem, c.pending)
	for _, p := range c.pending {
		p.Release()
	}
	c.pending = c.pending[:0]
	c.rows = 0
	if err != nil {
		return err
	}
	c.ready = append(c.ready, out)
	return nil
}

// Pop returns a full batch if one is ready (caller owns it).
func (c *Coalescer) Pop() (arrow.RecordBatch, bool) {
	if len(c.ready) == 0 {
		return nil, false
	}
	b := c.ready[0]
	c.ready = c.ready[1:]
	return b, true
}

// Finish flushes the partial batch so Pop can return it.
func (c *Coalescer) Finish() error { return c.flush() }

// Release drops every buffered batch.
func (c *Coalescer) Release() {
	for _, p := range c.pending {
		p.Release()
	}
	for _, r := range c.ready {
		r.Release()
	}
	c.pending, c.ready, c.rows = nil, nil, 0
}

// concatBatches returns a new batch holding bs in order; a single input is
// retained rather than copied.
func concatBatches(schema *arrow.Schema, mem memory.Allocator, bs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(bs) == 1 {
		bs[0].Retain()
		return bs[0], nil
	}
	var rows int64
	cols := make([]arrow.Array, schema.NumFields())
	parts := make([]arrow.Array, len(bs))
	for i := range cols {
		for j, b := range bs {
			parts[j] = b.Column(i)
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, err
		}
		cols[i] = a
	}
	for _, b := range bs {
		rows += b.NumRows()
	}
	out := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
