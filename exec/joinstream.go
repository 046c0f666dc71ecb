package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// joinCore is what HashJoinExec and NestedLoopJoinExec share: the inputs,
// the join type, the residual predicate and the output schema. The two
// differ only in how a left row finds its candidate right rows: by key
// through a hash table, or every right row.
type joinCore struct {
	left, right  Node
	typ          JoinType
	lkeys, rkeys []int         // none: nested loop
	residual     physexpr.Expr // over left ++ right; nil: every candidate matches
	bound        physexpr.Bound
	schema       *arrow.Schema
	pair         *arrow.Schema
	perPart      bool // probes each left partition, one shared build (partition_join.go)
	// full is a hash mark join's whole condition, the keys' equalities
	// AND the residual, bound to the pair schema: the pairs whose key
	// comparison is NULL are tested with it (joinmark.go).
	full physexpr.Bound
	// keepOrder: the planner relies on the left input's order through
	// this join (a SubPlan join: KeepOuterOrder), so it never spills.
	keepOrder bool
	metrics   Metrics
}

func (j *joinCore) execute(tc *TaskContext) *joinStream {
	return &joinStream{j: j, tc: tc, co: NewCoalescer(j.schema, tc.Allocator(), tc.RowsPerBatch())}
}

type joinState int

const (
	jsStart joinState = iota
	jsProbe
	jsUnmatched
	jsFinish
	jsGrace // the build overflowed: the grace join emits (join_spill.go)
	jsDone
)

// joinStream is the one join state machine:
//
//	        first Next
//	start ─────────────► pull the first left batch
//	  │   left empty, and unmatched right rows are not wanted ──► finish
//	  ▼
//	build: collect the right input; index its keys (hash join only)
//	  │                      (a gate builds before it pulls: joingate.go)
//	  │  over the memory limit, a hash join that may spill ──► grace: the
//	  │  partitions' joins emit everything (join_spill.go) ──► done
//	  │  empty, for a type that emits matched left rows only (inner,
//	  │  semi) ──► finish
//	  ▼
//	probe ◄─────────────┐ gather at most batchSize candidate pairs from the
//	  │  batch consumed: │ cursor (left row, next candidate), test the
//	  │  pull the next ──┘ residual, emit the matching pairs and the left
//	  │                    rows whose candidates have all been seen
//	  │ left EOF
//	  ▼
//	unmatched: right rows that never matched, with NULL left columns, in
//	  │        batchSize slices (RIGHT and FULL); the matched or unmatched
//	  │        right rows alone (RIGHT SEMI, RIGHT ANTI: join_right.go)
//	  ▼
//	finish: flush the coalescer ──► done: io.EOF
//
// The build is lazy: a join whose left input is empty never runs its right
// input (PostgreSQL evaluates an uncorrelated scalar subquery only when a
// row needs it, so a cardinality error on an empty outer query is none);
// an inner or semi join whose build is empty reads no left batch after
// the first.
// Memory: the right input, plus one left batch, plus at most batchSize
// candidate pairs at a time, however many rows a key matches.
type joinStream struct {
	j     *joinCore
	tc    *TaskContext
	co    *Coalescer
	state joinState
	left  Stream

	build     arrow.RecordBatch
	res       *memlimit.Reservation // the build side's memory
	nbuild    int
	idx       *keyIndex // nil: nested loop
	buildNull bool      // some right key is NULL (null-aware anti join)
	rightHit  []bool    // right rows matched (RIGHT, FULL)
	unmatched int       // next right row the unmatched state looks at

	pb     arrow.RecordBatch // the left batch being probed
	pkeys  []arrow.Array
	pview  keyCols  // pkeys normalized (scratch reused across batches)
	phash  []uint64 // pkeys' hashes (scratch)
	pslot  []uint64 // the staged probe's slots and keys (scratch)
	heads  []int32  // first candidate per row of pb (hash join), -1 none
	hits   []int32  // matches per row of pb
	row    int      // next row of pb to gather
	cand   int32    // next candidate of row; candNew: not looked up yet
	li, ri []int32
	// the output rows of a chunk (scratch reused across chunks; emit
	// copies them out)
	outL, outR []int32
	outRNull   []bool
	pass       []bool  // the residual's verdict per pair (scratch)
	null       []bool  // a mark join's pairs whose condition is NULL (scratch)
	marks      []int8  // a mark join's marks of pb's rows (joinmark.go)
	nullRows   []int32 // a mark join's build rows with a NULL key; nil: not listed yet
	closed     bool

	// shared: a partition of a parallel hash join, whose build side is
	// built once for every partition (partition_join.go); build is this
	// stream's reference to it and res stays nil.
	shared *sharedBuild
	// forShared: the stream that builds a shared build; it spills only
	// with spillShared (join_spill_shared.go), pw then being each
	// partition's share of the spilled join.
	forShared   bool
	spillShared bool
	pw          *graceWorker

	// A grace join's partition (join_spill.go): buildIn is its build
	// rows (nil: execute j.right), expect their size as reserved, depth
	// its recursion depth and seed its
	// partitioning hash's; spillMx the metrics spills are counted in (the
	// HashJoinExec's own; nil: j's). grace is set once the build overflows.
	buildIn Stream
	expect  int64 // a spilled partition's build bytes (0: unknown)
	depth   int
	seed    uint64
	spillMx *Metrics
	grace   *graceJoin
}

const candNew = -2

func (s *joinStream) Schema() *arrow.Schema { return s.j.schema }

func (s *joinStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.co.Release()
	if s.grace != nil {
		s.grace.close()
	}
	if s.pw != nil {
		s.pw.close()
	}
	if s.buildIn != nil {
		s.buildIn.Close()
		s.buildIn = nil
	}
	s.releasePB()
	if s.build != nil {
		s.build.Release()
		s.build = nil
	}
	if s.res != nil {
		s.res.Free()
	}
	if s.shared != nil {
		s.shared.probeEnded(s, false)
		s.shared.release(s)
	}
	if s.left != nil {
		return s.left.Close()
	}
	return nil
}

func (s *joinStream) releasePB() {
	if s.pb != nil {
		s.pb.Release()
		s.pb = nil
	}
}

func (s *joinStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b, ok := s.co.Pop(); ok {
			return s.j.metrics.Emit(b, time.Now())
		}
		var err error
		switch s.state {
		case jsStart:
			err = s.start(ctx)
		case jsProbe:
			err = s.probe(ctx)
		case jsUnmatched:
			err = s.emitUnmatched(ctx)
		case jsFinish:
			err = s.co.Finish()
			s.state = jsDone
		case jsGrace:
			var b arrow.RecordBatch
			var gerr error
			if s.pw != nil {
				b, gerr = s.pw.next(ctx)
			} else {
				b, gerr = s.grace.next(ctx)
			}
			if errors.Is(gerr, io.EOF) {
				s.state = jsDone
				continue
			}
			if gerr != nil {
				return nil, gerr
			}
			return s.j.metrics.Emit(b, time.Now())
		case jsDone:
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
	}
}

// afterProbe is the state that follows the left input's end.
func (s *joinStream) afterProbe() joinState {
	if s.j.typ.rightAfter() {
		return jsUnmatched
	}
	return jsFinish
}

func (s *joinStream) start(ctx context.Context) error {
	if s.j.gate() {
		return s.startGate(ctx)
	}
	first, err := s.firstLeft(ctx)
	if err != nil {
		return err
	}
	if first == nil && !s.j.typ.keepsRight() && (s.shared == nil || !s.j.typ.rightAfter()) {
		if s.shared != nil {
			s.shared.probeEnded(s, true) // nothing to probe
		}
		s.state = jsFinish
		return nil
	}
	if err := s.doBuild(ctx); err != nil {
		if first != nil {
			first.Release()
		}
		return err
	}
	if s.grace != nil {
		s.grace.pending, s.state = first, jsGrace
		return nil
	}
	if s.pw != nil { // the shared build spilled: this partition's share
		s.pw.pending, s.state = first, jsGrace
		return nil
	}
	if s.nbuild == 0 && (s.j.typ == JoinInner || s.j.typ == JoinSemi) {
		// No left row can match an empty build, and these types emit
		// only matched ones: the rest of the left input is never read,
		// as PostgreSQL's hash join quits when its inner side is empty
		// and the outer rows are not wanted unmatched (TPC-DS Q24: a
		// store filter that keeps none, below joins probed by 2.9M
		// store_sales rows).
		if first != nil {
			first.Release()
		}
		if s.shared != nil {
			s.shared.probeEnded(s, true)
		}
		s.state = jsFinish
		return nil
	}
	s.probeFrom(first)
	return nil
}

// firstLeft executes the left input (a partition's stream comes with its
// left partition) and pulls its first non-empty batch, nil at the end.
func (s *joinStream) firstLeft(ctx context.Context) (arrow.RecordBatch, error) {
	if s.left == nil {
		var err error
		if s.left, err = s.j.left.Execute(ctx, s.tc); err != nil {
			return nil, err
		}
	}
	return s.nextLeft(ctx)
}

// probeFrom moves to probing the left batch first, or past the probe
// when the left input is empty (first is nil), once the build is done.
func (s *joinStream) probeFrom(first arrow.RecordBatch) {
	if first == nil {
		s.state = s.afterProbe()
		return
	}
	s.setPB(first)
	s.state = jsProbe
}

// nextLeft returns the next non-empty left batch, nil at the end.
func (s *joinStream) nextLeft(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		b, err := s.left.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if b.NumRows() > 0 {
			return b, nil
		}
		b.Release()
	}
}

func (s *joinStream) setPB(b arrow.RecordBatch) {
	s.pb = b
	s.row, s.cand = 0, candNew
	s.hits = growInt32s(s.hits, int(b.NumRows()))
	clear(s.hits)
	s.pkeys = s.pkeys[:0]
	for _, k := range s.j.lkeys {
		s.pkeys = append(s.pkeys, b.Column(k))
	}
	if s.idx != nil {
		// The whole batch is looked up at once: one hashing loop per key
		// column, then one probe loop.
		s.pview.normalize(s.pkeys, int(b.NumRows()))
		s.phash, s.heads, s.pslot = s.idx.probe(&s.pview, int(b.NumRows()), s.phash, s.heads, s.pslot)
	}
	s.j.metrics.Add("probe_rows", b.NumRows())
}

func (s *joinStream) doBuild(ctx context.Context) error {
	if s.shared != nil {
		return s.shared.attach(ctx, s)
	}
	in := s.buildIn
	s.buildIn = nil
	if in == nil {
		var err error
		if in, err = s.j.right.Execute(ctx, s.tc); err != nil {
			return err
		}
	}
	consumer := "NestedLoopJoinExec"
	if len(s.j.rkeys) > 0 {
		consumer = "HashJoinExec"
	}
	s.res = s.tc.MemoryPool().NewReservation(consumer)
	bs, full, err := collectBuild(ctx, in, s.res, len(s.j.rkeys) > 0, s.canSpill())
	if err != nil {
		return err
	}
	if full {
		s.res.Free() // the grace join reserves what it keeps
		return s.startGrace(ctx, bs, in)
	}
	defer func() {
		var gone int64
		for _, b := range bs {
			gone += BatchBytes(b)
			b.Release()
		}
		s.res.Shrink(gone) // the batches are gone; their concatenation stays
	}()
	start := time.Now()
	defer s.j.metrics.Since(start)
	rs := s.j.right.Schema()
	if len(bs) == 0 {
		cols := emptyCols(rs, s.tc)
		bs = append(bs, array.NewRecordBatch(rs, cols, 0))
		for _, c := range cols {
			c.Release()
		}
	}
	all, err := ConcatBatches(rs, s.tc.Allocator(), bs)
	if err != nil {
		return err
	}
	s.build = all
	n := int(all.NumRows())
	if n > math.MaxInt32 {
		return fmt.Errorf("%w: build side has %d rows", physexpr.ErrInvalidArgument, n)
	}
	s.nbuild = n
	s.j.metrics.Add("build_rows", int64(n))
	if s.j.typ.rightAfter() {
		s.rightHit = make([]bool, n)
	}
	if len(s.j.rkeys) == 0 || n == 0 {
		return nil // no index: first finds no candidate in an empty build
	}
	cols := make([]arrow.Array, len(s.j.rkeys))
	for i, k := range s.j.rkeys {
		cols[i] = all.Column(k)
		s.buildNull = s.buildNull || cols[i].NullN() > 0
	}
	s.idx = newKeyIndex(cols, n)
	// collectBuild reserved indexBytesPerRow a row; the table's real size
	// depends on the slot count's rounding and the key columns.
	if d := s.idx.bytes() - indexBytesPerRow*int64(n); d > 0 {
		if err := s.res.TryGrow(d); err != nil {
			if !s.canSpill() {
				return fmt.Errorf("join build side's hash table over the memory limit (%d rows): %w", n, err)
			}
			// The table came out over its estimate and the pool refuses
			// the rest: the build has overflowed after all.
			s.idx, s.build, s.nbuild, s.rightHit, s.buildNull = nil, nil, 0, nil, false
			s.res.Free()
			return s.startGrace(ctx, []arrow.RecordBatch{all}, &batchStream{schema: rs})
		}
	} else {
		s.res.Shrink(-d)
	}
	return nil
}

// first returns row r's first candidate right row, -1 for none.
func (s *joinStream) first(r int) int32 {
	if s.nbuild == 0 {
		return -1
	}
	if s.idx == nil {
		return 0
	}
	if s.j.typ == JoinAntiNullAware && (s.buildNull || s.pkeys[0].IsNull(r)) {
		// NOT IN over a non-empty set holding NULL, or of a NULL: never
		// true, so the row counts as matched and is dropped.
		s.hits[r] = 1
		return -1
	}
	return s.heads[r]
}

// following returns the candidate after m, -1 for none.
func (s *joinStream) following(m int32) int32 {
	if s.idx != nil {
		return s.idx.next[m]
	}
	if int(m)+1 < s.nbuild {
		return m + 1
	}
	return -1
}

// probe gathers one chunk of candidate pairs from the cursor and emits
// what it decides.
func (s *joinStream) probe(ctx context.Context) error {
	if s.j.typ == JoinMark {
		return s.probeMark(ctx)
	}
	if s.pb == nil {
		b, err := s.nextLeft(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			s.state = s.afterProbe()
			return nil
		}
		s.setPB(b)
	}
	start := time.Now()
	defer s.j.metrics.Since(start)
	typ := s.j.typ
	// A semi or anti join without a residual decides a row on its first
	// candidate: no pairs are needed.
	decideOnFirst := typ.leftOnly() && s.j.bound == nil
	markOnly, rightOnly := s.markOnly(), typ.rightOnly()
	limit := s.tc.RowsPerBatch()
	n := int(s.pb.NumRows())
	// A row without a candidate gathers nothing and decides nothing here
	// (its hits stay 0): a run of them is skipped in one loop. Not for the
	// NULL-aware anti join, whose first decides a NULL's row.
	skip := s.idx != nil && typ != JoinAntiNullAware
	heads := s.heads
	rowStart := s.row
	s.li, s.ri = s.li[:0], s.ri[:0]
	for s.row < n && len(s.li) < limit {
		r := s.row
		if skip && s.cand == candNew && heads[r] < 0 {
			for r++; r < n && heads[r] < 0; r++ {
			}
			s.row = r
			continue
		}
		if s.cand == candNew {
			s.cand = s.first(r)
			if decideOnFirst && s.cand >= 0 {
				s.hits[r] = 1
				s.cand = -1
			}
			if markOnly && s.cand >= 0 {
				s.markChain(s.cand) // join_right.go
				s.cand = -1
			}
		}
		if typ.leftOnly() && s.hits[r] > 0 {
			s.cand = -1 // decided: a match is all a semi or anti join needs
		}
		for s.cand >= 0 && len(s.li) < limit {
			// A right-only join needs a build row matched once: a marked
			// one is not tested again.
			if !rightOnly || !s.rightHit[s.cand] {
				s.li = append(s.li, int32(r))
				s.ri = append(s.ri, s.cand)
			}
			s.cand = s.following(s.cand)
		}
		if s.cand < 0 {
			s.row++
			s.cand = candNew
		}
	}
	s.j.metrics.Max("pairs_max", int64(len(s.li))) // the memory bound, for tests and EXPLAIN ANALYZE
	pass, err := s.test(ctx)
	if err != nil {
		return err
	}
	for k := range s.li {
		if pass != nil && !pass[k] {
			continue
		}
		r := s.li[k]
		s.hits[r]++
		if typ == JoinSingle && s.hits[r] > 1 {
			return ErrSubqueryRows
		}
		if s.rightHit != nil {
			s.rightHit[s.ri[k]] = true
		}
	}
	// Emit in left order: a row's matching pairs, then the row itself if
	// its candidates are all seen and the type keeps it.
	outL, outR, outRNull := s.outL[:0], s.outR[:0], s.outRNull[:0]
	defer func() { s.outL, s.outR, s.outRNull = outL, outR, outRNull }() // scratch for the next chunk
	k := 0
	emitPairs := func(r int32) {
		for ; k < len(s.li) && s.li[k] == r; k++ {
			if (pass == nil || pass[k]) && typ.pairsOut() {
				outL, outR, outRNull = append(outL, r), append(outR, s.ri[k]), append(outRNull, false)
			}
		}
	}
	if !typ.keepsLeft() && typ != JoinSemi {
		// No left row is emitted for itself: the passing pairs, in order,
		// are the output (none for the right-only types).
		if typ.pairsOut() {
			for k := range s.li {
				if pass == nil || pass[k] {
					outL, outR, outRNull = append(outL, s.li[k]), append(outR, s.ri[k]), append(outRNull, false)
				}
			}
		}
	} else {
		for r := rowStart; r < s.row; r++ {
			if k < len(s.li) && s.li[k] == int32(r) {
				emitPairs(int32(r))
			}
			matched := s.hits[r] > 0
			switch {
			case typ == JoinSemi && matched:
				outL = append(outL, int32(r))
			case (typ == JoinAnti || typ == JoinAntiNullAware) && !matched:
				outL = append(outL, int32(r))
			case (typ == JoinLeft || typ == JoinFull || typ == JoinSingle) && !matched:
				outL, outR, outRNull = append(outL, int32(r)), append(outR, 0), append(outRNull, true)
			}
		}
		if s.row < n {
			emitPairs(int32(s.row)) // the row the chunk ended in
		}
	}
	var err2 error
	if len(outL) > 0 {
		rnull := outRNull
		if !slices.Contains(rnull, true) {
			rnull = nil // no NULL right row: the gather makes no validity bitmap
		}
		err2 = s.emit(ctx, outL, outR, rnull)
	}
	if s.row >= n {
		s.releasePB()
	}
	return err2
}

// test evaluates the residual over the gathered pairs; nil means all pass.
func (s *joinStream) test(ctx context.Context) ([]bool, error) {
	if s.j.bound == nil {
		return nil, nil
	}
	return s.testWith(ctx, s.j.bound, false)
}

// testWith evaluates bound over the gathered pairs: pass[k] is whether
// pair k's value is true; with withNull, s.null[k] whether it is NULL.
func (s *joinStream) testWith(ctx context.Context, bound physexpr.Bound, withNull bool) ([]bool, error) {
	pass := growBools(s.pass, len(s.li))
	s.pass = pass
	clear(pass)
	if withNull {
		s.null = growBools(s.null, len(s.li))
		clear(s.null)
	}
	if len(s.li) == 0 {
		return pass, nil
	}
	mem := s.tc.Allocator()
	pairs, err := s.takeRows(ctx, s.j.pair, s.pb, s.li, s.build, s.ri, nil)
	if err != nil {
		return nil, err
	}
	defer pairs.Release()
	d, err := bound.Eval(ctx, mem, pairs)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	if sd, ok := d.(*compute.ScalarDatum); ok {
		b, _ := sd.Value.(*scalar.Boolean)
		for i := range pass {
			pass[i] = b != nil && b.IsValid() && b.Value
			if withNull {
				s.null[i] = b == nil || !b.IsValid()
			}
		}
		return pass, nil
	}
	mask := d.(*compute.ArrayDatum).MakeArray()
	defer mask.Release()
	bm, ok := mask.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("%w: join condition gave %s", physexpr.ErrSchema, mask.DataType())
	}
	for i := range pass {
		pass[i] = bm.IsValid(i) && bm.Value(i)
		if withNull {
			s.null[i] = bm.IsNull(i)
		}
	}
	return pass, nil
}

// emit pushes the output rows: left rows outL (nil: all-NULL left columns,
// as many as outR) joined with right rows outR (NULL where outRNull).
func (s *joinStream) emit(ctx context.Context, outL, outR []int32, outRNull []bool) error {
	b, err := s.takeRows(ctx, s.j.schema, s.pb, outL, s.build, outR, outRNull)
	if err != nil {
		return err
	}
	defer b.Release()
	return s.co.Push(b)
}

// takeRows builds a batch of schema sc from left rows li of lb and right
// rows ri of rb (rnull marks NULL right rows). li nil with ri set: NULL
// left columns. A schema as wide as lb takes the left columns only.
func (s *joinStream) takeRows(ctx context.Context, sc *arrow.Schema, lb arrow.RecordBatch, li []int32, rb arrow.RecordBatch, ri []int32, rnull []bool) (arrow.RecordBatch, error) {
	mem := s.tc.Allocator()
	rows := len(li)
	if li == nil {
		rows = len(ri)
	}
	out := make([]arrow.Array, 0, sc.NumFields())
	defer func() {
		for _, c := range out {
			c.Release()
		}
	}()
	nl := s.j.left.Schema().NumFields()
	if li == nil {
		for i := range nl {
			out = append(out, array.MakeArrayOfNull(mem, sc.Field(i).Type, rows))
		}
	} else {
		var err error
		if out, err = physexpr.Gather(ctx, mem, lb.Columns()[:nl], li, nil, out); err != nil {
			return nil, fmt.Errorf("exec: join: %w", err)
		}
	}
	if sc.NumFields() > nl {
		var err error
		if out, err = physexpr.Gather(ctx, mem, rb.Columns(), ri, rnull, out); err != nil {
			return nil, fmt.Errorf("exec: join: %w", err)
		}
	}
	return array.NewRecordBatch(sc, out, int64(rows)), nil
}
