package priority

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Leases: how many heavy goroutines run at once.
//
// Why: tickets park heavy work only once a light call holds one, and a
// call takes its ticket in its handler. The hops before it (the netpoll
// wake-up, gRPC's reader, the handler's start) and between a query's two
// calls wait for a P like any goroutine: behind every runnable heavy
// goroutine, for up to the 10 ms slice of each. With Options.Running set
// (the server sets the cores), a heavy goroutine runs only while it holds
// one of that many leases, and the server sets GOMAXPROCS above the
// cores: a P is then always idle for light work, and the OS shares the
// cores between its threads (a thread that wakes runs within a
// millisecond or so), not Go's run queue in 10 ms slices.
//
// One goroutine's lease (a Runner), changed under leases.mu:
//
//	         Pass, a slot free                 Pass after the quantum,
//	none ───────────────────────────► held ─── others waiting ──┐
//	 │ ▲ ◄──── Idle, Done ─────────────┘ ▲                      │
//	 │ │                                 │ granted in turn      ▼
//	 │ └──── revoked: held past the ─────┼────────────────── queued
//	 │       quantum while others wait   │                      ▲
//	 └───── Pass, no slot free ──────────┼──────────────────────┘
//
// Deadlock: a goroutine may block while it holds a lease (on the channel
// of its consumer, on a lock, on another statement's spill). A lease
// counts for at most the quantum while others wait; then a waiter revokes
// it. So a waiter waits on the clock at most, never on heavy work alone,
// as a park does; the revoked goroutine queues at its next Pass.
type leases struct {
	mu      sync.Mutex
	slots   []*Runner // each slot's holder (nil: free)
	queue   []*Runner // waiting for a slot, oldest first
	quantum int64     // ns a lease counts while others wait

	waits    atomic.Int64 // Passes that queued
	waitNano atomic.Int64 // time spent queued
	revokes  atomic.Int64 // leases taken from a holder past its quantum
}

// Runner is one heavy goroutine's lease (WithRunner). A goroutine that
// has none passes under its statement's (Heavy), shared by all such
// goroutines of the statement: the bound then counts them as one.
type Runner struct {
	held  atomic.Bool  // holds a slot (cleared when revoked)
	since atomic.Int64 // when the slot was granted or renewed (UnixNano)
	l     atomic.Pointer[leases]

	// Under l.mu:
	slot    int           // the slot held (-1: none)
	queued  bool          // in l.queue
	granted chan struct{} // closed when a queued runner gets its slot
}

func newRunner() *Runner { return &Runner{slot: -1} }

type runnerKey struct{}

// WithRunner gives the goroutine that will run with ctx a lease of its
// own, and returns done, which gives it up (call it when the goroutine
// ends: a finished goroutine holds its slot until it is revoked
// otherwise).
func WithRunner(ctx context.Context) (context.Context, func()) {
	r := newRunner()
	return context.WithValue(ctx, runnerKey{}, r), r.Done
}

func (h *Heavy) runner(ctx context.Context) *Runner {
	if r, ok := ctx.Value(runnerKey{}).(*Runner); ok {
		return r
	}
	return h.own
}

// Idle gives up the lease of ctx's goroutine, which is about to block on
// other work (a consumer waiting for its producers' batches): its slot
// goes to a waiting goroutine at once rather than after the quantum. Its
// next Pass queues for a slot again.
func (h *Heavy) Idle(ctx context.Context) {
	if h == nil || h.g.leases == nil {
		return
	}
	h.runner(ctx).Done()
}

// Done gives up r's slot, if it holds one. A nil runner does nothing.
func (r *Runner) Done() {
	if r == nil {
		return
	}
	l := r.l.Load()
	if l == nil || !r.held.Load() {
		return
	}
	l.mu.Lock()
	l.releaseLocked(r, now())
	l.mu.Unlock()
}

func now() int64 { return time.Now().UnixNano() }

// lease is Pass's lease check: it returns at once when r holds a slot
// granted less than a quantum ago; else it gives up the slot when others
// wait, and waits in turn for one (or for ctx).
func (l *leases) lease(ctx context.Context, r *Runner) error {
	t := now()
	if r.held.Load() && t-r.since.Load() < l.quantum {
		return nil
	}
	r.l.Store(l)
	l.mu.Lock()
	if r.held.Load() {
		if len(l.queue) == 0 {
			r.since.Store(t) // nobody waits: run on
			l.mu.Unlock()
			return nil
		}
		l.releaseLocked(r, t)
	}
	if r.slot >= 0 && !r.held.Load() {
		r.slot = -1 // revoked
	}
	if !r.queued {
		l.enqueueLocked(r)
	}
	l.grantLocked(t)
	if r.held.Load() {
		l.mu.Unlock()
		return nil
	}
	l.waits.Add(1)
	defer func() { l.waitNano.Add(now() - t) }()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		granted := r.granted
		timer.Reset(time.Duration(max(l.nextExpiryLocked()-now(), int64(100*time.Microsecond))))
		l.mu.Unlock()
		select {
		case <-granted:
		case <-timer.C:
		case <-ctx.Done():
			l.mu.Lock()
			l.dequeueLocked(r)
			l.mu.Unlock()
			return ctx.Err()
		}
		l.mu.Lock()
		if r.held.Load() {
			l.mu.Unlock()
			return nil
		}
		if !r.queued { // another goroutine of a shared runner left the queue
			l.enqueueLocked(r)
		}
		l.grantLocked(now())
		if r.held.Load() {
			l.mu.Unlock()
			return nil
		}
	}
}

func (l *leases) enqueueLocked(r *Runner) {
	r.queued = true
	r.granted = make(chan struct{})
	l.queue = append(l.queue, r)
}

func (l *leases) dequeueLocked(r *Runner) {
	if !r.queued {
		return
	}
	for i, q := range l.queue {
		if q == r {
			l.queue = append(l.queue[:i], l.queue[i+1:]...)
			break
		}
	}
	r.queued = false
}

// releaseLocked frees r's slot and hands it on.
func (l *leases) releaseLocked(r *Runner, t int64) {
	if !r.held.Load() || r.slot < 0 {
		return
	}
	l.slots[r.slot] = nil
	r.slot = -1
	r.held.Store(false)
	l.grantLocked(t)
}

// grantLocked gives the free slots, and those held past the quantum, to
// the queue's runners in turn.
func (l *leases) grantLocked(t int64) {
	for len(l.queue) > 0 {
		i := l.freeSlotLocked(t)
		if i < 0 {
			return
		}
		if old := l.slots[i]; old != nil { // past its quantum: revoke
			old.held.Store(false)
			old.slot = -1
			l.revokes.Add(1)
		}
		r := l.queue[0]
		l.queue[0] = nil
		l.queue = l.queue[1:]
		l.slots[i], r.slot, r.queued = r, i, false
		r.since.Store(t)
		r.held.Store(true)
		close(r.granted)
	}
}

// freeSlotLocked is a free slot, else one held past the quantum, else -1.
func (l *leases) freeSlotLocked(t int64) int {
	expired := -1
	for i, r := range l.slots {
		if r == nil {
			return i
		}
		if expired < 0 && t-r.since.Load() >= l.quantum {
			expired = i
		}
	}
	return expired
}

// nextExpiryLocked is when the first slot's quantum ends (UnixNano).
func (l *leases) nextExpiryLocked() int64 {
	next := int64(-1)
	for _, r := range l.slots {
		if r == nil {
			return now()
		}
		if e := r.since.Load() + l.quantum; next < 0 || e < next {
			next = e
		}
	}
	return next
}
