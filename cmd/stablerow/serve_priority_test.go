//go:build stablerow_full

package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestServeLightPriority: `stablerow serve` as a subprocess, one client
// running a long aggregation (heavy: it holds a grant of the budget) and
// another running `SELECT 1` meanwhile. The heavy statement's goroutine
// parks at its batch boundaries while the light calls run (the server
// counts the parks), so a `SELECT 1` does not wait for the cores behind
// it; with -light-priority=false it never parks. Either way every probe
// answers 1, and the heavy statement stops when its client cancels it.
func TestServeLightPriority(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "on", false: "off"}[on], func(t *testing.T) {
			args := []string{"-d", filepath.Join(t.TempDir(), "db"), "-create"}
			if !on {
				args = append(args, "-light-priority=false")
			}
			sp := serveWithPID(t, args...)
			cl := flightClient(t, sp.addr)
			ctx, cancel := context.WithCancel(context.Background())
			heavyDone := make(chan error, 1)
			go func() {
				// Far longer than the test lasts: cancelled below.
				_, err := query(ctx, flightClient(t, sp.addr), "SELECT x % 7 AS m, count(*) FROM generate_series(1, 2000000000) AS s(x) GROUP BY 1")
				heavyDone <- err
			}()
			require.Eventually(t, func() bool { return memoryStatus(t, cl).HeavyRunning == 1 }, time.Minute, 5*time.Millisecond)
			var probes int
			for probes < 200 && (probes < 20 || !on || memoryStatus(t, cl).HeavyParks == 0) {
				n, err := query(context.Background(), cl, "SELECT 1")
				require.NoError(t, err)
				require.Equal(t, int64(1), n)
				probes++
				select {
				case err := <-heavyDone:
					t.Fatalf("the heavy statement ended before the probes did: %v", err)
				default:
				}
			}
			m := memoryStatus(t, cl)
			require.EqualValues(t, 1, m.HeavyRunning)
			if on {
				require.Positive(t, m.HeavyParks, "the heavy statement parked for the light calls (%d probes)", probes)
				require.Positive(t, m.LightCalls)
			} else {
				require.Zero(t, m.HeavyParks)
				require.Zero(t, m.LightCalls)
			}
			cancel()
			err := <-heavyDone
			require.Equal(t, codes.Canceled, status.Code(err), "%v", err)
			require.Eventually(t, func() bool { return memoryStatus(t, cl).HeavyRunning == 0 }, time.Minute, 5*time.Millisecond,
				"the cancelled statement gave its grant back")
		})
	}
}
