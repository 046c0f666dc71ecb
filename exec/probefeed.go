package exec

import (
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

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
		return nil, fmt.Errorf("%w: %s runs under a TakeByKeyExec, which binds its probe keys", physexpr.ErrInvalidArgument, name)
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
// most limit rows (a few more when one key has several entries): plain
// slices filled per pair, copied into Arrow arrays once per batch.
type pairBuilder struct {
	mem   memory.Allocator
	pos   []uint32
	addr  []uint64
	limit int
}

func newPairBuilder(mem memory.Allocator, limit int) *pairBuilder {
	return &pairBuilder{mem: mem, limit: limit, pos: make([]uint32, 0, limit), addr: make([]uint64, 0, limit)}
}

func (b *pairBuilder) add(pos int32, addr uint64) {
	b.pos = append(b.pos, uint32(pos))
	b.addr = append(b.addr, addr)
}

func (b *pairBuilder) len() int   { return len(b.pos) }
func (b *pairBuilder) full() bool { return len(b.pos) >= b.limit }

// flush returns the pairs so far as a batch (nil when there are none) and
// empties the builder.
func (b *pairBuilder) flush() arrow.RecordBatch {
	if len(b.pos) == 0 {
		return nil
	}
	pb, ab := array.NewUint32Builder(b.mem), array.NewUint64Builder(b.mem)
	defer pb.Release()
	defer ab.Release()
	pb.AppendValues(b.pos, nil)
	ab.AppendValues(b.addr, nil)
	p, a := pb.NewArray(), ab.NewArray()
	defer p.Release()
	defer a.Release()
	b.pos, b.addr = b.pos[:0], b.addr[:0]
	return array.NewRecordBatch(pairSchema, []arrow.Array{p, a}, int64(p.Len()))
}
