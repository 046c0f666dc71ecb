package exec

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// A parallel hash join's shared build (partition_join.go) that does not
// fit its reservation spills as the serial join's does (join_spill.go):
// the one build is partitioned once, by the same graceJoin (the same
// remixed hash, spill files and recursion), and the join's partition
// streams (the workers) share its partitions. Each worker is a
// graceWorker, a state machine:
//
//	the first worker to need the build partitions it (partitionBuild:
//	  │  partitions held in memory, the largest spilled when the pool
//	  │  refuses); the held ones become one resident build, shared
//	  ▼
//	resident: the worker joins its probe rows of the held partitions with
//	  │  the resident build (a sharedBuild of its own, built once, whose
//	  │  RIGHT and FULL rows the last worker to report emits, as in any
//	  │  parallel join); its rows of spilled partitions go to their
//	  │  partitions' probe files as they pass (written under the lock)
//	  ▼
//	wait: until every worker's probe has ended (the last one finishes the
//	  │  probe files and frees the resident build)
//	  ▼
//	spilled ◄──┐ take the next spilled partition no worker has taken and
//	  │        │ join its build file with its probe file by a serial join
//	  │  ──────┘ one level deeper (it spills again, with a new seed, if it
//	  │          must): in 1/workers of the join's memory if its build
//	  │          fits that, else alone, in all of it, as the serial join
//	  │          does (the others wait: so a hot key fails, ErrJoinKeySkew,
//	  │          exactly where the serial join's does)
//	  ▼ none left
//	nulls: the worker that takes them emits the build rows with a NULL key
//	  │    (RIGHT, FULL, RIGHT ANTI)
//	  ▼
//	done (EOF)
//
// Waiting is safe because every consumer of a partitioned node drives
// its partitions concurrently (coalesce, merge, repartition: one
// goroutine per partition); the wait ends with the context, too. A
// partition closed before its probe ended abandons the join's output (as
// partition_join.go's right rows are abandoned): the spilled partitions
// are then not joined. The files are removed by the last partition to
// close (sharedBuild.free), on error and cancellation too, as every
// partition is closed then.
//
// The resident build does not spill again: its rows were reserved at the
// size the build overflowed at, and if its hash table comes out over the
// estimate and the pool refuses, it fails with ErrResourceExhausted.

// sharedGrace is a spilled shared build: its graceJoin and the workers'
// common state, under the sharedBuild's lock.
type sharedGrace struct {
	b        *sharedBuild
	g        *graceJoin
	resident *sharedBuild
	probed   chan struct{} // closed once every partition's probe has ended
	// joiners: the workers that reached the wait (each joins spilled
	// partitions in pool/joiners of the memory); abandoned: one closed
	// before its probe ended.
	joiners   int
	abandoned bool
	nextP     int  // the next partition to hand out
	nullsOut  bool // a worker took the NULL-key build rows
	// active: the partition joins running; alone: one that needs all
	// the memory runs or waits for the others to end; changed is closed
	// (and replaced) when either changes.
	active  int
	alone   bool
	changed chan struct{}
}

// spilled makes the build's grace join g the partitions' shared one: the
// held partitions move to the resident build. Under b.mu.
func (b *sharedBuild) spilled(g *graceJoin) {
	var held []arrow.RecordBatch
	for i := range g.parts {
		p := &g.parts[i]
		held = append(held, p.mem...)
		g.res.Shrink(p.held)
		p.mem, p.held = nil, 0
	}
	// Every partition whose probe has not ended yet joins the resident
	// build, or ends without it (probeEnded).
	res := &sharedBuild{refs: b.pending, probing: b.pending, reported: map[*joinStream]bool{},
		in: &batchStream{schema: g.s.j.right.Schema(), bs: held}}
	b.grace = &sharedGrace{b: b, g: g, resident: res, probed: make(chan struct{}), changed: make(chan struct{})}
}

// probeEnded records that partition s's probe has ended (complete) or
// was cut short by its Close; the last one opens the wait.
func (b *sharedBuild) probeEnded(s *joinStream, complete bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended == nil || b.ended[s] {
		return
	}
	b.ended[s] = true
	b.pending--
	sg := b.grace
	if sg == nil {
		return
	}
	if !complete {
		sg.abandoned = true
	}
	if s.pw == nil || !s.pw.subbed {
		// s never joined the resident build: it no longer counts there.
		sg.resident.leave(!complete)
	} else if complete {
		sg.joiners++
	}
	if b.pending == 0 {
		sg.probesDone()
	}
}

// leave drops a partition that will never attach; abandon: its rows
// were not all seen. Locks b.mu.
func (b *sharedBuild) leave(abandon bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing--
	b.refs--
	b.abandoned = b.abandoned || abandon
}

// probesDone finishes the probe files, frees the resident build and
// opens the wait. Under b.mu.
func (sg *sharedGrace) probesDone() {
	g := sg.g
	for i := range g.parts {
		p := &g.parts[i]
		if p.probe != nil {
			if err := g.finish(p.probe); err != nil && g.err == nil {
				g.err = err
			}
			p.probe = nil
		}
	}
	sg.resident.mu.Lock()
	sg.resident.free()
	sg.resident.mu.Unlock()
	close(sg.probed)
}

// close removes the files and frees the memory. Under b.mu, once every
// partition has closed.
func (sg *sharedGrace) close() {
	sg.resident.mu.Lock()
	sg.resident.free()
	sg.resident.mu.Unlock()
	sg.g.close()
}

// writeProbe writes a probe batch's piece of spilled partition p to its
// file.
func (sg *sharedGrace) writeProbe(p int, piece arrow.RecordBatch) error {
	sg.b.mu.Lock()
	defer sg.b.mu.Unlock()
	g := sg.g
	g.parts[p].probeRows += piece.NumRows()
	return g.write(&g.parts[p].probe, &g.parts[p].probePath, g.s.j.left.Schema(), piece)
}

// take hands out the next spilled partition's join to w (nil: none
// left), with its memory: a share if its build fits one, else all of it,
// once no other partition join runs.
func (sg *sharedGrace) take(ctx context.Context, w *graceWorker) (*joinStream, error) {
	sg.b.mu.Lock()
	defer sg.b.mu.Unlock()
	g := sg.g
	for {
		if g.err != nil {
			return nil, g.err
		}
		if sg.alone {
			if err := sg.wait(ctx); err != nil {
				return nil, err
			}
			continue
		}
		for sg.nextP < len(g.parts) && !g.runs(sg.nextP) {
			g.removeFiles(&g.parts[sg.nextP])
			sg.nextP++
		}
		if sg.nextP == len(g.parts) {
			return nil, nil
		}
		i := sg.nextP
		sg.nextP++
		share := max(g.budget/int64(max(sg.joiners, 1)), graceMinBudget)
		big := g.parts[i].bytes > share
		if big {
			sg.alone = true
			for sg.active > 0 {
				if err := sg.wait(ctx); err != nil {
					sg.alone = false
					sg.signal()
					return nil, err
				}
			}
			share = g.budget
		}
		tc := *g.tc
		tc.Pool = memlimit.NewPool(share)
		js, err := g.partJoin(&tc, i)
		if err != nil || js == nil {
			if big {
				sg.alone = false
				sg.signal()
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		sg.active++
		w.big = big
		return js, nil
	}
}

// done records the end of w's partition join.
func (sg *sharedGrace) done(w *graceWorker) {
	sg.b.mu.Lock()
	defer sg.b.mu.Unlock()
	sg.active--
	if w.big {
		sg.alone, w.big = false, false
	}
	sg.signal()
}

// wait waits, the lock released, for a change of active or alone, or the
// context's end. Under b.mu.
func (sg *sharedGrace) wait(ctx context.Context) error {
	ch := sg.changed
	sg.b.mu.Unlock()
	defer sg.b.mu.Lock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// signal wakes the waiters. Under b.mu.
func (sg *sharedGrace) signal() {
	close(sg.changed)
	sg.changed = make(chan struct{})
}

// takeNulls reports whether the caller is the worker that emits the
// NULL-key build rows.
func (sg *sharedGrace) takeNulls() bool {
	sg.b.mu.Lock()
	defer sg.b.mu.Unlock()
	if sg.nullsOut || sg.g.nullPath == "" {
		return false
	}
	sg.nullsOut = true
	return true
}

type graceWorkerState int

const (
	gwResident graceWorkerState = iota
	gwWait
	gwSpilled
	gwNulls
	gwDone
)

// graceWorker is one partition's share of a spilled shared build (the
// state machine above).
type graceWorker struct {
	s       *joinStream // the partition's stream (its left input is this worker's probe input)
	sg      *sharedGrace
	state   graceWorkerState
	pending arrow.RecordBatch // the probe batch pulled before the build
	feedEOF bool
	subbed  bool        // the resident join was made
	cur     *joinStream // the resident join, then a spilled partition's
	big     bool        // cur runs alone
	rt      graceRoute
	nulls   bool // this worker emits the NULL-key rows
}

func (w *graceWorker) next(ctx context.Context) (arrow.RecordBatch, error) {
	g := w.sg.g
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch w.state {
		case gwResident:
			if w.cur == nil {
				w.subbed = true
				w.cur = g.sub(g.tc, &sharedFeed{w: w}, nil, mix(g.seed))
				w.cur.shared = w.sg.resident
			}
			b, err := w.cur.Next(ctx)
			if err == nil {
				return b, nil
			}
			if !errors.Is(err, io.EOF) {
				return nil, err
			}
			err = w.cur.Close()
			w.cur = nil
			if err == nil && !w.feedEOF {
				err = w.drain(ctx)
			}
			if err != nil {
				return nil, err
			}
			w.s.shared.probeEnded(w.s, true)
			w.state = gwWait
		case gwWait:
			select {
			case <-w.sg.probed:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			w.sg.b.mu.Lock()
			abandoned := w.sg.abandoned
			w.sg.b.mu.Unlock()
			if abandoned {
				w.state = gwDone
				continue
			}
			w.state = gwSpilled
		case gwSpilled:
			if w.cur == nil {
				js, err := w.sg.take(ctx, w)
				if err != nil {
					return nil, err
				}
				if js == nil {
					w.state = gwNulls
					continue
				}
				w.cur = js
			}
			b, err := w.cur.Next(ctx)
			if err == nil {
				return b, nil
			}
			if !errors.Is(err, io.EOF) {
				return nil, err
			}
			err = w.cur.Close()
			w.cur = nil
			w.sg.done(w)
			if err != nil {
				return nil, err
			}
		case gwNulls:
			if !w.nulls {
				if !w.sg.takeNulls() {
					w.state = gwDone
					continue
				}
				w.nulls = true
			}
			// Only this worker reads the NULL-key file (g.nullIn).
			b, err := g.nextNull(ctx)
			if errors.Is(err, io.EOF) {
				w.state = gwDone
				continue
			}
			return b, err
		case gwDone:
			return nil, io.EOF
		}
	}
}

// drain passes the rest of the probe input to the partitions' files (the
// resident join may end before its input does).
func (w *graceWorker) drain(ctx context.Context) error {
	f := &sharedFeed{w: w}
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

// close drops the worker's batch and join; the files are the shared
// build's.
func (w *graceWorker) close() {
	if w.pending != nil {
		w.pending.Release()
		w.pending = nil
	}
	if w.cur != nil {
		w.cur.Close()
		w.cur = nil
		if w.state == gwSpilled {
			w.sg.done(w)
		}
	}
	if w.nulls {
		w.sg.b.mu.Lock()
		if w.sg.g.nullIn != nil {
			w.sg.g.nullIn.Close()
			w.sg.g.nullIn = nil
		}
		w.sg.b.mu.Unlock()
	}
}

// sharedFeed is a worker's resident join's probe input: the worker's
// probe rows of the held partitions, in order; it writes the rows of
// spilled partitions to their probe files as it passes them.
type sharedFeed struct{ w *graceWorker }

func (f *sharedFeed) Schema() *arrow.Schema { return f.w.sg.g.s.j.left.Schema() }
func (f *sharedFeed) Close() error          { return nil } // the worker's stream owns the probe input

func (f *sharedFeed) Next(ctx context.Context) (arrow.RecordBatch, error) {
	w := f.w
	g := w.sg.g
	if w.feedEOF {
		return nil, io.EOF
	}
	typ := g.s.j.typ
	for {
		b := w.pending
		w.pending = nil
		if b == nil {
			var err error
			if b, err = w.s.nextLeft(ctx); err != nil {
				return nil, err
			}
		}
		if b == nil {
			w.feedEOF = true
			return nil, io.EOF
		}
		// The partitions' spilled flags and build counts are fixed once
		// the build is partitioned: read without the lock.
		part := g.routeIn(&w.rt, b, g.s.j.lkeys, typ.keepsLeft())
		out, err := g.feedBatch(ctx, b, part, func(_ context.Context, p int, piece arrow.RecordBatch) error {
			return w.sg.writeProbe(p, piece)
		})
		if err != nil || out != nil {
			return out, err
		}
	}
}
