package exec

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
)

// SortExec fully sorts its input by Keys (stable). It uses its own typed
// index sort plus compute.Take; compute.SortIndices leaks on CheckedAllocator.
type SortExec struct {
	input   Node
	keys    []SortKey
	metrics Metrics
}

func NewSortExec(input Node, keys []SortKey) (*SortExec, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: sort needs at least one key", ErrInvalidArgument)
	}
	sc := input.Schema()
	for _, k := range keys {
		if k.Column < 0 || k.Column >= sc.NumFields() {
			return nil, fmt.Errorf("%w: sort column %d out of range", ErrInvalidArgument, k.Column)
		}
		switch sc.Field(k.Column).Type.ID() {
		case arrow.INT64, arrow.INT32, arrow.INT16, arrow.UINT64, arrow.UINT32, arrow.FLOAT64, arrow.FLOAT32,
			arrow.STRING, arrow.BOOL, arrow.DATE32, arrow.TIMESTAMP, arrow.DECIMAL128:
		default:
			return nil, fmt.Errorf("%w: cannot sort type %s", ErrInvalidArgument, sc.Field(k.Column).Type)
		}
	}
	ks := slices.Clone(keys)
	for i := range ks {
		if ks[i].Name == "" {
			ks[i].Name = sc.Field(ks[i].Column).Name
		}
	}
	return &SortExec{input: input, keys: ks}, nil
}

func (s *SortExec) Name() string           { return "SortExec" }
func (s *SortExec) Schema() *arrow.Schema  { return s.input.Schema() }
func (s *SortExec) Children() []Node       { return []Node{s.input} }
func (s *SortExec) Properties() Properties { return Properties{Ordering: slices.Clone(s.keys)} }
func (s *SortExec) Metrics() *Metrics      { return &s.metrics }
func (s *SortExec) String() string {
	parts := make([]string, len(s.keys))
	for i, k := range s.keys {
		parts[i] = k.String()
	}
	return "SortExec: keys=[" + strings.Join(parts, ", ") + "]"
}

func (s *SortExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := s.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &sortStream{n: s, tc: tc, in: in}, nil
}

// sortStream states: reading input (sorted == nil, !done) -> emitting slices of sorted.
type sortStream struct {
	n      *SortExec
	tc     *TaskContext
	in     Stream
	sorted arrow.RecordBatch
	off    int64
	done   bool
}

func (s *sortStream) Schema() *arrow.Schema { return s.n.Schema() }
func (s *sortStream) Close() error {
	if s.sorted != nil {
		s.sorted.Release()
		s.sorted = nil
	}
	s.done = true
	if s.in != nil {
		err := s.in.Close()
		s.in = nil
		return err
	}
	return nil
}

func (s *sortStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.sorted == nil {
		if s.done {
			return nil, io.EOF
		}
		if err := s.build(ctx); err != nil {
			return nil, err
		}
		if s.sorted == nil {
			s.done = true
			return nil, io.EOF
		}
	}
	start := time.Now()
	n := s.sorted.NumRows()
	if s.off >= n {
		s.sorted.Release()
		s.sorted, s.done = nil, true
		return nil, io.EOF
	}
	end := min(n, s.off+int64(s.tc.batchSize()))
	out := s.sorted.NewSlice(s.off, end)
	s.off = end
	return s.n.metrics.emit(out, start)
}

func (s *sortStream) build(ctx context.Context) error {
	var bs []arrow.RecordBatch
	defer func() {
		for _, b := range bs {
			b.Release()
		}
	}()
	for {
		b, err := s.in.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		bs = append(bs, b)
	}
	start := time.Now()
	defer s.n.metrics.since(start)
	if len(bs) == 0 {
		return nil
	}
	mem := s.tc.mem()
	all, err := concatBatches(s.n.Schema(), mem, bs)
	if err != nil {
		return err
	}
	defer all.Release()
	n := int(all.NumRows())
	cmps := make([]func(i, j int) int, len(s.n.keys))
	for k, key := range s.n.keys {
		c, err := comparator(all.Column(key.Column))
		if err != nil {
			return err
		}
		col := all.Column(key.Column)
		desc, nullsFirst := key.Descending, key.NullsFirst
		if col.NullN() == 0 {
			if desc {
				cmps[k] = func(i, j int) int { return c(j, i) }
			} else {
				cmps[k] = c
			}
			continue
		}
		cmps[k] = func(i, j int) int {
			ni, nj := col.IsNull(i), col.IsNull(j)
			switch {
			case ni && nj:
				return 0
			case ni:
				if nullsFirst {
					return -1
				}
				return 1
			case nj:
				if nullsFirst {
					return 1
				}
				return -1
			}
			if desc {
				return c(j, i)
			}
			return c(i, j)
		}
	}
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	slices.SortStableFunc(idx, func(a, b int64) int {
		for _, c := range cmps {
			if r := c(int(a), int(b)); r != 0 {
				return r
			}
		}
		return 0
	})
	ib := array.NewInt64Builder(mem)
	ib.AppendValues(idx, nil)
	indices := ib.NewArray()
	ib.Release()
	defer indices.Release()
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, all.NumCols())
	for i := range cols {
		c, err := compute.TakeArray(cctx, all.Column(i), indices)
		if err != nil {
			for _, p := range cols[:i] {
				p.Release()
			}
			return err
		}
		cols[i] = c
	}
	s.sorted = array.NewRecordBatch(s.n.Schema(), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return nil
}

// comparator returns a typed ascending comparator of non-null values.
func comparator(a arrow.Array) (func(i, j int) int, error) {
	switch a := a.(type) {
	case *array.Int64:
		v := a.Int64Values()
		return func(i, j int) int { return cmp.Compare(v[i], v[j]) }, nil
	case *array.Int32:
		v := a.Int32Values()
		return func(i, j int) int { return cmp.Compare(v[i], v[j]) }, nil
	case *array.Int16:
		v := a.Int16Values()
		return func(i, j int) int { return cmp.Compare(v[i], v[j]) }, nil
	case *array.Date32:
		v := a.Date32Values()
		return func(i, j int) int { return cmp.Compare(v[i], v[j]) }, nil
	case *array.Timestamp:
		v := a.TimestampValues()
		return func(i, j int) int { return cmp.Compare(v[i], v[j]) }, nil
	case *array.Decimal128: // one scale in a column
		return func(i, j int) int { return a.Value(i).Cmp(a.Value(j)) }, nil
	case *array.Float32:
		v := a.Float32Values()
		return func(i, j int) int { return floatCmp(v[i], v[j]) }, nil
	case *array.Uint64:
		v := a.Uint64Values()
		return func(i, j int) int { return cmp.Compare(v[i], v[j]) }, nil
	case *array.Uint32:
		v := a.Uint32Values()
		return func(i, j int) int { return cmp.Compare(v[i], v[j]) }, nil
	case *array.Float64:
		v := a.Float64Values()
		return func(i, j int) int { return floatCmp(v[i], v[j]) }, nil // PostgreSQL: NaN last
	case *array.String:
		return func(i, j int) int { return strings.Compare(a.Value(i), a.Value(j)) }, nil
	case *array.Boolean:
		return func(i, j int) int {
			x, y := a.Value(i), a.Value(j)
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		}, nil
	}
	return nil, fmt.Errorf("%w: cannot sort type %s", ErrInvalidArgument, a.DataType())
}
