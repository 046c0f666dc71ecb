package priority

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	// DefaultMaxLight: a light ticket counts for at most this long. A
	// `SELECT 1` needs a few milliseconds; a light statement still
	// running after this is streaming a large result, and heavy
	// statements need not wait for it.
	DefaultMaxLight = 250 * time.Millisecond
	// DefaultMaxPark: a heavy goroutine parks at most this long at once.
	DefaultMaxPark = 50 * time.Millisecond
	// DefaultQuantum: a heavy goroutine's lease (Options.Running) counts
	// this long while others wait for one: the slice Go's scheduler
	// gives a goroutine before it preempts it.
	DefaultQuantum = 10 * time.Millisecond
)

// Options configure a Gate; zero values take the defaults.
type Options struct {
	MaxLight time.Duration // how long a ticket counts
	MaxPark  time.Duration // the longest single park of a heavy goroutine
	// Running bounds the heavy goroutines that run at once: each runs
	// while it holds one of this many leases (lease.go). 0: no bound.
	Running int
	Quantum time.Duration // how long a lease counts while others wait
}

// Gate is a server's priority of light work over heavy statements (see
// the package doc). Safe for concurrent use.
type Gate struct {
	light atomic.Int64 // tickets out

	mu    sync.Mutex
	clear chan struct{} // closed when light falls to 0 (mu held to swap)

	maxLight, maxPark time.Duration
	leases            *leases // nil: Options.Running 0

	lights     atomic.Int64 // tickets issued
	parks      atomic.Int64 // heavy goroutines parked, in all
	parked     atomic.Int64 // heavy goroutines parked now
	parkedNano atomic.Int64 // time spent parked, in all
}

// NewGate returns a gate with no ticket out.
func NewGate(opt Options) *Gate {
	if opt.MaxLight <= 0 {
		opt.MaxLight = DefaultMaxLight
	}
	if opt.MaxPark <= 0 {
		opt.MaxPark = DefaultMaxPark
	}
	if opt.Quantum <= 0 {
		opt.Quantum = DefaultQuantum
	}
	c := make(chan struct{})
	close(c)
	g := &Gate{clear: c, maxLight: opt.MaxLight, maxPark: opt.MaxPark}
	if opt.Running > 0 {
		g.leases = &leases{slots: make([]*Runner, opt.Running), quantum: int64(opt.Quantum)}
	}
	return g
}

// Ticket is one piece of light work in flight.
type Ticket struct {
	g      *Gate
	done   atomic.Bool
	heavy  atomic.Bool
	expiry *time.Timer
}

// Light begins a piece of light work: heavy goroutines park at their next
// Pass until it is Done, or for the gate's MaxLight at most. A nil gate
// returns a nil ticket, whose methods do nothing.
func (g *Gate) Light() *Ticket {
	if g == nil {
		return nil
	}
	t := &Ticket{g: g}
	g.mu.Lock()
	if g.light.Add(1) == 1 {
		g.clear = make(chan struct{})
	}
	g.mu.Unlock()
	g.lights.Add(1)
	t.expiry = time.AfterFunc(g.maxLight, t.end)
	return t
}

// Done ends the ticket; later calls do nothing.
func (t *Ticket) Done() {
	if t == nil {
		return
	}
	t.expiry.Stop()
	t.end()
}

// Demote ends the ticket of a call that turned out heavy (a statement
// whose plan sorts, aggregates or joins): it must not hold the others
// back while it runs, or while it waits for admission.
func (t *Ticket) Demote() {
	if t == nil {
		return
	}
	t.heavy.Store(true)
	t.Done()
}

// Demoted reports whether Demote was called.
func (t *Ticket) Demoted() bool { return t != nil && t.heavy.Load() }

func (t *Ticket) end() {
	if !t.done.CompareAndSwap(false, true) {
		return
	}
	g := t.g
	g.mu.Lock()
	if g.light.Add(-1) == 0 {
		close(g.clear)
	}
	g.mu.Unlock()
}

// Heavy is one heavy statement's pass through the gate, shared by its
// goroutines.
type Heavy struct {
	g *Gate
	// until is when the quantum earned by a park that ran out ends
	// (UnixNano): Pass lets the statement run until then.
	until atomic.Int64
	// own is the lease of the statement's goroutines that have none of
	// their own (WithRunner).
	own *Runner
}

// Heavy returns the pass of one heavy statement (nil for a nil gate).
func (g *Gate) Heavy() *Heavy {
	if g == nil {
		return nil
	}
	return &Heavy{g: g, own: newRunner()}
}

// Pass is a heavy statement's batch boundary: it returns at once when no
// light work is in flight, else parks until there is none, MaxPark
// passes, or ctx ends (then it returns ctx's error). Under a bound of
// running goroutines (Options.Running) it then makes sure ctx's goroutine
// holds a lease, queuing for one when it has none or has held its own
// for the quantum while others wait.
func (h *Heavy) Pass(ctx context.Context) error {
	if h == nil {
		return nil
	}
	if h.g.light.Load() != 0 {
		if err := h.park(ctx); err != nil {
			return err
		}
	}
	if h.g.leases == nil {
		return nil
	}
	return h.g.leases.lease(ctx, h.runner(ctx))
}

func (h *Heavy) park(ctx context.Context) error {
	g := h.g
	start := time.Now()
	if start.UnixNano() < h.until.Load() {
		return nil
	}
	g.mu.Lock()
	clear := g.clear
	g.mu.Unlock()
	g.parks.Add(1)
	g.parked.Add(1)
	defer func() {
		g.parked.Add(-1)
		g.parkedNano.Add(int64(time.Since(start)))
	}()
	timer := time.NewTimer(g.maxPark)
	defer timer.Stop()
	select {
	case <-clear:
	case <-timer.C:
		h.until.Store(time.Now().Add(g.maxPark).UnixNano())
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// Stats are a gate's counters.
type Stats struct {
	Lights int64         // light tickets issued
	Parks  int64         // heavy goroutines parked, in all
	Parked int64         // heavy goroutines parked now
	Time   time.Duration // time heavy goroutines spent parked
	// Leases (Options.Running): how often a heavy goroutine queued for
	// one, for how long in all, and how many were revoked past their
	// quantum.
	LeaseWaits   int64
	LeaseWait    time.Duration
	LeaseRevokes int64
}

// Stats returns the gate's counters (zero for a nil gate).
func (g *Gate) Stats() Stats {
	if g == nil {
		return Stats{}
	}
	s := Stats{Lights: g.lights.Load(), Parks: g.parks.Load(), Parked: g.parked.Load(), Time: time.Duration(g.parkedNano.Load())}
	if l := g.leases; l != nil {
		s.LeaseWaits, s.LeaseWait, s.LeaseRevokes = l.waits.Load(), time.Duration(l.waitNano.Load()), l.revokes.Load()
	}
	return s
}

type ticketKey struct{}

// WithTicket is ctx carrying a call's ticket, for the code that learns
// whether the call is heavy (TicketOf(ctx).Demote()).
func WithTicket(ctx context.Context, t *Ticket) context.Context {
	return context.WithValue(ctx, ticketKey{}, t)
}

// TicketOf is ctx's ticket, or nil.
func TicketOf(ctx context.Context) *Ticket {
	t, _ := ctx.Value(ticketKey{}).(*Ticket)
	return t
}
