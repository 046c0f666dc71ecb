package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stablerow/stablerow/exec/memlimit"
)

// budget is the server's one memory budget (Options.Memory), shared by
// every statement and every parameter upload: a bound per statement does
// not bound the process when 32 clients run at once.
//
// It is cut in two lanes:
//   - the heavy lane (all but two slices, the light lane's and a headroom
//     no lane reserves) admits statements whose plans hold
//     memory that grows with their input (sorts, aggregations, joins:
//     exec.HoldsMemory) with a grant of minHeavy each, and is where their
//     growth past the grant and the buffers of uploads are reserved;
//   - the light lane (the slice, lightShare of the budget) admits every
//     other statement with a grant of minLight. They stream, their memory
//     bounded by the batch size, so a `SELECT 1` never waits behind the
//     heavy statements that fill the rest.
//
// A statement whose lane has no room for its grant waits in that lane's
// queue, first come first served, for up to wait; then it fails with
// memlimit.ErrResourceExhausted (gRPC ResourceExhausted). Admitted, its
// operators reserve from a child pool of the lane (memlimit.Pool.Child),
// limited to share bytes: past it, or when the lane is spent, a sort or an
// aggregation spills and a join's build side fails, as under the per
// statement limit.
type budget struct {
	total    int64
	heavy    *lane
	light    *lane
	minHeavy int64         // a heavy statement's grant
	minLight int64         // a light statement's grant
	share    int64         // the most one statement may reserve
	wait     time.Duration // in a queue; <= 0: no waiting
	refused  atomic.Int64  // statements and uploads refused
	// stale, when set (the heap watcher's collect), refreshes a held live
	// heap figure that may be out of date; a waiting statement calls it.
	stale func()
}

// lightShare is the light lane's part of the budget (1/lightShare);
// headroomShare is the part no lane reserves (1/headroomShare): the Go
// runtime, gRPC's buffers and the garbage the collector has not yet
// returned live there, outside every statement's accounting.
const (
	lightShare    = 16
	headroomShare = 8
)

// admitPoll is how often a waiting statement looks for room besides
// being woken (lane.changed): a statement that closes wakes the waiters,
// but memory a running statement gives back, deep in its operators, is
// only seen by polling. It was 2 ms for both: with 30 statements waiting,
// 15,000 wake-ups a second on two cores, each a goroutine that needs a P
// (a light call's hops wait behind them).
var admitPoll = 50 * time.Millisecond

// newBudget cuts total bytes into the lanes. A heavy statement's grant
// (minHeavy, 0: total/32 between 4MB and 64MB) stands for the memory it
// holds outside its reservations (the batches in flight, its spill files'
// buffers, its result's gRPC stream), so it is not small: the grants of
// the statements admitted together must fit the heavy lane.
//
// At most running heavy statements (0: no bound; the server's default is
// 2 a core, Options.HeavyStatements) hold grants at once:
// memory is not all they compete for. On 2 cores, 32 admitted hash joins
// and sorts starve every other goroutine of CPU, the light lane's
// `SELECT 1` included (p50 2.2 s in the load test), and a statement
// waiting in the queue uses none.
func newBudget(total, minHeavy int64, wait time.Duration, running int) *budget {
	light := total / lightShare
	heavy := total - light - total/headroomShare
	if minHeavy <= 0 {
		minHeavy = min(max(total/32, 4<<20), 64<<20)
	}
	minHeavy = min(minHeavy, heavy)
	minLight := min(max(light/64, 64<<10), 1<<20, light)
	hl := newLane(heavy)
	hl.max = int64(running)
	return &budget{total: total, heavy: hl, light: newLane(light),
		minHeavy: minHeavy, minLight: minLight, share: max(minHeavy, heavy/4), wait: wait}
}

// lane is one part of the budget with its queue of waiting statements.
type lane struct {
	pool    *memlimit.Pool
	mu      sync.Mutex
	next    uint64        // the next ticket
	queue   []uint64      // the tickets waiting, oldest first
	max     int64         // the most statements admitted at once (0: no bound)
	changed chan struct{} // closed when a statement leaves the lane or the queue (nil: nobody waits on it)
	active  atomic.Int64
	admits  atomic.Int64
	waiting atomic.Int64
}

func newLane(limit int64) *lane { return &lane{pool: memlimit.NewBudget(limit)} }

// admit is engine.Admit: it waits for the statement's grant in its lane
// and returns its pool, a child of the lane's limited to the smaller of
// the statement's own limit and the share.
func (b *budget) admit(ctx context.Context, heavy bool, limit int64) (*memlimit.Pool, error) {
	l, grant, what := b.light, b.minLight, "light"
	if heavy {
		l, grant, what = b.heavy, b.minHeavy, "heavy"
	}
	if err := b.acquire(ctx, l, grant, what); err != nil {
		return nil, err
	}
	share := b.share
	if limit > 0 {
		share = min(share, limit)
	}
	p := l.pool.Child(max(share, grant), grant)
	p.AtClose(func() {
		l.active.Add(-1)
		l.notify()
	})
	return p, nil
}

// acquire reserves n bytes of l once every statement queued before has
// had its turn, waiting up to b.wait.
func (b *budget) acquire(ctx context.Context, l *lane, n int64, what string) error {
	l.mu.Lock()
	if len(l.queue) == 0 && l.take(n) {
		l.mu.Unlock()
		l.admits.Add(1)
		return nil
	}
	t := l.next
	l.next++
	l.queue = append(l.queue, t)
	l.mu.Unlock()
	l.waiting.Add(1)
	defer l.waiting.Add(-1)
	defer l.leave(t)
	start := time.Now()
	deadline := time.NewTimer(max(b.wait, 0))
	defer deadline.Stop()
	tick := time.NewTicker(admitPoll)
	defer tick.Stop()
	for {
		changed, ok := l.tryHead(t, n)
		if ok {
			l.admits.Add(1)
			return nil
		}
		if b.wait <= 0 {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			b.refused.Add(1)
			return fmt.Errorf("%w: a %s statement waited %s for its %s of the server memory budget (%s of %s reserved, %d waiting)",
				memlimit.ErrResourceExhausted, what, time.Since(start).Round(time.Millisecond), memlimit.FormatSize(n),
				memlimit.FormatSize(l.pool.Reserved()), memlimit.FormatSize(l.pool.Limit()), l.waiting.Load())
		case <-tick.C:
			if b.stale != nil {
				b.stale()
			}
		}
	}
	b.refused.Add(1)
	return fmt.Errorf("%w: no room for a %s statement's %s of the server memory budget (%s of %s reserved)",
		memlimit.ErrResourceExhausted, what, memlimit.FormatSize(n), memlimit.FormatSize(l.pool.Reserved()), memlimit.FormatSize(l.pool.Limit()))
}

// tryHead reserves n for ticket t if it is first in the queue; if not,
// it returns the channel closed at the lane's next change.
func (l *lane) tryHead(t uint64, n int64) (<-chan struct{}, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queue) > 0 && l.queue[0] == t && l.take(n) {
		return nil, true
	}
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return l.changed, false
}

// notify wakes the statements waiting for the lane.
func (l *lane) notify() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.notifyLocked()
}

func (l *lane) notifyLocked() {
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

// take admits one statement with a grant of n if the lane has room for
// both (l.mu held).
func (l *lane) take(n int64) bool {
	if l.max > 0 && l.active.Load() >= l.max {
		return false
	}
	if l.pool.TryReserve("admission", n) != nil {
		return false
	}
	l.active.Add(1)
	return true
}

// leave takes ticket t out of the queue.
func (l *lane) leave(t uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, q := range l.queue {
		if q == t {
			l.queue = append(l.queue[:i], l.queue[i+1:]...)
			l.notifyLocked() // a new head, which may fit
			return
		}
	}
}

// upload is the pool a parameter upload counts its buffers in: a child of
// the heavy lane (no grant, no waiting: an upload over the budget fails
// as it streams) limited to the statement limit and the share. Without a
// server budget it is a pool of the statement limit alone (nil: none).
func (b *budget) upload(limit int64) *memlimit.Pool {
	if b == nil {
		if limit > 0 {
			return memlimit.NewPool(limit)
		}
		return nil
	}
	share := b.share
	if limit > 0 {
		share = min(share, limit)
	}
	return b.heavy.pool.Child(share, 0)
}

// MemoryStatus is the server's memory accounting, as the
// "stablerow.memory" action returns it (JSON). Sizes are bytes.
type MemoryStatus struct {
	Budget int64 `json:"budget"` // 0: no server budget
	// Reserved is what statements (grants and their operators'
	// reservations) and parameter uploads hold now.
	Reserved int64 `json:"reserved"`
	// Unreserved is the live heap no statement reserved, which the
	// budget counts too (heapwatch.go).
	Unreserved int64 `json:"unreserved_heap"`
	// PeakAccounted is the most the budget's lanes held at once,
	// Unreserved included: past Budget only by the heap's own growth
	// between two looks.
	PeakAccounted int64 `json:"peak_accounted"`
	Allocated     int64 `json:"allocated"` // through statements' Arrow allocators
	PeakAllocated int64 `json:"peak_allocated"`
	HeavyAdmitted int64 `json:"heavy_admitted"`
	HeavyRunning  int64 `json:"heavy_running"`
	LightAdmitted int64 `json:"light_admitted"`
	Waiting       int64 `json:"waiting"`
	Refused       int64 `json:"refused"`         // statements that waited too long
	HeapLive      int64 `json:"heap_live"`       // Go's live heap at the last collection
	GoMemLimit    int64 `json:"go_memory_limit"` // debug.SetMemoryLimit's
	Prepared      int   `json:"prepared"`        // prepared statements held
	// Uploads is what parameter uploads hold in memory, counted in
	// Reserved and against the budget: the Arrow buffers of batches
	// received and not yet converted, spilled or streamed into their
	// statement, and the Go values bound parameters became (as
	// engine.ParamsFromArrow makes them), until the statement is rebound,
	// closed or dropped. A spilled upload's bytes leave it as they go to
	// the file.
	Uploads int64 `json:"upload_reserved"`
	// UploadSpilled is the bytes in spilled uploads' files (uploadspill.go)
	// under the spill directory: on disk, so not in Reserved nor the
	// budget; each file's from its first byte written until the statement
	// is rebound, closed or dropped, or its upload fails or is cancelled.
	UploadSpilled int64 `json:"upload_spilled"`

	// The priority of light calls over heavy statements (priority.go),
	// and how long goroutines waited for a core: what a load test
	// reads beside the latency its clients saw.
	LightCalls   int64   `json:"light_calls"`    // light tickets issued
	HeavyParks   int64   `json:"heavy_parks"`    // heavy goroutines parked for them
	HeavyParkedS float64 `json:"heavy_parked_s"` // seconds they spent parked
	// Leases on the cores (Options.HeavyRunning): how often a heavy
	// goroutine queued for one, the seconds it waited in all, and the
	// leases revoked from a goroutine past its quantum.
	LeaseWaits   int64   `json:"lease_waits"`
	LeaseWaitS   float64 `json:"lease_wait_s"`
	LeaseRevokes int64   `json:"lease_revokes"`
	// SchedLatency is Go's /sched/latencies:seconds since the process
	// started (the time runnable goroutines waited for a P), p50 / p99
	// in seconds; GCPause is /sched/pauses/total/gc:seconds, p99 and
	// max bucket.
	SchedLatencyP50 float64 `json:"sched_latency_p50_s"`
	SchedLatencyP99 float64 `json:"sched_latency_p99_s"`
	GCPauseP99      float64 `json:"gc_pause_p99_s"`
	GCPauseMax      float64 `json:"gc_pause_max_s"`
	GOMAXPROCS      int     `json:"gomaxprocs"`
}

func (b *budget) status(w *heapWatch) MemoryStatus {
	if b == nil {
		return MemoryStatus{}
	}
	h, l := b.heavy.pool, b.light.pool
	unres := w.size()
	return MemoryStatus{
		Budget:        b.total,
		Reserved:      h.Reserved() + l.Reserved() - unres,
		Unreserved:    unres,
		PeakAccounted: h.PeakReserved() + l.PeakReserved(),
		Allocated:     h.Allocated() + l.Allocated(),
		PeakAllocated: h.PeakAllocated() + l.PeakAllocated(),
		HeavyAdmitted: b.heavy.admits.Load(),
		HeavyRunning:  b.heavy.active.Load(),
		LightAdmitted: b.light.admits.Load(),
		Waiting:       b.heavy.waiting.Load() + b.light.waiting.Load(),
		Refused:       b.refused.Load(),
	}
}
