package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"

	"github.com/stablerow/stablerow/exec/memlimit"
)

// TestBudgetAdmission: heavy statements take grants from their lane, at
// most `running` at once; the next one waits and is admitted when one
// closes, or fails with ResourceExhausted after the wait; a light
// statement is admitted while the heavy lane is full; growth past the
// lane is refused; closing every pool gives the budget back whole.
func TestBudgetAdmission(t *testing.T) {
	ctx := context.Background()
	b := newBudget(64<<20, 8<<20, 50*time.Millisecond, 2)
	p1, err := b.admit(ctx, true, 0)
	require.NoError(t, err)
	p2, err := b.admit(ctx, true, 0)
	require.NoError(t, err)
	_, err = b.admit(ctx, true, 0) // a third: over `running`
	require.ErrorIs(t, err, memlimit.ErrResourceExhausted)
	require.Equal(t, codes.ResourceExhausted, codeOf(err))
	require.Equal(t, int64(1), b.status(nil).Refused)

	light, err := b.admit(ctx, false, 0)
	require.NoError(t, err, "the light lane does not wait behind the heavy one")

	// A waiter is admitted once a running statement closes.
	b.wait = 10 * time.Second
	got := make(chan error, 1)
	go func() {
		p, err := b.admit(ctx, true, 0)
		if err == nil {
			p.Close()
		}
		got <- err
	}()
	for b.status(nil).Waiting == 0 {
		time.Sleep(time.Millisecond)
	}
	p1.Close()
	require.NoError(t, <-got)

	// Growth is bounded by the statement's share of the lane.
	r := p2.NewReservation("SortExec")
	require.ErrorIs(t, r.TryGrow(b.heavy.pool.Limit()), memlimit.ErrResourceExhausted)
	require.NoError(t, r.TryGrow(b.share-b.minHeavy))
	r.Free()
	p2.Close()
	light.Close()
	m := b.status(nil)
	require.Zero(t, m.Reserved)
	require.Zero(t, m.HeavyRunning)
	require.LessOrEqual(t, m.PeakAccounted, int64(64<<20))
}

// TestBudgetAdmissionCancel: a waiting statement whose client goes away
// leaves the queue with its context's error.
func TestBudgetAdmissionCancel(t *testing.T) {
	b := newBudget(64<<20, 8<<20, time.Minute, 1)
	p, err := b.admit(context.Background(), true, 0)
	require.NoError(t, err)
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = b.admit(ctx, true, 0)
	require.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
	require.Zero(t, b.status(nil).Waiting)
}

// TestBudgetAdmissionWakes: statements waiting for admission are woken
// when one closes (and when the head of the queue leaves), not found by
// polling: with the poll an hour apart, each waiter in turn is admitted
// as the one before it closes, well before its wait ends.
func TestBudgetAdmissionWakes(t *testing.T) {
	defer func(d time.Duration) { admitPoll = d }(admitPoll)
	admitPoll = time.Hour
	ctx := context.Background()
	b := newBudget(64<<20, 8<<20, time.Minute, 1)
	first, err := b.admit(ctx, true, 0)
	require.NoError(t, err)

	// The head of the queue gives up: the next one becomes head.
	gone, cancel := context.WithCancel(ctx)
	left := make(chan error, 1)
	go func() {
		_, err := b.admit(gone, true, 0)
		left <- err
	}()
	for b.status(nil).Waiting < 1 {
		time.Sleep(time.Millisecond)
	}
	got := make(chan error, 3)
	admitted := make(chan *memlimit.Pool, 3)
	for range 3 {
		go func() {
			p, err := b.admit(ctx, true, 0)
			got <- err
			admitted <- p
		}()
	}
	for b.status(nil).Waiting < 4 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	require.ErrorIs(t, <-left, context.Canceled)
	first.Close()
	for range 3 {
		require.NoError(t, <-got)
		(<-admitted).Close()
	}
	require.Zero(t, b.status(nil).Reserved)
}
