package priority_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/priority"
)

// guard is a test's bound on waiting for something that must happen: a
// deadlock shows as the guard's error, not as a hung test. Not a timing
// assertion: nothing here needs more than milliseconds.
func guard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestLeasesBoundRunning: with Running 2, of 8 goroutines with a lease
// each (WithRunner) no more than 2 are ever between a Pass and their
// next, and all finish: a lease goes to a waiting goroutine when its
// holder is done. The quantum is an hour, so no lease is revoked and the
// bound is exact (without leases, Running 0, all 8 run at once).
func TestLeasesBoundRunning(t *testing.T) {
	for _, running := range []int{1, 2, 3} {
		g := priority.NewGate(priority.Options{Running: running, Quantum: time.Hour})
		h := g.Heavy()
		ctx := guard(t)
		var now, most atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rctx, done := priority.WithRunner(ctx)
				<-start
				for range 50 {
					if err := h.Pass(rctx); err != nil {
						t.Error(err)
						break
					}
					n := now.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					time.Sleep(10 * time.Microsecond) // a batch
					now.Add(-1)
				}
				done()
			}()
		}
		close(start)
		wg.Wait()
		require.NoError(t, ctx.Err())
		require.LessOrEqual(t, most.Load(), int64(running), "running %d", running)
		require.Positive(t, g.Stats().LeaseWaits)
	}
}

// TestLeasesNoBoundWithoutRunning: the check above can fail: without a
// bound the goroutines do run together.
func TestLeasesNoBoundWithoutRunning(t *testing.T) {
	g := priority.NewGate(priority.Options{})
	h := g.Heavy()
	var now, most atomic.Int64
	var wg sync.WaitGroup
	in := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			require.NoError(t, h.Pass(context.Background()))
			if now.Add(1) == 4 {
				close(in) // all four between two passes
			}
			<-in
			most.Store(max(most.Load(), now.Load()))
		}()
	}
	wg.Wait()
	require.Equal(t, int64(4), most.Load())
	require.Zero(t, g.Stats().LeaseWaits)
}

// TestLeasesHolderBlocks: a goroutine that holds the only lease and
// blocks on work that another heavy goroutine must do (a consumer
// waiting for its producer, which needs a lease to run) does not
// deadlock: the lease is revoked after the quantum and the producer runs.
func TestLeasesHolderBlocks(t *testing.T) {
	g := priority.NewGate(priority.Options{Running: 1, Quantum: time.Millisecond})
	h := g.Heavy()
	ctx := guard(t)
	cctx, cdone := priority.WithRunner(ctx)
	defer cdone()
	require.NoError(t, h.Pass(cctx)) // the consumer holds the lease
	batch := make(chan int)
	go func() {
		pctx, pdone := priority.WithRunner(ctx)
		defer pdone()
		for i := range 3 {
			if h.Pass(pctx) != nil {
				return
			}
			batch <- i
		}
		close(batch)
	}()
	var got []int
	for {
		var b int
		var ok bool
		select { // blocks holding its lease: no Idle
		case b, ok = <-batch:
		case <-ctx.Done():
			t.Fatal("deadlock: the producer never got the lease")
		}
		if !ok {
			break
		}
		got = append(got, b)
	}
	require.Equal(t, []int{0, 1, 2}, got)
	require.Positive(t, g.Stats().LeaseRevokes)
}

// TestLeasesIdleHandsOn: Idle gives the lease to a waiting goroutine at
// once, without a revocation (the quantum is an hour).
func TestLeasesIdleHandsOn(t *testing.T) {
	g := priority.NewGate(priority.Options{Running: 1, Quantum: time.Hour})
	h := g.Heavy()
	ctx := guard(t)
	cctx, cdone := priority.WithRunner(ctx)
	defer cdone()
	require.NoError(t, h.Pass(cctx))
	passed := make(chan error)
	go func() {
		pctx, pdone := priority.WithRunner(ctx)
		defer pdone()
		passed <- h.Pass(pctx)
	}()
	for g.Stats().LeaseWaits == 0 && ctx.Err() == nil { // the producer queued
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, ctx.Err(), "the second goroutine never queued")
	h.Idle(cctx)
	select {
	case err := <-passed:
		require.NoError(t, err)
	case <-ctx.Done():
		t.Fatal("Idle did not hand the lease on")
	}
	require.Zero(t, g.Stats().LeaseRevokes)
}

// TestLeasesTurns: with one lease and three goroutines that pass in a
// loop, each gets its turns (a holder gives its lease up at the first
// Pass after its quantum when others wait).
func TestLeasesTurns(t *testing.T) {
	g := priority.NewGate(priority.Options{Running: 1, Quantum: 200 * time.Microsecond})
	ctx, cancel := context.WithCancel(guard(t))
	counts := make([]atomic.Int64, 3)
	var wg sync.WaitGroup
	for i := range counts {
		h := g.Heavy() // three statements
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := h.Pass(ctx); err != nil {
					return
				}
				time.Sleep(20 * time.Microsecond)
				counts[i].Add(1)
			}
		}()
	}
	for ctx.Err() == nil && (counts[0].Load() < 10 || counts[1].Load() < 10 || counts[2].Load() < 10) {
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, ctx.Err(), "a goroutine got no turns: %d %d %d", counts[0].Load(), counts[1].Load(), counts[2].Load())
	cancel()
	wg.Wait()
}

// TestLeasesCancelWhileQueued: a goroutine queued for a lease returns its
// context's error when the context ends, and leaves the queue: the lease
// goes to the next one in line.
func TestLeasesCancelWhileQueued(t *testing.T) {
	g := priority.NewGate(priority.Options{Running: 1, Quantum: time.Hour})
	h := g.Heavy()
	ctx := guard(t)
	hctx, hdone := priority.WithRunner(ctx)
	require.NoError(t, h.Pass(hctx))

	qctx, qcancel := context.WithCancel(ctx)
	qctx, qdone := priority.WithRunner(qctx)
	defer qdone()
	qerr := make(chan error)
	go func() { qerr <- h.Pass(qctx) }()
	for g.Stats().LeaseWaits < 1 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	nctx, ndone := priority.WithRunner(ctx)
	defer ndone()
	nerr := make(chan error)
	go func() { nerr <- h.Pass(nctx) }()
	for g.Stats().LeaseWaits < 2 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	qcancel()
	require.ErrorIs(t, <-qerr, context.Canceled)
	hdone()
	require.NoError(t, <-nerr)
}

// TestLeasesSharedRunner: goroutines with no lease of their own share
// their statement's, and stress with blocking between them never
// deadlocks: every goroutine finishes.
func TestLeasesSharedRunner(t *testing.T) {
	g := priority.NewGate(priority.Options{Running: 2, Quantum: 100 * time.Microsecond})
	ctx := guard(t)
	var wg sync.WaitGroup
	for s := range 4 { // statements
		h := g.Heavy()
		ch := make(chan int)
		for w := range 3 { // goroutines: w 0 consumes what 1 and 2 make
			wg.Add(1)
			go func() {
				defer wg.Done()
				wctx := ctx
				if (s+w)%2 == 0 {
					var done func()
					wctx, done = priority.WithRunner(ctx)
					defer done()
				}
				for i := range 200 {
					if err := h.Pass(wctx); err != nil {
						t.Errorf("statement %d goroutine %d: %v", s, w, err)
						return
					}
					switch {
					case w == 0 && i%2 == 0:
						h.Idle(wctx)
						for range 2 {
							select {
							case <-ch:
							case <-ctx.Done():
								return
							}
						}
					case w > 0 && i%2 == 0:
						select { // blocks holding its lease
						case ch <- i:
						case <-ctx.Done():
							return
						}
					}
				}
			}()
		}
	}
	wg.Wait()
	require.NoError(t, ctx.Err())
}
