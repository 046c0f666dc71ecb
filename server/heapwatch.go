package server

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stablerow/stablerow/exec/memlimit"
)

// The lanes count what operators reserve, and operators reserve
// estimates: a hash aggregation's groups, say, as so many bytes a group,
// while its Go slices and hash table grow by doubling and a rehash holds
// the old table and the new one at once. Under many statements the real
// heap came to twice the reservations (a 64MB budget, 8 clients: 56MB
// reserved, 110MB live). Other memory is counted nowhere: gRPC's buffers,
// spill files' read buffers, the server's own structures.
//
// So the heap watcher makes the budget follow the heap itself: after each
// garbage collection (polled every heapPoll) it reads the live heap and
// holds the part that no lane has reserved as one forced reservation of
// the heavy lane. Reservations and the real heap then share one bound:
// while the heap is over it, heavy statements wait for admission and
// operators that ask for more spill or fail, whatever their estimates
// said.

// heapPoll is how often the watcher reads the live heap (it changes at
// each garbage collection).
const heapPoll = 10 * time.Millisecond

// collectEvery is the least time between two collections a waiting
// statement asks for (heapWatch.collect).
const collectEvery = 250 * time.Millisecond

type heapWatch struct {
	b    *budget
	held atomic.Int64          // res's size, for status
	res  *memlimit.Reservation // the unaccounted heap, in the heavy lane
	mu   sync.Mutex            // serializes step (the ticker's and collect's)
	// lastGC is when collect last ran a collection (unix nanoseconds).
	lastGC atomic.Int64
	stop   chan struct{}
	done   sync.WaitGroup
}

func (b *budget) watchHeap() *heapWatch {
	w := &heapWatch{b: b, res: b.heavy.pool.NewReservation("heap not reserved by statements"), stop: make(chan struct{})}
	b.stale = w.collect
	w.done.Add(1)
	go w.run()
	return w
}

func (w *heapWatch) run() {
	defer w.done.Done()
	t := time.NewTicker(heapPoll)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			w.mu.Lock()
			w.res.Free()
			w.held.Store(0)
			w.mu.Unlock()
			return
		case <-t.C:
		}
		w.step()
	}
}

// step holds the live heap that no lane has reserved.
func (w *heapWatch) step() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	live := int64(s[0].Value.Uint64())
	mine := w.res.Size()
	reserved := w.b.heavy.pool.Reserved() - mine + w.b.light.pool.Reserved()
	want := max(live-reserved, 0)
	switch {
	case want > mine:
		w.res.Grow(want - mine)
	case want < mine:
		w.res.Shrink(mine - want)
	}
	w.held.Store(want)
}

// collect runs a garbage collection and holds what it finds live, for a
// statement waiting for admission while the watcher holds heap. The live
// heap is measured only at a collection, and an idle server collects
// nothing: the figure of the last collection, taken while a cancelled
// statement's batches were still reachable, held 51MB of a 52MB lane
// with nothing running, and the next statement waited its 30 s and
// failed. A collection costs time in proportion to the live heap, so it
// runs at most once per collectEvery, and only when the watcher holds
// something.
func (w *heapWatch) collect() {
	if w.held.Load() == 0 {
		return
	}
	now := time.Now().UnixNano()
	last := w.lastGC.Load()
	if now-last < int64(collectEvery) || !w.lastGC.CompareAndSwap(last, now) {
		return
	}
	runtime.GC()
	w.step()
}

// size is the heap the watcher holds in the budget.
func (w *heapWatch) size() int64 {
	if w == nil {
		return 0
	}
	return w.held.Load()
}

func (w *heapWatch) close() {
	if w == nil {
		return
	}
	close(w.stop)
	w.done.Wait()
}
