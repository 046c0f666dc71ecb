package exec

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/value"
)

// SortExec fully sorts its input by Keys (stable). It uses its own typed
// index sort plus compute.Take; compute.SortIndices leaks on CheckedAllocator.
type SortExec struct {
	input   Node
	keys    []SortKey
	perPart bool // sorts each input partition (PerPartition): partition_children.go
	metrics Metrics
}

func NewSortExec(input Node, keys []SortKey) (*SortExec, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: sort needs at least one key", physexpr.ErrInvalidArgument)
	}
	sc := input.Schema()
	for _, k := range keys {
		if k.Column < 0 || k.Column >= sc.NumFields() {
			return nil, fmt.Errorf("%w: sort column %d out of range", physexpr.ErrInvalidArgument, k.Column)
		}
		switch sc.Field(k.Column).Type.ID() {
		case arrow.INT64, arrow.INT32, arrow.INT16, arrow.UINT64, arrow.UINT32, arrow.FLOAT64, arrow.FLOAT32,
			arrow.STRING, arrow.BOOL, arrow.DATE32, arrow.TIMESTAMP, arrow.DECIMAL128:
		default:
			return nil, fmt.Errorf("%w: cannot sort type %s", physexpr.ErrInvalidArgument, sc.Field(k.Column).Type)
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
	if s.perPart {
		return fmt.Sprintf("SortExec: keys=[%s], partitions=%d", strings.Join(parts, ", "), s.OutputPartitions())
	}
	return "SortExec: keys=[" + strings.Join(parts, ", ") + "]"
}

func (s *SortExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := s.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return s.newStream(tc, in), nil
}

func (s *SortExec) newStream(tc *TaskContext, in Stream) *sortStream {
	return &sortStream{n: s, tc: tc, in: in, res: tc.MemoryPool().NewReservation("SortExec"),
		spill: spillDir{parent: tc.spillDir(), prefix: "stablerow-sort-"}}
}

// sortStream is a state machine. Input batches are buffered under a
// reservation of twice their size (the buffer and its sorted copy) plus
// the sort's scratch per row; when
// the pool refuses, the buffer is sorted and spilled to an Arrow IPC file
// as a run, and buffering starts again (a batch that alone does not fit
// is buffered in slices: sort_runs.go). Without runs the buffer is sorted
// in memory; with runs, the runs and the sorted tail of the buffer are
// merged k ways, streaming (spillmerge.go).
//
//	          batch: buffer it (refused: sort the buffer, spill it as a run)
//	            ┌────┐
//	            ▼    │
//	start ─▶ reading ──EOF, no runs──▶ emitting (slices of the sorted buffer) ──▶ done
//	            │                                                                  ▲
//	            └──────EOF, runs────▶ merging (k-way merge: runs + sorted tail) ───┘
//
// An error or cancellation moves to done with every batch released and the
// spill directory removed; Close does the same from any state.
type sortStream struct {
	n     *SortExec
	tc    *TaskContext
	in    Stream
	state sortState
	res   *memlimit.Reservation
	buf   []arrow.RecordBatch // reading: buffered input
	spill spillDir
	runs  []sortRun // spilled runs, in input order (sort_runs.go)

	sorted    arrow.RecordBatch // emitting
	off       int64
	merge     *kwayMerge // merging
	mergeRows int        // merging: rows per output batch (fewer than a batch when the limit asks)
	err       error      // the error that ended the stream, returned again
}

type sortState int

const (
	sortReading sortState = iota
	sortEmitting
	sortMerging
	sortDone
)

func (s *sortStream) Schema() *arrow.Schema { return s.n.Schema() }

func (s *sortStream) Close() error {
	err := s.release()
	s.state = sortDone
	if s.in != nil {
		if cerr := s.in.Close(); err == nil {
			err = cerr
		}
		s.in = nil
	}
	return err
}

// release drops every batch and run and removes the spill directory.
func (s *sortStream) release() error {
	for _, b := range s.buf {
		b.Release()
	}
	s.buf = nil
	if s.sorted != nil {
		s.sorted.Release()
		s.sorted = nil
	}
	var err error
	if s.merge != nil {
		err = s.merge.close()
		s.merge = nil
	}
	if rerr := s.spill.remove(); err == nil {
		err = rerr
	}
	s.runs = nil
	s.res.Free()
	return err
}

func (s *sortStream) fail(err error) error {
	s.state, s.err = sortDone, err
	s.release()
	return err
}

func (s *sortStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.state != sortDone {
		if err := ctx.Err(); err != nil {
			return nil, s.fail(err)
		}
	}
	for {
		switch s.state {
		case sortReading:
			if err := s.read(ctx); err != nil {
				return nil, s.fail(err)
			}
		case sortEmitting:
			start := time.Now()
			n := s.sorted.NumRows()
			if s.off >= n {
				s.release()
				s.state = sortDone
				continue
			}
			end := min(n, s.off+int64(s.tc.RowsPerBatch()))
			out := s.sorted.NewSlice(s.off, end)
			s.off = end
			return s.n.metrics.Emit(out, start)
		case sortMerging:
			start := time.Now()
			b, err := s.merge.next(ctx, s.mergeRows)
			if errors.Is(err, io.EOF) {
				s.state = sortDone
				if err := s.release(); err != nil {
					return nil, s.fail(err)
				}
				continue
			}
			if err != nil {
				return nil, s.fail(err)
			}
			return s.n.metrics.Emit(b, start)
		case sortDone:
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
	}
}

// read buffers the input (spilling runs when the pool refuses), then
// moves to emitting or merging.
func (s *sortStream) read(ctx context.Context) error {
	if s.in == nil {
		return ErrClosed
	}
	for {
		b, err := s.in.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		if err := s.buffer(ctx, b); err != nil { // sort_runs.go
			return err
		}
	}
	start := time.Now()
	defer s.n.metrics.Since(start)
	if len(s.buf) == 0 && len(s.runs) == 0 {
		s.state = sortDone
		return nil
	}
	var tail arrow.RecordBatch
	if len(s.buf) > 0 {
		bs := s.buf
		s.buf = nil
		var err error
		if tail, err = sortBatches(ctx, s.tc.Allocator(), s.n.Schema(), s.n.keys, bs, s.tc.passer(ctx)); err != nil {
			return err
		}
	}
	if tail != nil {
		// Sorted: the copy and the scratch are gone, the rows stay.
		s.res.Shrink(s.res.Size() - BatchBytes(tail))
	}
	if len(s.runs) == 0 {
		s.sorted, s.off, s.state = tail, 0, sortEmitting
		return nil
	}
	tail, out, err := s.fitMerge(ctx, tail) // sort_runs.go
	if err != nil {
		return err
	}
	m, err := s.openMerge(ctx, s.runs, tail)
	if err != nil {
		return err
	}
	s.merge, s.mergeRows, s.state = m, int(out), sortMerging
	return nil
}

// spillBuffer sorts the buffered batches, writes them as a run and gives
// their reservation back.
func (s *sortStream) spillBuffer(ctx context.Context) error {
	start := time.Now()
	defer s.n.metrics.Since(start)
	bs := s.buf
	s.buf = nil
	sorted, err := sortBatches(ctx, s.tc.Allocator(), s.n.Schema(), s.n.keys, bs, s.tc.passer(ctx))
	if err != nil {
		return err
	}
	err = s.spillSorted(sorted)
	sorted.Release()
	if err != nil {
		return err
	}
	s.res.Free()
	return nil
}

// sortBatches sorts bs (which it releases) by keys, stably, into one
// batch. pass (TaskContext.passer; may be nil) counts its comparisons:
// one sort of millions of rows is seconds of work with no batch boundary
// in it.
func sortBatches(ctx context.Context, mem memory.Allocator, schema *arrow.Schema, keys []SortKey, bs []arrow.RecordBatch, pass func(int)) (arrow.RecordBatch, error) {
	all, err := ConcatBatches(schema, mem, bs)
	for _, b := range bs {
		b.Release() // the concatenation is a copy: the inputs can go now
	}
	if err != nil {
		return nil, err
	}
	defer all.Release()
	n := int(all.NumRows())
	cmps, err := KeyComparators(all, keys)
	if err != nil {
		return nil, err
	}
	var rest func(a, b int) int
	if len(cmps) > 1 {
		more := cmps[1:]
		rest = func(a, b int) int {
			for _, c := range more {
				if r := c(a, b); r != 0 {
					return r
				}
			}
			return 0
		}
	}
	idx, ok := sortNormalized(all.Column(keys[0].Column), keys[0], n, rest, laterWords(all, keys), pass)
	if !ok {
		idx = sortByComparators(cmps, n, pass)
	}
	cols, err := gatherRows(ctx, mem, all, idx)
	if err != nil {
		return nil, err
	}
	out := array.NewRecordBatch(schema, cols, int64(n))
	ReleaseArrays(cols)
	return out, nil
}

// KeyComparators is one comparator per sort key over all's rows, with the
// key's direction and NULL placement folded in.
func KeyComparators(all arrow.RecordBatch, keys []SortKey) ([]func(i, j int) int, error) {
	cmps := make([]func(i, j int) int, len(keys))
	for k, key := range keys {
		c, err := Comparator(all.Column(key.Column))
		if err != nil {
			return nil, err
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
	return cmps, nil
}

// sortByComparators is the rows 0..n-1 in the stable order of cmps: the
// general path, for keys with no normalized form (sort_keys.go). pass
// (may be nil) counts the comparisons.
func sortByComparators(cmps []func(i, j int) int, n int, pass func(int)) []int64 {
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	// Ties broken by position make pdqsort's answer the stable one, at
	// O(n log n) rather than SortStableFunc's O(n log² n) rotations.
	slices.SortFunc(idx, passing(func(a, b int64) int {
		for _, c := range cmps {
			if r := c(int(a), int(b)); r != 0 {
				return r
			}
		}
		return cmp.Compare(a, b)
	}, pass))
	return idx
}

// gatherRows is the columns of all in the order idx: by physexpr.Gather
// (typed loops where it has one, others through compute.TakeArray), or,
// for more rows than an int32 index addresses, all through TakeArray with
// an int64 index.
func gatherRows(ctx context.Context, mem memory.Allocator, all arrow.RecordBatch, idx []int64) ([]arrow.Array, error) {
	if len(idx) <= math.MaxInt32 {
		idx32 := make([]int32, len(idx))
		for i, r := range idx {
			idx32[i] = int32(r)
		}
		cols, err := physexpr.Gather(ctx, mem, all.Columns(), idx32, nil, make([]arrow.Array, 0, all.NumCols()))
		if err != nil {
			ReleaseArrays(cols)
			return nil, err
		}
		return cols, nil
	}
	indices := int64Array(mem, idx)
	defer indices.Release()
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, 0, all.NumCols())
	for i := range int(all.NumCols()) {
		c, err := compute.TakeArray(cctx, all.Column(i), indices)
		if err != nil {
			ReleaseArrays(cols)
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, nil
}

// Comparator returns a typed ascending comparator of non-null values
// (exported for the operator families outside exec: exec/window).
func Comparator(a arrow.Array) (func(i, j int) int, error) {
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
		return func(i, j int) int { return value.CompareFloat(v[i], v[j]) }, nil
	case *array.Uint64:
		v := a.Uint64Values()
		return func(i, j int) int { return cmp.Compare(v[i], v[j]) }, nil
	case *array.Uint32:
		v := a.Uint32Values()
		return func(i, j int) int { return cmp.Compare(v[i], v[j]) }, nil
	case *array.Float64:
		v := a.Float64Values()
		return func(i, j int) int { return value.CompareFloat(v[i], v[j]) }, nil // PostgreSQL: NaN last
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
	return nil, fmt.Errorf("%w: cannot sort type %s", physexpr.ErrInvalidArgument, a.DataType())
}
