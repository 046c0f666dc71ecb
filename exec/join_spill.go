package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// A hash join whose build side does not fit its reservation becomes a
// hybrid grace hash join, as PostgreSQL's Hash node grows nbatch
// (ExecHashIncreaseNumBatches) and its join runs batch by batch
// (ExecHashJoinNewBatch):
//
//	build overflows ─► partition the build rows read and the rest of the
//	  │               build input by a hash of the key (its high bits after
//	  │               a seeded remix: not the bits the table's slots use)
//	  │               into N partitions, all held in memory at first; when
//	  │               the pool refuses, the largest held one goes to a
//	  │               spill file, and so do its later rows
//	  ▼
//	resident: the held partitions are one in-memory join, probed by the
//	  │       probe input's rows of those partitions; the probe's other
//	  │       rows go to their partition's probe file as they pass
//	  ▼
//	each spilled partition: a join of its build file and probe file, with
//	  │   the same state machine (a joinStream), which spills again with a
//	  │   new seed if its build still does not fit (depth-limited)
//	  ▼
//	done (EOF); Close, an error or a cancellation remove every file
//
// Every build row and every probe row of one key land in the same
// partition, so each partition's join is exact for the inner, left,
// right, full, semi, anti and single joins and their right variants; the
// unmatched build rows of RIGHT and FULL are emitted by their partition.
// The output is not in the probe order, so a join whose order the planner
// relies on (KeepOuterOrder, or one that promises its left ordering), a
// mark join and NOT IN's NULL-aware anti join (whose every row depends on
// the whole build side: a NULL or none) do not spill (canSpill). A
// parallel join's shared build spills through this same partitioning, its
// partitions shared by the probe workers (join_spill_shared.go). A row with a NULL key matches nothing:
// where the join type never emits it alone it is dropped here, never
// written.

// graceMinFanout and graceMaxFanout bound N, the partitions per level.
const (
	graceMinFanout = 16
	graceMaxFanout = 64
	// graceMaxDepth bounds the repartitionings of one partition: each
	// splits it by fresh hash bits, so a partition still over the limit
	// after this many holds a few keys with too many rows.
	graceMaxDepth = 6
	// graceBuffer is each open spill file's write buffer.
	graceBuffer = 16 << 10
	// graceMinBudget is the least memory a grace join runs with.
	graceMinBudget = 1 << 10
)

// ErrJoinKeySkew: a hash join's build rows of one key are more than the
// memory limit holds, so partitioning cannot split them. It comes
// wrapped with memlimit.ErrResourceExhausted.
var ErrJoinKeySkew = errors.New("exec: the build rows of one join key do not fit the memory limit")

// canSpill: the build of this join may be partitioned to spill files.
func (s *joinStream) canSpill() bool {
	j := s.j
	return len(j.rkeys) > 0 && s.shared == nil && (!s.forShared || s.spillShared) && !j.keepOrder && j.typ != JoinMark && j.typ != JoinAntiNullAware &&
		len(joinOrdering(j.left, j.typ).Ordering) == 0
}

// gracePart is one partition: its build rows held in memory (mem, with
// held bytes reserved) until it spills, then its files.
type gracePart struct {
	mem          []arrow.RecordBatch
	held         int64
	bytes        int64 // the reservation all its build rows need
	spilled      bool
	build, probe *SpillWriter
	buildPath    string
	probePath    string
	buildRows    int64
	probeRows    int64
}

// graceJoin is a joinStream's build overflow (above).
type graceJoin struct {
	s       *joinStream
	mx      *Metrics
	dir     spillDir
	seed    uint64
	shift   uint // partition = remix(hash) >> shift
	parts   []gracePart
	res     *memlimit.Reservation
	left    Stream            // the probe input, s.left
	pending arrow.RecordBatch // the probe batch pulled before the build
	feedEOF bool
	cur     *joinStream // the partition join running
	started bool        // the resident join has run
	nextP   int         // the next spilled partition to join
	rt      graceRoute  // route's scratch (a parallel join's workers have their own)
	budget  int64       // pool's limit
	bufs    int         // files whose write buffer is reserved in res
	// grant holds, in the statement's pool, what the pool gave the build
	// before it overflowed, for the join's life; pool is a pool of that
	// size, which res and the partitions' joins (under tc) draw from. An
	// operator above, which consumes the join's output meanwhile and may
	// reserve all the statement's memory that is free, cannot take it
	// from the partitions still to join.
	grant *memlimit.Reservation
	pool  *memlimit.Pool
	tc    *TaskContext
	// the build rows with a NULL key that a RIGHT, FULL or RIGHT ANTI
	// join emits (addNulls): their file, then its reader
	nulls    *SpillWriter
	nullPath string
	nullIn   Stream
	err      error
	closed   bool
}

// startGrace partitions the build batches bs (the last one unreserved)
// and the rest of in, which it closes.
func (s *joinStream) startGrace(ctx context.Context, bs []arrow.RecordBatch, in Stream) error {
	mx := s.spillMx
	if mx == nil {
		mx = &s.j.metrics
	}
	if s.depth >= graceMaxDepth {
		releaseBatches(bs)
		in.Close()
		return fmt.Errorf("join build side: a partition is still over the memory limit after %d repartitionings (a few join keys hold too many rows): %w", s.depth, memlimit.ErrResourceExhausted)
	}
	var seen int64
	for _, b := range bs {
		seen += 2*BatchBytes(b) + indexBytesPerRow*b.NumRows()
	}
	// N from the size seen against what the pool gave (budget). At the
	// top the rest of the input is unknown: room for a few times as much,
	// and the levels below split whatever is still too big. A spilled
	// partition's join knows its size (expect): twice the partitions it
	// needs, at least four.
	n := graceMinFanout
	last := bs[len(bs)-1]
	budget := seen - 2*BatchBytes(last) - indexBytesPerRow*last.NumRows()
	if budget <= 0 { // the pool refused the first batch, or the index
		budget = max(seen/2, 1)
	}
	switch {
	case s.expect > 0:
		n = min(graceMaxFanout, max(4, 1<<bits.Len64(uint64(2*s.expect/budget))))
	case seen/budget > 1:
		n = min(graceMaxFanout, 1<<bits.Len64(uint64(graceMinFanout*seen/budget-1)))
	}
	mx.Max("spill_depth", int64(s.depth+1))
	grant := s.tc.MemoryPool().NewReservation("HashJoinExec")
	for grant.TryGrow(budget) != nil {
		if budget <= graceMinBudget {
			releaseBatches(bs)
			in.Close()
			return fmt.Errorf("join build side over the memory limit: not even %d bytes to spill with: %w", budget, memlimit.ErrResourceExhausted)
		}
		budget = max(budget/2, graceMinBudget)
	}
	pool := memlimit.NewPool(budget)
	tc := *s.tc
	tc.Pool = pool
	g := &graceJoin{s: s, mx: mx, dir: spillDir{parent: s.tc.spillDir(), prefix: "stablerow-join-"},
		seed: mix(s.seed ^ 0x9e3779b97f4a7c15), shift: uint(64 - bits.TrailingZeros(uint(n))),
		parts: make([]gracePart, n), res: pool.NewReservation("HashJoinExec"), left: s.left, grant: grant, pool: pool, tc: &tc, budget: budget}
	s.grace = g
	mx.Add("partitions", int64(n))
	err := g.partitionBuild(ctx, bs, in)
	if cerr := in.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		g.fail(err)
		return err
	}
	return nil
}

// releaseBatches releases each of bs.
func releaseBatches(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// partitionBuild routes bs, then the rest of in, into the partitions.
// Every non-NULL key having one hash (one key, as far as hashing can
// tell) while a partition spilled is ErrJoinKeySkew: no split helps.
func (g *graceJoin) partitionBuild(ctx context.Context, bs []arrow.RecordBatch, in Stream) error {
	var one uint64
	var keyed int64
	same := true
	add := func(b arrow.RecordBatch) error {
		defer b.Release()
		part := g.route(b, g.s.j.rkeys, false)
		var nulls []int64
		for r, p := range part {
			if p < 0 {
				nulls = append(nulls, int64(r))
				continue
			}
			if keyed == 0 {
				one = g.rt.hashes[r]
			}
			keyed++
			same = same && g.rt.hashes[r] == one
		}
		if len(nulls) > 0 && g.s.j.typ.keepsRight() {
			if err := g.addNulls(ctx, b, nulls); err != nil {
				return err
			}
		}
		return g.split(ctx, b, part, g.addBuild)
	}
	for i, b := range bs {
		if err := add(b); err != nil {
			releaseBatches(bs[i+1:])
			return err
		}
	}
	for {
		b, err := in.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := add(b); err != nil {
			return err
		}
	}
	// The probe files' buffers are reserved now, while held partitions
	// can still spill for them: once the probe starts, the held rows'
	// share passes to the resident join, which must get it all. (A
	// partition spilled by this loop opens its probe file on its first
	// probe row.)
	for i := range g.parts {
		p := &g.parts[i]
		if p.spilled {
			if err := g.open(&p.probe, &p.probePath, g.s.j.left.Schema()); err != nil {
				return err
			}
		}
	}
	if g.nulls != nil {
		if err := g.finish(g.nulls); err != nil {
			return err
		}
		g.nulls = nil
	}
	spilled := false
	for i := range g.parts {
		p := &g.parts[i]
		spilled = spilled || p.spilled
		if p.build != nil {
			if err := g.finish(p.build); err != nil {
				return err
			}
			p.build = nil
		}
	}
	if same && keyed > 0 && spilled {
		return fmt.Errorf("%w: %d build rows of one key (raise memory_limit): %w", ErrJoinKeySkew, keyed, memlimit.ErrResourceExhausted)
	}
	return nil
}

// addNulls writes b's rows idx, whose keys are NULL, to the file of the
// build rows a RIGHT, FULL or RIGHT ANTI join emits unmatched whatever
// the probe holds. They need no partition: all of them would land in
// one (a NULL's hash is one value) that no repartitioning splits.
func (g *graceJoin) addNulls(ctx context.Context, b arrow.RecordBatch, idx []int64) error {
	nb, err := takeBatch(ctx, g.s.tc.Allocator(), b, idx)
	if err != nil {
		return err
	}
	defer nb.Release()
	return g.write(&g.nulls, &g.nullPath, g.s.j.right.Schema(), nb)
}

// nextNull is the next output batch of the NULL-key build rows: the
// right columns (RIGHT ANTI), or NULL left columns and the right ones.
func (g *graceJoin) nextNull(ctx context.Context) (arrow.RecordBatch, error) {
	if g.nullIn == nil {
		in, err := openRunStream(g.nullPath, g.s.j.right.Schema(), g.s.tc.Allocator())
		if err != nil {
			return nil, err
		}
		g.nullIn, g.nullPath = in, ""
	}
	b, err := g.nullIn.Next(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	sc := g.s.j.schema
	if g.s.j.typ.rightOnly() {
		return array.NewRecordBatch(sc, b.Columns(), b.NumRows()), nil
	}
	nl := g.s.j.left.Schema().NumFields()
	cols := make([]arrow.Array, 0, sc.NumFields())
	for i := range nl {
		cols = append(cols, array.MakeArrayOfNull(g.s.tc.Allocator(), sc.Field(i).Type, int(b.NumRows())))
	}
	cols = append(cols, b.Columns()...)
	out := array.NewRecordBatch(sc, cols, b.NumRows())
	ReleaseArrays(cols[:nl])
	return out, nil
}

// graceRoute is route's scratch: the rows' keys and hashes after a call.
type graceRoute struct {
	keys   keyCols
	hashes []uint64
}

// route computes the partition of each row of b by its key columns keys:
// -1 for a row with a NULL key unless keep (a probe row the join emits
// unmatched). g.rt holds the rows' keys and hashes after.
func (g *graceJoin) route(b arrow.RecordBatch, keys []int, keep bool) []int32 {
	return g.routeIn(&g.rt, b, keys, keep)
}

// routeIn is route with the scratch rt (a parallel join's worker's own).
func (g *graceJoin) routeIn(rt *graceRoute, b arrow.RecordBatch, keys []int, keep bool) []int32 {
	n := int(b.NumRows())
	cols := make([]arrow.Array, len(keys))
	for i, k := range keys {
		cols[i] = b.Column(k)
	}
	rt.keys.normalize(cols, n)
	rt.hashes = rt.keys.hash(0, n, rt.hashes)
	part := make([]int32, n)
	for r, h := range rt.hashes {
		if !keep && rt.keys.rowNull(r) {
			part[r] = -1
			continue
		}
		part[r] = graceBucket(h, g.seed, g.shift)
	}
	return part
}

// graceBucket is the partition of a key of hash h at a level of seed
// seed: the top bits (64 - shift of them) of a remix of h, bits the hash
// table's slots (its low bits) do not use.
func graceBucket(h, seed uint64, shift uint) int32 {
	return int32(mix(h^seed) >> shift)
}

// split hands each partition's rows of b, in order, to put.
func (g *graceJoin) split(ctx context.Context, b arrow.RecordBatch, part []int32, put func(context.Context, int, arrow.RecordBatch) error) error {
	rows := make([][]int64, len(g.parts))
	for r, p := range part {
		if p >= 0 {
			rows[p] = append(rows[p], int64(r))
		}
	}
	for p, idx := range rows {
		if len(idx) == 0 {
			continue
		}
		piece, err := takeBatch(ctx, g.s.tc.Allocator(), b, idx)
		if err != nil {
			return err
		}
		err = put(ctx, p, piece)
		piece.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// addBuild keeps a build piece in memory if the pool gives its share
// (what the partition's join will reserve for it), spilling the largest
// held partitions to make room; a spilled partition's pieces go to its
// file.
func (g *graceJoin) addBuild(ctx context.Context, p int, piece arrow.RecordBatch) error {
	part := &g.parts[p]
	part.buildRows += piece.NumRows()
	need := 2*BatchBytes(piece) + indexBytesPerRow*piece.NumRows()
	part.bytes += need
	for !part.spilled {
		if g.res.TryGrow(need) == nil {
			piece.Retain()
			part.mem = append(part.mem, piece)
			part.held += need
			return nil
		}
		if err := g.spillPart(g.largestHeld()); err != nil {
			return err
		}
	}
	return g.write(&part.build, &part.buildPath, g.s.j.right.Schema(), piece)
}

// largestHeld is the partition not spilled with the most bytes held
// (there is one: addBuild's own partition is not spilled).
func (g *graceJoin) largestHeld() int {
	best := -1
	for i := range g.parts {
		if !g.parts[i].spilled && (best < 0 || g.parts[i].held > g.parts[best].held) {
			best = i
		}
	}
	return best
}

// spillPart writes partition p's held build rows to its file and frees
// them; its later rows go to the file too.
func (g *graceJoin) spillPart(p int) error {
	part := &g.parts[p]
	part.spilled = true
	mem := part.mem
	part.mem = nil
	defer releaseBatches(mem)
	g.res.Shrink(part.held)
	part.held = 0
	for _, b := range mem {
		if err := g.write(&part.build, &part.buildPath, g.s.j.right.Schema(), b); err != nil {
			return err
		}
	}
	return nil
}

// write appends b to the file *w (made on the first write, its buffer
// reserved) of schema sc.
func (g *graceJoin) write(w **SpillWriter, path *string, sc *arrow.Schema, b arrow.RecordBatch) error {
	if *w == nil {
		if err := g.open(w, path, sc); err != nil {
			return err
		}
	}
	// The piece carries its input's schema; the file holds the node's.
	nb := array.NewRecordBatch(sc, b.Columns(), b.NumRows())
	defer nb.Release()
	return (*w).Write(nb)
}

// open makes the file *w of schema sc, its buffer reserved.
func (g *graceJoin) open(w **SpillWriter, path *string, sc *arrow.Schema) error {
	if err := g.reserveBuffer(); err != nil {
		return err
	}
	f, err := g.dir.create()
	if err != nil {
		return err
	}
	*w = newSpillWriterBuffered(f, f, sc, g.s.tc.Allocator(), graceBuffer)
	*path = f.Name()
	return nil
}

// reserveBuffer reserves a new file's write buffer, spilling the largest
// held partitions for it. With none held the buffer is used unreserved:
// a file must be written whatever the pool says, and graceBuffer times
// the fan-out bounds what these take.
func (g *graceJoin) reserveBuffer() error {
	for g.res.TryGrow(graceBuffer) != nil {
		v := g.largestHeld()
		if v < 0 || g.parts[v].held == 0 {
			return nil
		}
		if err := g.spillPart(v); err != nil {
			return err
		}
	}
	g.bufs++
	return nil
}

// finish ends a spill file and counts it.
func (g *graceJoin) finish(w *SpillWriter) error {
	size, err := w.Finish()
	if g.bufs > 0 {
		g.res.Shrink(graceBuffer)
		g.bufs--
	}
	g.mx.Add("spill_count", 1)
	g.mx.Add("spilled_rows", w.Rows())
	g.mx.Add("spilled_bytes", size)
	return err
}

// next is the next output batch: the resident join's, then each spilled
// partition's.
func (g *graceJoin) next(ctx context.Context) (arrow.RecordBatch, error) {
	if g.err != nil {
		return nil, g.err
	}
	for {
		if err := ctx.Err(); err != nil {
			g.fail(err)
			return nil, err
		}
		if g.cur != nil {
			b, err := g.cur.Next(ctx)
			if err == nil {
				return b, nil
			}
			if !errors.Is(err, io.EOF) {
				g.fail(err)
				return nil, err
			}
			err = g.cur.Close()
			g.cur = nil
			if err == nil && !g.feedEOF {
				err = g.drainFeed(ctx)
			}
			if err != nil {
				g.fail(err)
				return nil, err
			}
			continue
		}
		if !g.started {
			g.started = true
			g.startResident()
			continue
		}
		more, err := g.nextSpilled()
		if err != nil {
			g.fail(err)
			return nil, err
		}
		if more {
			continue
		}
		if g.nullPath == "" && g.nullIn == nil {
			return nil, io.EOF
		}
		b, err := g.nextNull(ctx)
		if err != nil && !errors.Is(err, io.EOF) {
			g.fail(err)
		}
		return b, err
	}
}

// sub is a join of the same keys, type and condition over the streams
// left and build, one level deeper; its spills count in g's metrics.
func (g *graceJoin) sub(tc *TaskContext, left, build Stream, seed uint64) *joinStream {
	j := g.s.j
	c := &joinCore{left: j.left, right: j.right, typ: j.typ, lkeys: j.lkeys, rkeys: j.rkeys, residual: j.residual,
		bound: j.bound, schema: j.schema, pair: j.pair, full: j.full}
	js := c.execute(tc)
	js.left, js.buildIn, js.depth, js.seed, js.spillMx = left, build, g.s.depth+1, seed, g.mx
	return js
}

// startResident starts the join of the held partitions, probed by the
// probe rows of those partitions as feed passes them; the pool's share of
// their rows moves to that join's own reservation.
func (g *graceJoin) startResident() {
	var held []arrow.RecordBatch
	for i := range g.parts {
		p := &g.parts[i]
		held = append(held, p.mem...)
		g.res.Shrink(p.held)
		p.mem, p.held = nil, 0
	}
	// Should the pool refuse them now (another operator grew), the
	// resident join spills them one level deeper, with its own seed.
	g.cur = g.sub(g.tc, &graceFeed{g: g}, &batchStream{schema: g.s.j.right.Schema(), bs: held}, mix(g.seed))
}

// nextSpilled starts the next spilled partition's join that can emit a
// row, reporting false when none is left.
func (g *graceJoin) nextSpilled() (bool, error) {
	for ; g.nextP < len(g.parts); g.nextP++ {
		js, err := g.partJoin(g.tc, g.nextP)
		if err != nil {
			return false, err
		}
		if js != nil {
			g.cur = js
			g.nextP++
			return true, nil
		}
	}
	return false, nil
}

// partJoin is the join of partition i's files under tc, one level deeper;
// nil when the partition is not spilled or its join can emit no row (its
// files are removed then).
func (g *graceJoin) partJoin(tc *TaskContext, i int) (*joinStream, error) {
	p := &g.parts[i]
	if !g.runs(i) {
		g.removeFiles(p)
		return nil, nil
	}
	var left, build Stream = &batchStream{schema: g.s.j.left.Schema()}, &batchStream{schema: g.s.j.right.Schema()}
	if p.probePath != "" {
		in, err := openRunStream(p.probePath, g.s.j.left.Schema(), g.s.tc.Allocator())
		p.probePath = ""
		if err != nil {
			return nil, err
		}
		left = in
	}
	if p.buildPath != "" {
		in, err := openRunStream(p.buildPath, g.s.j.right.Schema(), g.s.tc.Allocator())
		p.buildPath = ""
		if err != nil {
			left.Close()
			return nil, err
		}
		build = in
	}
	js := g.sub(tc, left, build, mix(g.seed+uint64(i)+1))
	js.expect = p.bytes
	return js, nil
}

// runs: partition i is spilled and its join can emit a row.
func (g *graceJoin) runs(i int) bool {
	typ := g.s.j.typ
	p := &g.parts[i]
	return p.spilled && (p.probeRows > 0 || typ.keepsRight()) && (p.buildRows > 0 || typ.keepsLeft())
}

// removeFiles deletes a partition's files that no join will read.
func (g *graceJoin) removeFiles(p *gracePart) {
	for _, path := range []*string{&p.buildPath, &p.probePath} {
		if *path != "" {
			os.Remove(*path)
			*path = ""
		}
	}
}

// drainFeed passes the rest of the probe input to the partitions' files
// (the resident join may end before its input does).
func (g *graceJoin) drainFeed(ctx context.Context) error {
	f := &graceFeed{g: g}
	for {
		b, err := f.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		b.Release()
	}
}

// fail ends the join with err, its files removed.
func (g *graceJoin) fail(err error) {
	if g.err == nil {
		g.err = err
	}
	g.release()
}

func (g *graceJoin) close() {
	if !g.closed {
		g.release()
		g.closed = true
	}
}

// release drops every held batch, open file and partition join, and
// removes the spill directory.
func (g *graceJoin) release() {
	if g.cur != nil {
		g.cur.Close()
		g.cur = nil
	}
	if g.pending != nil {
		g.pending.Release()
		g.pending = nil
	}
	if g.nulls != nil {
		g.nulls.Abort()
		g.nulls = nil
	}
	if g.nullIn != nil {
		g.nullIn.Close()
		g.nullIn = nil
	}
	for i := range g.parts {
		p := &g.parts[i]
		releaseBatches(p.mem)
		p.mem = nil
		for _, w := range []**SpillWriter{&p.build, &p.probe} {
			if *w != nil {
				(*w).Abort()
				*w = nil
			}
		}
	}
	g.res.Free()
	g.grant.Free()
	g.dir.remove()
}

// graceFeed is the resident join's probe input: the probe input's rows of
// the held partitions, in order; it writes the other rows to their
// partitions' probe files as it passes them, and finishes the files at
// the input's end.
type graceFeed struct{ g *graceJoin }

func (f *graceFeed) Schema() *arrow.Schema { return f.g.s.j.left.Schema() }
func (f *graceFeed) Close() error          { return nil } // the grace join owns the probe input

func (f *graceFeed) Next(ctx context.Context) (arrow.RecordBatch, error) {
	g := f.g
	if g.feedEOF {
		return nil, io.EOF
	}
	typ := g.s.j.typ
	for {
		b := g.pending
		g.pending = nil
		if b == nil {
			var err error
			if b, err = g.s.nextLeft(ctx); err != nil {
				return nil, err
			}
		}
		if b == nil {
			return nil, f.end()
		}
		part := g.route(b, g.s.j.lkeys, typ.keepsLeft())
		out, err := g.feedBatch(ctx, b, part, func(_ context.Context, p int, piece arrow.RecordBatch) error {
			g.parts[p].probeRows += piece.NumRows()
			return g.write(&g.parts[p].probe, &g.parts[p].probePath, g.s.j.left.Schema(), piece)
		})
		if err != nil || out != nil {
			return out, err
		}
	}
}

// feedBatch passes one probe batch b, whose rows part routed: the rows of
// spilled partitions go to spill (a partition's probe file; a spilled
// partition with no build row takes only the rows the join keeps
// unmatched), and the rows of held partitions come back, in order, for
// the resident join; nil when none. b is released. The single and the
// shared grace join both feed their resident joins through it.
func (g *graceJoin) feedBatch(ctx context.Context, b arrow.RecordBatch, part []int32, spill func(context.Context, int, arrow.RecordBatch) error) (arrow.RecordBatch, error) {
	defer b.Release()
	keep := g.s.j.typ.keepsLeft()
	var here []int64
	for r, p := range part {
		switch {
		case p < 0:
		case !g.parts[p].spilled:
			here = append(here, int64(r))
			part[r] = -1
		case g.parts[p].buildRows == 0 && !keep:
			part[r] = -1 // no build row to match
		}
	}
	if err := g.split(ctx, b, part, spill); err != nil || len(here) == 0 {
		return nil, err
	}
	return takeBatch(ctx, g.s.tc.Allocator(), b, here)
}

// end finishes the probe files at the probe input's end.
func (f *graceFeed) end() error {
	g := f.g
	g.feedEOF = true
	for i := range g.parts {
		p := &g.parts[i]
		if p.probe != nil {
			err := g.finish(p.probe)
			p.probe = nil
			if err != nil {
				return err
			}
		}
	}
	return io.EOF
}

// batchStream serves batches it owns, then io.EOF.
type batchStream struct {
	schema *arrow.Schema
	bs     []arrow.RecordBatch
}

func (b *batchStream) Schema() *arrow.Schema { return b.schema }
func (b *batchStream) Next(context.Context) (arrow.RecordBatch, error) {
	if len(b.bs) == 0 {
		return nil, io.EOF
	}
	x := b.bs[0]
	b.bs = b.bs[1:]
	return x, nil
}
func (b *batchStream) Close() error {
	releaseBatches(b.bs)
	b.bs = nil
	return nil
}
