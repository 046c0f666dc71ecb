package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/exec/priority"
)

// result is one started query waiting for, or being read by, its DoGet
// (the states are drawn in doc.go). rows belongs to whoever took the
// result: the registry until a DoGet takes it, then the DoGet's producer.
// cancel may be called by anyone at any time.
type result struct {
	rows    *engine.Rows
	ctx     context.Context // the query's own context
	cancel  context.CancelFunc
	expiry  *time.Timer
	reading bool // a DoGet took it
	// light is the ticket of a light query (priority.go), held until its
	// DoGet ends; nil for a heavy one, or without a priority gate.
	light *priority.Ticket
	// release, if set, lets go of the transaction the rows run in once
	// they are closed (transactions.go).
	release func()
}

// results holds the started results by handle.
type results struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]*result
}

func newResults(ttl time.Duration) *results {
	return &results{ttl: ttl, m: map[string]*result{}}
}

// add registers rows running on ctx (cancel cancels it) and returns the
// handle of its ticket. Nobody reading it within the TTL closes it.
func (rs *results) add(ctx context.Context, rows *engine.Rows, cancel context.CancelFunc, light *priority.Ticket, release func()) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail
	h := hex.EncodeToString(b[:])
	r := &result{rows: rows, ctx: ctx, cancel: cancel, light: light, release: release}
	rs.mu.Lock()
	rs.m[h] = r
	r.expiry = time.AfterFunc(rs.ttl, func() { rs.cancel(h) })
	rs.mu.Unlock()
	return h
}

// take hands the result to a DoGet: it stays registered (so Cancel can
// reach it) but only the taker reads and closes it. A ticket reads once.
func (rs *results) take(h string) (*result, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r, ok := rs.m[h]
	if !ok || r.reading {
		return nil, false
	}
	r.reading = true
	r.expiry.Stop()
	return r, true
}

// done unregisters a result its DoGet finished with and closes it.
func (rs *results) done(h string, r *result) {
	rs.mu.Lock()
	delete(rs.m, h)
	rs.mu.Unlock()
	r.close()
}

// cancel cancels a result: one nobody reads is closed at once; one being
// read has its context cancelled, and its DoGet ends with Canceled and
// closes it. It reports whether the handle was known.
func (rs *results) cancel(h string) bool {
	rs.mu.Lock()
	r, ok := rs.m[h]
	idle := ok && !r.reading
	if idle {
		delete(rs.m, h)
		r.expiry.Stop()
	}
	rs.mu.Unlock()
	if !ok {
		return false
	}
	r.cancel()
	if idle {
		r.rows.Close()
		r.light.Done()
		r.released()
	}
	return true
}

// closeAll closes every result nobody reads and cancels the others
// (server shutdown).
func (rs *results) closeAll() {
	rs.mu.Lock()
	hs := make([]string, 0, len(rs.m))
	for h := range rs.m {
		hs = append(hs, h)
	}
	rs.mu.Unlock()
	for _, h := range hs {
		rs.cancel(h)
	}
}

func (r *result) close() {
	r.cancel()
	r.rows.Close()
	r.light.Done()
	r.released()
}

// released releases the result's transaction, if any, once its rows are
// closed.
func (r *result) released() {
	if r.release != nil {
		r.release()
	}
}

// stream reads r on its own goroutine into the channel DoGet writes from,
// one batch in flight: memory stays bounded by the batch size. It stops
// when the rows end, fail, or either context (the query's, the DoGet
// stream's) ends, and closes r in every case.
func (rs *results) stream(ctx context.Context, h string, r *result, errOf func(error) error) (*arrow.Schema, <-chan flight.StreamChunk) {
	ch := make(chan flight.StreamChunk)
	stop := context.AfterFunc(ctx, r.cancel) // client gone: stop the query
	// DoGet takes one batch at a time: when it takes the next, it has
	// written and released the one before. The last one it took may be
	// left unreleased by a failed write; it is released after the call.
	last := trackLast(ctx)
	go func() {
		defer close(ch)
		defer rs.done(h, r)
		defer stop()
		send := func(c flight.StreamChunk) bool {
			select {
			case ch <- c:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for r.ctx.Err() == nil && r.rows.Next() {
			b := r.rows.Batch()
			b.Retain()
			sb := &sentBatch{RecordBatch: b}
			if !send(flight.StreamChunk{Data: sb}) {
				sb.Release() // DoGet never took it
				return
			}
			last.set(sb) // DoGet took it: written and released, or not

		}
		err := r.rows.Err()
		if err == nil {
			err = r.ctx.Err() // cancelled between batches
		}
		if err != nil {
			send(flight.StreamChunk{Err: errOf(err)})
		}
	}()
	return r.rows.Schema(), ch
}

// len is the number of registered results.
func (rs *results) len() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.m)
}
