package memlimit

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/stablerow/stablerow/errkind"
)

// ErrResourceExhausted: a statement needs more memory than its limit
// allows and the operator cannot spill (or spilling did not free enough).
// It matches errkind.OutOfRange.
var ErrResourceExhausted = errkind.New(errkind.OutOfRange, "memory limit exceeded")

// Pool is one statement's memory budget. Safe for concurrent use.
type Pool struct {
	limit     int64 // bytes; <= 0 is no limit
	reserved  atomic.Int64
	peakRes   atomic.Int64
	allocated atomic.Int64 // through Allocator
	peakAlloc atomic.Int64
	refusals  atomic.Int64

	// A Child pool (shared.go) also reserves in parent what it holds
	// past grant; mu orders its updates, closed marks its grant returned.
	parent  *Pool
	grant   int64
	mu      sync.Mutex
	closed  bool
	atClose func()
	what    string // the limit's name in errors ("limit" if empty)
}

// NewPool returns a pool of limit bytes; limit <= 0 is no limit (the pool
// still counts).
func NewPool(limit int64) *Pool { return &Pool{limit: limit} }

// Limit is the pool's limit in bytes, 0 for none.
func (p *Pool) Limit() int64 {
	if p == nil || p.limit <= 0 {
		return 0
	}
	return p.limit
}

// Reserved is the sum of the live reservations.
func (p *Pool) Reserved() int64 {
	if p == nil {
		return 0
	}
	return p.reserved.Load()
}

// PeakReserved is the largest Reserved seen.
func (p *Pool) PeakReserved() int64 {
	if p == nil {
		return 0
	}
	return p.peakRes.Load()
}

// Allocated is the bytes allocated through Allocator and not yet freed.
func (p *Pool) Allocated() int64 {
	if p == nil {
		return 0
	}
	return p.allocated.Load()
}

// PeakAllocated is the largest Allocated seen.
func (p *Pool) PeakAllocated() int64 {
	if p == nil {
		return 0
	}
	return p.peakAlloc.Load()
}

// Refusals counts the TryGrow calls refused (each one a spill or an error).
func (p *Pool) Refusals() int64 {
	if p == nil {
		return 0
	}
	return p.refusals.Load()
}

// NewReservation starts an empty reservation for consumer (an operator
// name, used in error messages).
func (p *Pool) NewReservation(consumer string) *Reservation {
	return &Reservation{pool: p, consumer: consumer}
}

func (p *Pool) tryGrow(consumer string, n int64) error {
	if p == nil {
		return nil
	}
	if p.parent != nil {
		return p.childTryGrow(consumer, n)
	}
	for {
		cur := p.reserved.Load()
		if p.limit > 0 && cur+n > p.limit {
			p.refusals.Add(1)
			return p.exhausted(consumer, n, cur, p.limit)
		}
		if p.reserved.CompareAndSwap(cur, cur+n) {
			raise(&p.peakRes, cur+n)
			return nil
		}
	}
}

// exhausted is the error of a refused reservation.
func (p *Pool) exhausted(consumer string, n, cur, limit int64) error {
	what := p.what
	if what == "" {
		what = "limit"
	}
	return fmt.Errorf("%w: %s needs %s more, %s of the %s %s is reserved (%s allocated)",
		ErrResourceExhausted, consumer, FormatSize(n), FormatSize(cur), FormatSize(limit), what, FormatSize(p.allocated.Load()))
}

// add reserves n bytes without a check (n < 0 gives them back).
func (p *Pool) add(n int64) {
	if p == nil {
		return
	}
	if p.parent != nil {
		p.childAdd(n)
		return
	}
	raise(&p.peakRes, p.reserved.Add(n))
}

// raise sets *peak to v if v is larger.
func raise(peak *atomic.Int64, v int64) {
	for {
		old := peak.Load()
		if v <= old || peak.CompareAndSwap(old, v) {
			return
		}
	}
}

// Reservation is one consumer's share of a pool. Not safe for concurrent
// use (one operator stream owns it).
type Reservation struct {
	pool     *Pool
	consumer string
	size     int64
}

// Size is the bytes this reservation holds.
func (r *Reservation) Size() int64 { return r.size }

// TryGrow reserves n more bytes, or fails with ErrResourceExhausted and
// changes nothing.
func (r *Reservation) TryGrow(n int64) error {
	if n <= 0 {
		return nil
	}
	if err := r.pool.tryGrow(r.consumer, n); err != nil {
		return err
	}
	r.size += n
	return nil
}

// Grow reserves n more bytes even past the limit: for memory the consumer
// holds already and cannot give back (the next TryGrow of any consumer
// then fails).
func (r *Reservation) Grow(n int64) {
	if n <= 0 {
		return
	}
	r.pool.add(n)
	r.size += n
}

// Shrink gives back n bytes (at most Size).
func (r *Reservation) Shrink(n int64) {
	n = min(n, r.size)
	if n <= 0 {
		return
	}
	r.pool.add(-n)
	r.size -= n
}

// Free gives back everything; the reservation can be grown again.
func (r *Reservation) Free() { r.Shrink(r.size) }
