package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/table"
)

// probeFeed is one probe batch as TakeByKeyExec hands it to its keyed
// children: the batch's keys, and for the fallback the positions still
// unresolved. The children's streams answer with (probe row, address)
// pairs, so the take scatters answers back by position and never needs a
// key -> row map of its own.
type probeFeed struct {
	keys arrow.Array // the probe batch's keys (borrowed for the child stream's life)
	sel  []int32     // positions to resolve; nil means every non-NULL key
}

// withProbe returns a copy of tc that binds feed for the keyed children.
func withProbe(tc *TaskContext, feed *probeFeed) *TaskContext {
	c := TaskContext{}
	if tc != nil {
		c = *tc
	}
	c.probe = feed
	return &c
}

// probeFeedOf returns the probe batch bound in tc, or an error naming the
// node that needs one.
func probeFeedOf(tc *TaskContext, name string) (*probeFeed, error) {
	if tc == nil || tc.probe == nil {
		return nil, fmt.Errorf("%w: %s runs under a TakeByKeyExec, which binds its probe keys", ErrInvalidArgument, name)
	}
	return tc.probe, nil
}

// ProbeRowColumn is the first column of the pairs IndexProbeExec,
// RowAddrRemapExec over it and UnindexedFallbackScan emit: the position of
// the key in the probe batch. The second is _rowaddr.
const ProbeRowColumn = "probe_row"

// pairSchema is the (probe row, address) schema of the keyed children.
var pairSchema = arrow.NewSchema([]arrow.Field{
	{Name: ProbeRowColumn, Type: arrow.PrimitiveTypes.Uint32},
	{Name: table.RowAddr, Type: arrow.PrimitiveTypes.Uint64},
}, nil)

// pairBuilder accumulates (probe row, address) pairs into batches of at
// most limit rows.
type pairBuilder struct {
	pos   *array.Uint32Builder
	addr  *array.Uint64Builder
	limit int
}

func newPairBuilder(mem memory.Allocator, limit int) *pairBuilder {
	return &pairBuilder{pos: array.NewUint32Builder(mem), addr: array.NewUint64Builder(mem), limit: limit}
}

// add appends a pair; callers add at most a few pairs past full().
func (b *pairBuilder) add(pos int32, addr uint64) {
	if b.pos.Len() == b.pos.Cap() {
		grow := min(max(b.pos.Cap(), 64), b.limit)
		b.pos.Reserve(grow)
		b.addr.Reserve(grow)
	}
	b.pos.UnsafeAppend(uint32(pos))
	b.addr.UnsafeAppend(addr)
}

func (b *pairBuilder) len() int   { return b.pos.Len() }
func (b *pairBuilder) full() bool { return b.pos.Len() >= b.limit }

// flush returns the pairs so far as a batch (nil when there are none).
func (b *pairBuilder) flush() arrow.RecordBatch {
	if b.pos.Len() == 0 {
		return nil
	}
	p, a := b.pos.NewArray(), b.addr.NewArray()
	defer p.Release()
	defer a.Release()
	return array.NewRecordBatch(pairSchema, []arrow.Array{p, a}, int64(p.Len()))
}

func (b *pairBuilder) release() {
	b.pos.Release()
	b.addr.Release()
}
