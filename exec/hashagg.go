package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// HashAggregateExec groups its input by the values of the group columns
// (NULL is a group of its own) and computes the measures per group. Without
// group columns it is the grouping-less aggregate: exactly one row, also for
// an empty input (count 0, every other measure NULL), as in PostgreSQL.
// Output: the group columns, then one column per measure; group order is
// the order of first appearance in the input.
//
// The stream is a state machine:
//
//	           batch: assign groups, fold measures
//	           (table full: new groups' rows to the overflow file)
//	             ┌────┐
//	             ▼    │
//	        ┌───────────┐  input EOF   ┌──────────┐  slices of ≤ BatchSize  ┌──────┐
//	start ─▶│ consuming │─────────────▶│ emitting │────────────────────────▶│ done │
//	        └───────────┘  build result└──────────┘   (last slice sent)     └──────┘
//	              ▲                          │
//	              └──────────────────────────┘
//	                last slice sent, an overflow file: the next pass reads it
//
// Its state (group table, accumulators) is the size of the result, not of
// the input. Under a memory limit (TaskContext.Pool) a pass whose groups
// fill the budget takes no new groups: their rows go to a spill file that
// the next pass aggregates, after this pass's groups are emitted (take).
type HashAggregateExec struct {
	agg     aggregation
	mode    aggMode // two-phase parallel aggregation: partition_agg.go
	metrics Metrics
}

// NewHashAggregateExec groups input by the columns groups and computes aggs.
func NewHashAggregateExec(input Node, groups []int, aggs []Aggregate) (*HashAggregateExec, error) {
	a, err := newAggregation(input, groups, aggs)
	if err != nil {
		return nil, err
	}
	return &HashAggregateExec{agg: a}, nil
}

func (h *HashAggregateExec) Name() string           { return "HashAggregateExec" }
func (h *HashAggregateExec) Schema() *arrow.Schema  { return h.agg.schema }
func (h *HashAggregateExec) Children() []Node       { return []Node{h.agg.input} }
func (h *HashAggregateExec) Properties() Properties { return Properties{} }
func (h *HashAggregateExec) Metrics() *Metrics      { return &h.metrics }
func (h *HashAggregateExec) String() string {
	if h.mode != aggSingle {
		return fmt.Sprintf("HashAggregateExec: mode=%s, %s", h.mode, h.agg.describe())
	}
	return "HashAggregateExec: " + h.agg.describe()
}

// Execute implements Node.
func (h *HashAggregateExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := h.agg.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return h.newStream(tc, in), nil
}

func (h *HashAggregateExec) newStream(tc *TaskContext, in Stream) *hashAggStream {
	return &hashAggStream{n: h, tc: tc, in: in, src: in, spill: spillDir{parent: tc.spillDir(), prefix: "stablerow-agg-"}}
}

type hashAggState int

const (
	hashAggConsuming hashAggState = iota
	hashAggEmitting
	hashAggDone
)

type hashAggStream struct {
	n      *HashAggregateExec
	tc     *TaskContext
	in     Stream
	state  hashAggState
	table  *groupTable
	accs   []accumulator
	ids    []uint32
	found  []int32           // over the memory limit: each row's group, -1 for none
	result arrow.RecordBatch // emitting: the whole result, sent in slices
	off    int64
	err    error // the error that ended the stream, returned again
	res    *memlimit.Reservation

	// Over the memory limit the group table stops taking new groups: rows
	// of groups it has are folded, the others go to over, the next pass's
	// input (src). See spill.go.
	src   Stream // this pass's input: in, then a runStream
	over  *SpillWriter
	next  string // the overflow file of the pass just consumed, "" for none
	spill spillDir
}

func (s *hashAggStream) Schema() *arrow.Schema { return s.n.agg.schema }

func (s *hashAggStream) Close() error {
	s.state = hashAggDone
	s.releaseState()
	s.dropSpill()
	if s.result != nil {
		s.result.Release()
		s.result = nil
	}
	if s.in == nil {
		return nil
	}
	err := s.in.Close()
	s.in = nil
	return err
}

func (s *hashAggStream) releaseState() {
	if s.table != nil {
		s.table.release()
		s.table = nil
	}
	s.accs = nil
	if s.res != nil {
		s.res.Free()
	}
}

// Next implements Stream.
func (s *hashAggStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		switch s.state {
		case hashAggConsuming:
			if err := s.consume(ctx); err != nil {
				s.state, s.err = hashAggDone, err // the error ends the stream
				s.releaseState()
				s.dropSpill()
				return nil, err
			}
			s.state = hashAggEmitting
		case hashAggEmitting:
			start := time.Now()
			n := s.result.NumRows()
			if s.off >= n {
				s.result.Release()
				s.result, s.state, s.off = nil, hashAggDone, 0
				if s.next != "" { // another pass over the rows that overflowed
					r, err := openRunStream(s.next, s.n.agg.input.Schema(), s.tc.Allocator())
					s.next = ""
					if err != nil {
						s.err = err
						s.dropSpill()
						continue
					}
					s.src, s.state = r, hashAggConsuming
				}
				continue
			}
			end := min(n, s.off+int64(s.tc.RowsPerBatch()))
			out := s.result.NewSlice(s.off, end)
			s.off = end
			return s.n.metrics.Emit(out, start)
		case hashAggDone:
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
	}
}

// consume drains the input into the group table and the accumulators, then
// builds the result.
func (s *hashAggStream) consume(ctx context.Context) error {
	if s.in == nil {
		return ErrClosed
	}
	a := &s.n.agg
	var types []arrow.DataType
	for _, f := range a.schema.Fields()[:len(a.groups)] {
		types = append(types, f.Type)
	}
	s.table = newGroupTable(s.tc.Allocator(), types)
	s.table.table.pass = s.tc.passer(ctx)
	s.accs = a.accumulators()
	s.res = s.tc.MemoryPool().NewReservation("HashAggregateExec")
	perGroup := groupStateBytes(types, len(s.accs))
	var rows int64
	for {
		b, err := s.src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		start := time.Now()
		rows += b.NumRows()
		err = s.take(ctx, b, perGroup)
		s.n.metrics.Since(start)
		if err != nil {
			return err
		}
	}
	if s.src != s.in {
		err := s.src.Close() // the overflow file of the pass before: removed
		s.src = s.in
		if err != nil {
			return err
		}
	}
	if s.over != nil {
		_, err := s.over.Finish()
		path := s.over.Path()
		s.n.metrics.Add("spill_count", 1)
		s.n.metrics.Add("spilled_rows", s.over.Rows())
		s.over = nil
		if err != nil {
			return err
		}
		s.next = path
	}
	start := time.Now()
	defer s.n.metrics.Since(start)
	n := s.groups()
	s.n.metrics.Add("input_rows", rows)
	s.n.metrics.Add("groups", int64(n))
	keys := s.table.finish()
	res, err := a.emit(s.tc, keys, s.accs, n)
	s.releaseState()
	if err != nil {
		return err
	}
	s.result = res
	return nil
}

// groups is the number of groups: the grouping-less aggregate has one.
func (s *hashAggStream) groups() int {
	if len(s.n.agg.groups) == 0 {
		return 1
	}
	return s.table.len()
}

func (s *hashAggStream) fold(b arrow.RecordBatch) error {
	a := &s.n.agg
	rows := int(b.NumRows())
	if len(a.groups) == 0 {
		s.ids = growIDs(s.ids, rows)
		clear(s.ids)
	} else {
		var err error
		if s.ids, err = s.table.assign(a.keyColumns(b), rows, s.ids); err != nil {
			return err
		}
	}
	return a.update(s.accs, b, s.ids, s.groups())
}

// take folds batch b (which it releases). Under the memory limit every
// row is folded and the reservation grows to the groups' estimated state;
// once the pool refuses, the table is full for this pass: rows of the
// groups it has are folded and the rest are written to the overflow file,
// which the next pass aggregates the same way. Each pass takes at least
// one batch's new groups, so the passes end; groups come out in order of
// first appearance, as without a limit.
func (s *hashAggStream) take(ctx context.Context, b arrow.RecordBatch, perGroup int64) error {
	defer b.Release()
	if s.over == nil {
		if err := s.fold(b); err != nil {
			return err
		}
		want := int64(s.groups()) * perGroup
		held := heldBytes(s.accs)
		if held > 0 {
			// An ordered-set aggregate holds its groups' values
			// (acc_orderedset.go): they are not spilled, so over the limit
			// the query fails, typed, rather than grow without bound.
			if err := s.res.TryGrow(want + held - s.res.Size()); err != nil {
				return fmt.Errorf("HashAggregateExec: the values of percentile_cont, percentile_disc or mode (%d bytes in %d groups): %w", held, s.groups(), err)
			}
			return nil
		}
		if s.res.TryGrow(want-s.res.Size()) == nil || len(s.n.agg.groups) == 0 {
			return nil
		}
		s.res.Grow(want - s.res.Size()) // held already
		var err error
		s.over, err = newSpillWriter(&s.spill, s.tc.Allocator(), s.n.agg.input.Schema())
		return err
	}
	var keep, rest []int64
	s.found = s.table.lookup(s.n.agg.keyColumns(b), int(b.NumRows()), s.found)
	for r, g := range s.found {
		if g >= 0 {
			keep = append(keep, int64(r))
		} else {
			rest = append(rest, int64(r))
		}
	}
	if len(rest) > 0 {
		rb, err := takeBatch(ctx, s.tc.Allocator(), b, rest)
		if err != nil {
			return err
		}
		err = s.over.Write(rb)
		rb.Release()
		if err != nil {
			return err
		}
	}
	if len(keep) == 0 {
		return nil
	}
	kb, err := takeBatch(ctx, s.tc.Allocator(), b, keep)
	if err != nil {
		return err
	}
	defer kb.Release()
	return s.fold(kb)
}

// heldBytes is the size of the values ordered-set accumulators hold.
func heldBytes(accs []accumulator) int64 {
	var n int64
	for _, a := range accs {
		if h, ok := a.(interface{ heldBytes() int64 }); ok {
			n += h.heldBytes()
		}
	}
	return n
}

// dropSpill abandons the overflow and removes the spill directory.
func (s *hashAggStream) dropSpill() {
	if s.over != nil {
		s.over.Abort()
		s.over = nil
	}
	if s.src != nil && s.src != s.in {
		s.src.Close()
	}
	s.src, s.next = s.in, ""
	s.spill.remove()
}

// groupStateBytes estimates one group's state: its hash table slots and
// stored hash (hashtable.go: 16 to 32 bytes of slots at a load of at most
// 1/2, 8 of hash), its key values twice (the table's normalized copy, a
// word or two, and the output builders' copy; a string key at 32 bytes
// each) and its accumulators' slots (16 bytes: sums are 128-bit).
// DISTINCT and string_agg keep values per group beyond this; the estimate
// is a floor, not a bound.
func groupStateBytes(keys []arrow.DataType, accs int) int64 {
	n := int64(40 + 16*accs)
	for _, t := range keys {
		switch fw, ok := t.(arrow.FixedWidthDataType); {
		case ok && fw.BitWidth() == 128:
			n += 16 + 16
		case ok && fw.BitWidth() >= 8:
			n += 8 + int64(fw.BitWidth()/8)
		default:
			n += 32 + 32
		}
	}
	return n
}
