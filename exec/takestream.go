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
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/access"
	"github.com/stablerow/stablerow/table"
)

// takeState is the take stream's state machine. One probe batch (at most
// ProbeBatch driving rows plus one input batch) goes around the loop at a
// time, so the stream's state is bounded by the probe batch, not by the
// number of keys:
//
//	               ┌────────────────────────────────────────────────┐
//	               v                                   all emitted  │
//	┌────────┐ probe batch ┌───────┐ keys unresolved ┌──────────┐   │
//	│ gather │────────────>│ probe │────────────────>│ fallback │   │
//	└────────┘             └───────┘                 └──────────┘   │
//	    │ input ended          │ every key answered       │         │
//	    v                      v                          v         │
//	  done                 ┌───────┐<─────────────────────┘     ┌──────┐
//	                       │ fetch │───────────────────────────>│ emit │──> one driving
//	                       └───────┘ table columns, one Take    └──────┘    batch per Next
//
// probe runs the index child (IndexProbeExec, under a RowAddrRemapExec
// when the index predates rewrites); fallback runs UnindexedFallbackScan
// on the keys left over. Both children stream (probe_row, _rowaddr) pairs
// into the probe batch's access.Resolution, the one owner of what an
// answer means (kept only when valid, a second live row is ErrNotUnique,
// which keys the fallback searches): this stream only moves the pairs.
type takeState int

const (
	takeGather takeState = iota
	takeProbe
	takeFallback
	takeFetch
	takeEmit
	takeDone
)

type takeStream struct {
	n     *TakeByKeyExec
	tc    *TaskContext
	in    Stream
	mem   memory.Allocator
	state takeState
	eof   bool

	// The probe batch.
	pending []arrow.RecordBatch // driving batches
	keys    arrow.Array         // their key column, concatenated
	res     access.Resolution   // each pending row's live address
	taken   arrow.RecordBatch   // table columns of all pending rows (one Take per probe batch)
	emitted int                 // pending batches already emitted
	rowBase int                 // first row of pending[emitted]
}

func (s *takeStream) Schema() *arrow.Schema { return s.n.schema }

// Next implements Stream.
func (s *takeStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			s.n.metrics.Since(start)
			return nil, err
		}
		var err error
		switch s.state {
		case takeGather:
			if s.eof {
				s.state = takeDone
				continue
			}
			if err = s.handleGather(ctx); err == nil {
				// gather -> probe, or -> done when the input had no rows left.
				s.state = takeProbe
				if len(s.pending) == 0 {
					s.state = takeDone
				}
			}
		case takeProbe:
			err = s.handleProbe(ctx)
		case takeFallback:
			// fallback -> fetch.
			if err = s.handleFallback(ctx); err == nil {
				s.state = takeFetch
			}
		case takeFetch:
			// fetch -> emit.
			if err = s.handleFetch(ctx); err == nil {
				s.state = takeEmit
			}
		case takeEmit:
			if s.emitted == len(s.pending) {
				// emit -> gather: the probe batch is out.
				s.releasePending()
				s.state = takeGather
				continue
			}
			out := s.handleEmit()
			return s.n.metrics.Emit(out, start)
		case takeDone:
			s.n.metrics.Since(start)
			return nil, io.EOF
		}
		if err != nil {
			s.n.metrics.Since(start)
			return nil, err
		}
	}
}

// handleGather pulls driving batches until probeBatch keys are pending or
// the input ends, and concatenates their keys.
func (s *takeStream) handleGather(ctx context.Context) error {
	rows := 0
	for rows < s.n.probeBatch {
		b, err := s.in.Next(ctx)
		if errors.Is(err, io.EOF) {
			s.eof = true
			break
		}
		if err != nil {
			return err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		s.pending = append(s.pending, b)
		rows += int(b.NumRows())
	}
	if rows == 0 {
		return nil
	}
	cols := make([]arrow.Array, len(s.pending))
	for i, b := range s.pending {
		cols[i] = b.Column(s.n.keyCol)
	}
	keys, err := array.Concatenate(cols, s.mem)
	if err != nil {
		return fmt.Errorf("exec: take: %w", err)
	}
	s.keys = keys
	s.res.Reset(keys, s.n.index)
	m := &s.n.metrics
	m.Add("probe_batches", 1)
	m.Max("max_probe_rows", int64(rows))
	m.Add("keys", int64(rows))
	return nil
}

// handleProbe runs the index side on the probe batch into the resolution;
// it moves to fallback when keys are left that the fallback can answer,
// else to fetch.
func (s *takeStream) handleProbe(ctx context.Context) error {
	if s.n.probe != nil {
		if err := s.drain(ctx, s.n.probe, &probeFeed{keys: s.keys}, s.res.Indexed); err != nil {
			return err
		}
	}
	s.state = takeFetch
	if len(s.res.Unresolved()) > 0 && s.n.fallback != nil {
		// probe -> fallback: some keys are not the index's to answer.
		s.state = takeFallback
	}
	return nil
}

// handleFallback resolves the keys left over through the fallback.
func (s *takeStream) handleFallback(ctx context.Context) error {
	un := s.res.Unresolved()
	s.n.metrics.Add("fallback_keys", int64(len(un)))
	return s.drain(ctx, s.n.fallback, &probeFeed{keys: s.keys, sel: un}, s.res.Fallback)
}

// drain runs a keyed child on feed and hands each batch of (probe row,
// address) pairs it emits to accept.
func (s *takeStream) drain(ctx context.Context, child Node, feed *probeFeed, accept func(*array.Uint32, *array.Uint64) error) (err error) {
	st, err := child.Execute(ctx, withProbe(s.tc, feed))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := st.Close(); err == nil {
			err = cerr
		}
	}()
	for {
		b, err := st.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		err = accept(b.Column(0).(*array.Uint32), b.Column(1).(*array.Uint64))
		b.Release()
		if errors.Is(err, access.ErrBadAnswer) {
			return fmt.Errorf("%w: take: %s answered %w", physexpr.ErrInvalidArgument, child.Name(), err)
		}
		if err != nil {
			return err
		}
	}
}

// handleFetch counts the answers and reads the requested table columns of
// the whole probe batch with one Take, so each data batch touched is
// decoded once however the driving rows are chunked.
func (s *takeStream) handleFetch(ctx context.Context) error {
	total := s.keys.Len()
	hits := int64(s.res.Hits())
	m := &s.n.metrics
	m.Add("hits", hits)
	m.Add("misses", int64(total)-hits)
	if s.n.systemOnly() {
		return nil
	}
	tb, err := s.n.t.Take(ctx, s.res.Addrs(), s.res.Found(), s.n.columns, s.mem)
	if err != nil {
		return fmt.Errorf("exec: take: %w", err)
	}
	s.taken = tb
	return nil
}

// handleEmit appends the taken table columns to the next pending driving
// batch.
func (s *takeStream) handleEmit() arrow.RecordBatch {
	b := s.pending[s.emitted]
	out := s.output(b, s.rowBase)
	s.rowBase += int(b.NumRows())
	s.emitted++
	return out
}

func (s *takeStream) releasePending() {
	for _, b := range s.pending {
		b.Release()
	}
	if s.keys != nil {
		s.keys.Release()
		s.keys = nil
	}
	if s.taken != nil {
		s.taken.Release()
		s.taken = nil
	}
	s.pending, s.emitted, s.rowBase = s.pending[:0], 0, 0
}

// output appends the taken table columns to driving batch b, whose rows are
// pending rows [base, base+len).
func (s *takeStream) output(b arrow.RecordBatch, base int) arrow.RecordBatch {
	n := int(b.NumRows())
	addrs, valid := s.res.Addrs()[base:base+n], s.res.Found()[base:base+n]
	cols := make([]arrow.Array, 0, len(s.n.schema.Fields()))
	for _, c := range b.Columns() {
		c.Retain()
		cols = append(cols, c)
	}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	if s.taken == nil {
		// _rowaddr is the answer itself and _rowid sits in the row id
		// sequence: no data file is read.
		for _, c := range s.n.columns {
			cols = append(cols, s.systemColumn(c, addrs, valid))
		}
	} else {
		part := s.taken.NewSlice(int64(base), int64(base+n))
		for _, c := range part.Columns() {
			c.Retain()
			cols = append(cols, c)
		}
		part.Release()
	}
	return array.NewRecordBatch(s.n.schema, cols, int64(n))
}

func (s *takeStream) systemColumn(name string, addrs []uint64, valid []bool) arrow.Array {
	bld := array.NewUint64Builder(s.mem)
	defer bld.Release()
	bld.Reserve(len(addrs))
	for i, a := range addrs {
		if !valid[i] {
			bld.UnsafeAppendBoolToBitmap(false)
			continue
		}
		if name == table.RowAddr {
			bld.UnsafeAppend(a)
		} else {
			id, _ := s.n.t.RowIDAt(a)
			bld.UnsafeAppend(id)
		}
	}
	return bld.NewArray()
}

func (s *takeStream) Close() error {
	s.releasePending()
	s.state = takeDone
	if s.in != nil {
		err := s.in.Close()
		s.in = nil
		return err
	}
	return nil
}
