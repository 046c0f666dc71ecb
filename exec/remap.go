package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stablerow/stablerow/access"
)

// Remapper translates row addresses written before rewrites to the
// addresses of the same rows now: access.Remapper (table/fragreuse.History
// implements it).
type Remapper = access.Remapper

// RemapMode says what happens to a row whose address translates to "dead".
type RemapMode int

const (
	RemapDrop RemapMode = iota // the row leaves the stream
	RemapNull                  // the row stays with a NULL address
)

// CountingRemapper is a Remapper that reports how it translated: rows
// swept versus looked up one by one, rowmap blocks read. RowAddrRemapExec
// adds the counts to its metrics.
type CountingRemapper interface {
	Remapper
	TranslateCounted(addrs []uint64, out []uint64, live []bool, count func(name string, n int64)) error
}

// RowAddrRemapExec translates the uint64 address column of its input
// through a Remapper: the addresses an index stored before a compaction or
// recluster become current ones, so that indexes can defer their rewrite.
// The remapper chooses per batch between a sweep (sorted, dense runs) and
// point lookups (sparse ones); a CountingRemapper's counts show in the
// node's metrics next to addresses_remapped and deleted.
//
//	┌──────┐ input batch ┌───────────┐ rows left (or RemapNull) ┌──────┐
//	│ pull │────────────>│ translate │─────────────────────────>│ emit │──> batch
//	└──────┘<────────────└───────────┘  every row dropped       └──────┘
//	   │ input EOF             ^                                    │
//	   v                       └────────────── next Next ───────────┘
//	 done
type RowAddrRemapExec struct {
	input   Node
	col     int
	remap   Remapper
	mode    RemapMode
	schema  *arrow.Schema
	metrics Metrics
}

// NewRowAddrRemapExec remaps column col (uint64) of input.
func NewRowAddrRemapExec(input Node, col int, remap Remapper, mode RemapMode) (*RowAddrRemapExec, error) {
	s := input.Schema()
	if col < 0 || col >= s.NumFields() || s.Field(col).Type.ID() != arrow.UINT64 {
		return nil, fmt.Errorf("%w: remap: column %d is not a uint64 address", physexpr.ErrInvalidArgument, col)
	}
	if remap == nil {
		return nil, fmt.Errorf("%w: remap: nil remapper", physexpr.ErrInvalidArgument)
	}
	fs := append([]arrow.Field{}, s.Fields()...)
	if mode == RemapNull {
		fs[col].Nullable = true
	}
	return &RowAddrRemapExec{input: input, col: col, remap: remap, mode: mode, schema: arrow.NewSchema(fs, nil)}, nil
}

func (n *RowAddrRemapExec) Name() string          { return "RowAddrRemapExec" }
func (n *RowAddrRemapExec) Schema() *arrow.Schema { return n.schema }
func (n *RowAddrRemapExec) Children() []Node      { return []Node{n.input} }
func (n *RowAddrRemapExec) Metrics() *Metrics     { return &n.metrics }

// Properties: the input's ordering survives except on the address column,
// whose values change.
func (n *RowAddrRemapExec) Properties() Properties {
	var keep []SortKey
	for _, k := range n.input.Properties().Ordering {
		if k.Column == n.col {
			break
		}
		keep = append(keep, k)
	}
	return Properties{Ordering: keep}
}

func (n *RowAddrRemapExec) String() string {
	mode := "drop"
	if n.mode == RemapNull {
		mode = "null"
	}
	return fmt.Sprintf("RowAddrRemapExec: column=%s, transitions=%d, deleted=%s", n.input.Schema().Field(n.col).Name, n.remap.Len(), mode)
}

func (n *RowAddrRemapExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := n.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &remapStream{n: n, tc: tc, in: in}, nil
}

type remapState int

const (
	remapPull remapState = iota
	remapDone
)

type remapStream struct {
	n     *RowAddrRemapExec
	tc    *TaskContext
	in    Stream
	state remapState
	out   []uint64
	liv   []bool
}

func (s *remapStream) Schema() *arrow.Schema { return s.n.schema }

func (s *remapStream) Close() error {
	if s.in == nil {
		return nil
	}
	err := s.in.Close()
	s.in = nil
	return err
}

// Next implements Stream.
func (s *remapStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.in == nil {
		return nil, ErrClosed
	}
	for {
		switch s.state {
		case remapPull:
			b, err := s.in.Next(ctx)
			if errors.Is(err, io.EOF) {
				// pull -> done: the input ended.
				s.state = remapDone
				continue
			}
			if err != nil {
				return nil, err
			}
			// pull -> translate -> emit, or back to pull when every row of
			// the batch was dropped.
			start := time.Now()
			out, err := s.remap(ctx, b)
			b.Release()
			if err != nil {
				s.n.metrics.Since(start)
				return nil, err
			}
			if out.NumRows() == 0 && s.n.mode == RemapDrop {
				out.Release()
				s.n.metrics.Since(start)
				continue
			}
			return s.n.metrics.Emit(out, start)
		case remapDone:
			return nil, io.EOF
		}
	}
}

func (s *remapStream) remap(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	col := b.Column(s.n.col).(*array.Uint64)
	n := col.Len()
	if cap(s.out) < n {
		s.out, s.liv = make([]uint64, n), make([]bool, n)
	}
	out, live := s.out[:n], s.liv[:n]
	in := col.Uint64Values()
	var err error
	if cr, ok := s.n.remap.(CountingRemapper); ok {
		err = cr.TranslateCounted(in, out, live, s.n.metrics.Add)
	} else {
		err = s.n.remap.Translate(in, out, live)
	}
	if err != nil {
		return nil, fmt.Errorf("exec: remap: %w", err)
	}
	mem := s.tc.Allocator()
	ab := array.NewUint64Builder(mem)
	defer ab.Release()
	ab.Reserve(n)
	dead := 0
	for i := 0; i < n; i++ {
		if col.IsNull(i) {
			ab.UnsafeAppendBoolToBitmap(false)
			continue
		}
		if !live[i] {
			dead++
			ab.UnsafeAppendBoolToBitmap(false)
			continue
		}
		ab.UnsafeAppend(out[i])
	}
	s.n.metrics.Add("addresses_remapped", int64(n))
	s.n.metrics.Add("deleted", int64(dead))
	addrs := ab.NewArray()
	defer addrs.Release()
	cols := append([]arrow.Array{}, b.Columns()...)
	cols[s.n.col] = addrs
	rb := array.NewRecordBatch(s.n.schema, cols, int64(n))
	if s.n.mode == RemapNull || dead == 0 {
		return rb, nil
	}
	defer rb.Release()
	keep := make([]int32, 0, n-dead) // the rows that stay: NULL addresses and live ones
	for i := 0; i < n; i++ {
		if col.IsNull(i) || live[i] {
			keep = append(keep, int32(i))
		}
	}
	return physexpr.GatherBatch(ctx, mem, rb, keep)
}
