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

// spin runs n heavy workers, each passing h between "batches" of busy
// work and counting them, until ctx ends; it returns their counters and
// a wait for them to stop (with the first error a Pass returned).
func spin(ctx context.Context, g *priority.Gate, n int) ([]*atomic.Int64, func() error) {
	counts := make([]*atomic.Int64, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range counts {
		counts[i] = &atomic.Int64{}
		h := g.Heavy()
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for ctx.Err() == nil {
				if err := h.Pass(ctx); err != nil {
					if ctx.Err() == nil {
						errs <- err // not the stop's: a bug
					}
					return
				}
				for j := range 10000 {
					x += j
				}
				counts[i].Add(1)
			}
			_ = x
		}()
	}
	return counts, func() error {
		wg.Wait()
		close(errs)
		return <-errs
	}
}

func total(counts []*atomic.Int64) int64 {
	var n int64
	for _, c := range counts {
		n += c.Load()
	}
	return n
}

// TestGateParksHeavyWhileLight: with no ticket out the heavy workers run
// without parking; while one is out every worker parks at its next pass
// and passes no more batches; once it is done they all run again.
func TestGateParksHeavyWhileLight(t *testing.T) {
	const n = 4
	g := priority.NewGate(priority.Options{MaxLight: time.Hour, MaxPark: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	counts, wait := spin(ctx, g, n)
	require.Eventually(t, func() bool { return total(counts) > 100 }, time.Minute, time.Millisecond)
	require.Zero(t, g.Stats().Parks, "nothing to park for")

	light := g.Light()
	require.Eventually(t, func() bool { return g.Stats().Parked == n }, time.Minute, time.Millisecond)
	before := total(counts)
	time.Sleep(20 * time.Millisecond) // parked goroutines cannot count, however long this is
	require.Equal(t, before, total(counts), "no heavy batch passed while the light ticket was out")

	light.Done()
	light.Done() // a second Done does nothing
	require.Eventually(t, func() bool { return total(counts) > before+100 && g.Stats().Parked == 0 }, time.Minute, time.Millisecond)
	cancel()
	require.NoError(t, wait())
	st := g.Stats()
	require.EqualValues(t, 1, st.Lights)
	require.GreaterOrEqual(t, st.Parks, int64(n))
	require.Positive(t, st.Time)
}

// TestGateBounds: a ticket nobody ends stops counting after MaxLight,
// and light work that never ends still leaves the heavy workers
// running, a quantum after each MaxPark: neither starves them.
func TestGateBounds(t *testing.T) {
	t.Run("MaxLight", func(t *testing.T) {
		g := priority.NewGate(priority.Options{MaxLight: 20 * time.Millisecond, MaxPark: time.Hour})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		g.Light() // abandoned
		counts, wait := spin(ctx, g, 2)
		require.Eventually(t, func() bool { return total(counts) > 100 }, time.Minute, time.Millisecond)
		cancel()
		require.NoError(t, wait())
	})
	t.Run("MaxPark", func(t *testing.T) {
		g := priority.NewGate(priority.Options{MaxLight: time.Hour, MaxPark: 5 * time.Millisecond})
		light := g.Light()
		defer light.Done()
		ctx, cancel := context.WithCancel(context.Background())
		counts, wait := spin(ctx, g, 2)
		require.Eventually(t, func() bool { return total(counts) > 100 }, time.Minute, time.Millisecond)
		require.Positive(t, g.Stats().Parks)
		cancel()
		require.NoError(t, wait())
	})
}

// TestGateCancel: a parked worker whose context ends returns its error.
func TestGateCancel(t *testing.T) {
	g := priority.NewGate(priority.Options{MaxLight: time.Hour, MaxPark: time.Hour})
	light := g.Light()
	defer light.Done()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- g.Heavy().Pass(ctx) }()
	require.Eventually(t, func() bool { return g.Stats().Parked == 1 }, time.Minute, time.Millisecond)
	cancel()
	require.ErrorIs(t, <-errc, context.Canceled)
}

// TestTicketDemote: a demoted ticket stops counting at once and says so;
// nil gates, tickets and passes do nothing.
func TestTicketDemote(t *testing.T) {
	g := priority.NewGate(priority.Options{MaxLight: time.Hour, MaxPark: time.Hour})
	tk := g.Light()
	ctx := priority.WithTicket(context.Background(), tk)
	require.Same(t, tk, priority.TicketOf(ctx))
	priority.TicketOf(ctx).Demote()
	require.True(t, tk.Demoted())
	require.NoError(t, g.Heavy().Pass(context.Background()), "no light work in flight")
	require.Zero(t, g.Stats().Parks)
	tk.Done()

	var nilGate *priority.Gate
	require.Nil(t, nilGate.Light())
	require.Nil(t, nilGate.Heavy())
	require.NoError(t, nilGate.Heavy().Pass(context.Background()))
	require.Nil(t, priority.TicketOf(context.Background()))
	priority.TicketOf(context.Background()).Demote()
	require.False(t, priority.TicketOf(context.Background()).Demoted())
	require.Zero(t, nilGate.Stats())
}
