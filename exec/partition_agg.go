package exec

import (
	"context"
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Two-phase aggregation: a HashAggregateExec in partial mode aggregates
// each input partition to one row per group of its measures' states; a
// RepartitionExec on the group columns brings every state of a group to
// one partition; the final HashAggregateExec merges them there. The plan
// is plan/parallel.go's:
//
//	final (per partition) ◀─ RepartitionExec hash(groups) ◀─ partial (per partition) ◀─ input partitions
//
// The states are exact, so the result does not depend on the partitioning:
// count merges by adding counts; min, max, bool_and and bool_or by taking
// the min (max, and, or) of the partial results; sum and avg of integers
// carry the 128-bit total and the count (intSumAcc), added exactly; of
// decimals, the 192-bit total and the count (acc_decsum.go); the
// variances of integers and decimals, N, sumX and sumX2 (acc_stddev.go). Other
// measures (DISTINCT, float sums whose rounding depends on the order of
// the additions, string_agg, any_value) are not mergeable:
// Mergeable reports false and the planner keeps that aggregation serial.

type aggMode int

const (
	aggSingle  aggMode = iota // the whole input: the result
	aggPartial                // one input partition: states per group
	aggFinal                  // merge states; input partitioned by the groups
)

func (m aggMode) String() string {
	return [...]string{"Single", "Partial", "Final"}[m]
}

// mergeable reports whether measure m over an input of schema in has an
// exact partial state.
func mergeable(m Aggregate, in *arrow.Schema) bool {
	if m.Distinct {
		return false
	}
	switch m.Func {
	case AggCountStar, AggCount, AggMin, AggMax, AggBoolAnd, AggBoolOr:
		return true
	case AggSum, AggAvg, AggStdDevSamp, AggStdDevPop, AggVarSamp, AggVarPop:
		// Exact integer states; a float's depends on the order of the rows.
		t := in.Field(m.Args[0]).Type
		return isIntegerType(t) || t.ID() == arrow.DECIMAL128
	}
	return false
}

// isDecimalSum reports whether m is sum or avg of a decimal column of in:
// its partial state is acc_decsum.go's.
func isDecimalSum(m Aggregate, in *arrow.Schema) bool {
	return (m.Func == AggSum || m.Func == AggAvg) && in.Field(m.Args[0]).Type.ID() == arrow.DECIMAL128
}

// Mergeable reports whether every measure has an exact partial state, so
// the aggregation can run in two phases (PartialOver, FinalOver).
func (h *HashAggregateExec) Mergeable() bool {
	if h.mode != aggSingle {
		return false
	}
	for _, m := range h.agg.aggs {
		if !mergeable(m, h.agg.input.Schema()) {
			return false
		}
	}
	return true
}

// GroupCount is the number of group columns (the first columns of the
// output, and of the partial aggregate's output).
func (h *HashAggregateExec) GroupCount() int { return len(h.agg.groups) }

// PartialOver is h's first phase over input (h's input's schema, possibly
// partitioned): per partition, the group columns then each measure's
// state columns.
func (h *HashAggregateExec) PartialOver(input Node) (*HashAggregateExec, error) {
	if !h.Mergeable() {
		return nil, fmt.Errorf("%w: aggregation %s has no partial form", physexpr.ErrInvalidArgument, h.agg.describe())
	}
	if !input.Schema().Equal(h.agg.input.Schema()) {
		return nil, fmt.Errorf("%w: partial aggregation input %s, want %s", physexpr.ErrSchema, input.Schema(), h.agg.input.Schema())
	}
	a := h.agg
	a.input = input
	fields := append([]arrow.Field(nil), h.agg.schema.Fields()[:len(a.groups)]...)
	a.makers = make([]func() accumulator, len(a.aggs))
	for i, m := range a.aggs {
		mk := h.agg.makers[i]
		switch {
		case isStats(m.Func):
			a.makers[i] = func() accumulator { return &numStatsState{mk().(*numStatsAcc)} }
			fields = append(fields, numStatsStateFields(m.Name)...)
		case isDecimalSum(m, h.agg.input.Schema()):
			a.makers[i] = func() accumulator { return &decimalSumState{mk().(*decimalSumAcc)} }
			fields = append(fields, decimalSumStateFields(m.Name)...)
		case m.Func == AggSum || m.Func == AggAvg:
			a.makers[i] = func() accumulator { return &intSumState{mk().(*intSumAcc)} }
			fields = append(fields,
				arrow.Field{Name: m.Name + "[hi]", Type: arrow.PrimitiveTypes.Int64},
				arrow.Field{Name: m.Name + "[lo]", Type: arrow.PrimitiveTypes.Uint64},
				arrow.Field{Name: m.Name + "[count]", Type: arrow.PrimitiveTypes.Int64})
		default: // the partial result is the state
			a.makers[i] = mk
			f := h.agg.schema.Field(len(a.groups) + i)
			fields = append(fields, arrow.Field{Name: m.Name + "[state]", Type: f.Type, Nullable: f.Nullable})
		}
	}
	a.schema = arrow.NewSchema(fields, nil)
	return &HashAggregateExec{agg: a, mode: aggPartial}, nil
}

// FinalOver is h's second phase over partial's output, which must be
// partitioned by the group columns (a hash RepartitionExec on them) or be
// one partition: each output partition merges the states of its groups.
func (h *HashAggregateExec) FinalOver(partial *HashAggregateExec, input Node) (*HashAggregateExec, error) {
	if partial.mode != aggPartial || !input.Schema().Equal(partial.Schema()) {
		return nil, fmt.Errorf("%w: final aggregation over %s, want a partial aggregation's output", physexpr.ErrSchema, input.Schema())
	}
	g := len(h.agg.groups)
	if OutputPartitions(input) > 1 {
		rp, ok := input.(*RepartitionExec)
		if !ok || len(rp.keys) != g {
			return nil, fmt.Errorf("%w: final aggregation over %d partitions not split by its group columns", physexpr.ErrInvalidArgument, OutputPartitions(input))
		}
		for i, k := range rp.keys {
			if k != i {
				return nil, fmt.Errorf("%w: final aggregation over partitions not split by its group columns", physexpr.ErrInvalidArgument)
			}
		}
	}
	a := aggregation{input: input, schema: h.agg.schema}
	for i := range g {
		a.groups = append(a.groups, i)
	}
	a.aggs, a.makers = h.mergeMeasures(g)
	return &HashAggregateExec{agg: a, mode: aggFinal}, nil
}

// MergeOver is h's final phase over input, one stream whose columns from
// stateStart on are partial's state columns (partial is
// h.PartialOver(...)): the states of partial's groups are merged into the
// groups of input's columns groups, which may be coarser than partial's.
// A grouping-set aggregation rolls its coarser sets up this way from the
// finest one's states (plan/rollup.go): input is the partial output
// crossed with the set ids, each set's keys (NULL where the set lacks
// them) computed from the finest keys. A row whose state is NULL (a
// RIGHT join's NULL-extended row: an empty set's group over no rows) is
// the empty state. Output: the group columns, then h's measures.
func (h *HashAggregateExec) MergeOver(partial *HashAggregateExec, input Node, groups []int, stateStart int) (*HashAggregateExec, error) {
	if partial.mode != aggPartial || h.mode != aggSingle {
		return nil, fmt.Errorf("%w: merge over a partial aggregation of a single one", physexpr.ErrInvalidArgument)
	}
	if OutputPartitions(input) > 1 {
		return nil, fmt.Errorf("%w: merge of partial states over %d partitions", physexpr.ErrInvalidArgument, OutputPartitions(input))
	}
	in, ps := input.Schema(), partial.Schema()
	states := ps.Fields()[len(partial.agg.groups):]
	if stateStart < 0 || stateStart+len(states) > in.NumFields() {
		return nil, fmt.Errorf("%w: partial states at column %d of %d", physexpr.ErrSchema, stateStart, in.NumFields())
	}
	for i, f := range states {
		if !arrow.TypeEqual(f.Type, in.Field(stateStart+i).Type) {
			return nil, fmt.Errorf("%w: partial state column %d is %s, want %s", physexpr.ErrSchema, stateStart+i, in.Field(stateStart+i).Type, f.Type)
		}
	}
	a := aggregation{input: input, groups: append([]int(nil), groups...)}
	var fields []arrow.Field
	for _, g := range groups {
		if g < 0 || g >= in.NumFields() {
			return nil, fmt.Errorf("%w: group column %d out of range", physexpr.ErrInvalidArgument, g)
		}
		f := in.Field(g)
		if !groupKeyOK(f.Type) {
			return nil, fmt.Errorf("%w: cannot group by type %s", physexpr.ErrInvalidArgument, f.Type)
		}
		fields = append(fields, arrow.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable})
	}
	fields = append(fields, h.agg.schema.Fields()[len(h.agg.groups):]...)
	if len(fields) == 0 {
		return nil, fmt.Errorf("%w: aggregate needs a group column or a measure", physexpr.ErrInvalidArgument)
	}
	a.schema = arrow.NewSchema(fields, nil)
	a.aggs, a.makers = h.mergeMeasures(stateStart)
	return &HashAggregateExec{agg: a, mode: aggFinal}, nil
}

// PartialStates reports whether h is a first phase (PartialOver): its
// output is per-group states.
func (h *HashAggregateExec) PartialStates() bool { return h.mode == aggPartial }

// MergesStates reports whether h is a final phase (FinalOver, MergeOver):
// its input holds partial states.
func (h *HashAggregateExec) MergesStates() bool { return h.mode == aggFinal }

// mergeMeasures are h's measures as merges of the partial state columns
// that start at column col of the final phase's input.
func (h *HashAggregateExec) mergeMeasures(col int) ([]Aggregate, []func() accumulator) {
	var aggs []Aggregate
	var makers []func() accumulator
	for i, m := range h.agg.aggs {
		fm := m
		switch {
		case isStats(m.Func):
			n := len(numStatsStateFields(m.Name))
			fm.Args = nil
			for k := range n {
				fm.Args = append(fm.Args, col+k)
			}
			mk := h.agg.makers[i]
			makers = append(makers, func() accumulator { return &numStatsMerge{mk().(*numStatsAcc)} })
			col += n
		case isDecimalSum(m, h.agg.input.Schema()):
			fm.Args = []int{col, col + 1, col + 2, col + 3}
			mk := h.agg.makers[i]
			makers = append(makers, func() accumulator { return &decimalSumMerge{mk().(*decimalSumAcc)} })
			col += 4
		case m.Func == AggSum || m.Func == AggAvg:
			fm.Args = []int{col, col + 1, col + 2}
			avg := m.Func == AggAvg
			makers = append(makers, func() accumulator { return &intSumMerge{intSumAcc{avg: avg}} })
			col += 3
		case m.Func == AggCount || m.Func == AggCountStar:
			fm.Func, fm.Args = AggCount, []int{col}
			makers = append(makers, func() accumulator { return &countMerge{} })
			col++
		default: // min of mins, and of ands, ...
			fm.Args = []int{col}
			makers = append(makers, h.agg.makers[i])
			col++
		}
		aggs = append(aggs, fm)
	}
	return aggs, makers
}

// OutputPartitions: a partial or final aggregation runs per input
// partition; a single one is the whole input's result.
func (h *HashAggregateExec) OutputPartitions() int {
	if h.mode == aggSingle {
		return 1
	}
	return OutputPartitions(h.agg.input)
}

func (h *HashAggregateExec) ExecutePartitions(ctx context.Context, tc *TaskContext) ([]Stream, error) {
	if h.mode == aggSingle {
		s, err := h.Execute(ctx, tc)
		if err != nil {
			return nil, err
		}
		return []Stream{s}, nil
	}
	return PartitionsFor(ctx, h.agg.input, tc, func(in Stream) Stream { return h.newStream(tc, in) })
}

func (h *HashAggregateExec) WithNewChildren(children []Node) (Node, error) {
	if err := WantChildren(h, children, 1); err != nil {
		return nil, err
	}
	a := h.agg
	a.input = children[0]
	return &HashAggregateExec{agg: a, mode: h.mode}, nil
}

// multiEmitter is an accumulator whose output is several columns: a
// partial aggregate's state.
type multiEmitter interface {
	emitColumns(mem memory.Allocator, n int) ([]arrow.Array, error)
}

// intSumState is a partial sum or avg of integers: the exact 128-bit
// total (hi, lo) and the count of values of each group.
type intSumState struct{ *intSumAcc }

func (s *intSumState) emit(memory.Allocator, int) (arrow.Array, error) {
	return nil, fmt.Errorf("%w: a partial sum emits columns", ErrInternal)
}

func (s *intSumState) emitColumns(mem memory.Allocator, n int) ([]arrow.Array, error) {
	s.grow(n)
	hb, lb, cb := array.NewInt64Builder(mem), array.NewUint64Builder(mem), array.NewInt64Builder(mem)
	defer hb.Release()
	defer lb.Release()
	defer cb.Release()
	hb.AppendValues(s.hi[:n], nil)
	lb.AppendValues(s.lo[:n], nil)
	cb.AppendValues(s.counts[:n], nil)
	s.hi, s.lo, s.counts = dropFront(s.hi, n), dropFront(s.lo, n), dropFront(s.counts, n)
	return []arrow.Array{hb.NewArray(), lb.NewArray(), cb.NewArray()}, nil
}

// intSumMerge adds partial integer sums exactly and emits as intSumAcc.
type intSumMerge struct{ intSumAcc }

func (s *intSumMerge) update(args []arrow.Array, groups []uint32, ngroups int) error {
	s.grow(ngroups)
	hi, ok1 := args[0].(*array.Int64)
	lo, ok2 := args[1].(*array.Uint64)
	cnt, ok3 := args[2].(*array.Int64)
	if !ok1 || !ok2 || !ok3 {
		return fmt.Errorf("%w: sum state columns %s, %s, %s", physexpr.ErrSchema, args[0].DataType(), args[1].DataType(), args[2].DataType())
	}
	for r, g := range groups {
		if g == skipRow || cnt.IsNull(r) { // NULL: the empty state (MergeOver)
			continue
		}
		l := s.lo[g] + lo.Value(r)
		var carry int64
		if l < s.lo[g] {
			carry = 1
		}
		s.hi[g] += hi.Value(r) + carry
		s.lo[g] = l
		s.counts[g] += cnt.Value(r)
	}
	return nil
}

// countMerge adds partial counts.
type countMerge struct{ counts []int64 }

func (c *countMerge) update(args []arrow.Array, groups []uint32, ngroups int) error {
	c.counts = growTo(c.counts, ngroups)
	x, ok := args[0].(*array.Int64)
	if !ok {
		return fmt.Errorf("%w: count state column %s", physexpr.ErrSchema, args[0].DataType())
	}
	for r, g := range groups {
		if g != skipRow && !x.IsNull(r) { // NULL: the empty state (MergeOver)
			c.counts[g] += x.Value(r)
		}
	}
	return nil
}

func (c *countMerge) emit(mem memory.Allocator, n int) (arrow.Array, error) {
	c.counts = growTo(c.counts, n)
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(c.counts[:n], nil)
	c.counts = dropFront(c.counts, n)
	return b.NewArray(), nil
}
