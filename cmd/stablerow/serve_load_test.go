//go:build load && stablerow_full

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// TestServeLoad is `make test-load` (build tag load; not in make test or
// CI): `stablerow serve` as a subprocess under LOAD_CLIENTS (32) clients
// running hash joins, GROUP BYs and sorts over a table of LOAD_ROWS (10M)
// rows on 127.0.0.1 for LOAD_DURATION (2m), with a prober running
// `SELECT 1` every 50 ms. It prints the server's peak RSS, the heavy
// statements' outcomes and the prober's p50/p95/p99 latency. LOAD_DB
// keeps the table between runs; LOAD_SERVE_ARGS adds serve flags (e.g.
// "-server-memory unlimited" for the before). It fails only if a heavy
// statement fails otherwise than ResourceExhausted or a probe fails: the
// figures are for BENCHMARKS.md, not assertions.
func TestServeLoad(t *testing.T) {
	rows := envInt("LOAD_ROWS", 10_000_000)
	clients := envInt("LOAD_CLIENTS", 32)
	dur, err := time.ParseDuration(envStr("LOAD_DURATION", "2m"))
	require.NoError(t, err)
	dir := envStr("LOAD_DB", filepath.Join(t.TempDir(), "db"))
	if _, err := os.Stat(filepath.Join(dir, "big")); err != nil {
		start := time.Now()
		mustSQL(t, dir, fmt.Sprintf(`CREATE TABLE big (k BIGINT NOT NULL, g BIGINT NOT NULL, s TEXT);
			INSERT INTO big SELECT x, x %% 100003, 'row-' || ((x * 7919) %% 10000019) FROM generate_series(1, %d) AS x(x)`, rows), "-create")
		t.Logf("made %d rows in %s", rows, time.Since(start).Round(time.Second))
	}
	args := append([]string{"-d", dir, "-spill-dir", t.TempDir()}, strings.Fields(os.Getenv("LOAD_SERVE_ARGS"))...)
	fmt.Printf("load: machine load average at the start %s", loadAvg())
	sp := serveWithPID(t, args...)
	idle := procStatus(t, sp.pid, "VmRSS")
	heavy := []string{
		"SELECT count(*) FROM big AS a JOIN big AS b ON a.k = b.k",
		"SELECT count(*) FROM (SELECT g, count(*), sum(k) FROM big GROUP BY g) AS x",
		"SELECT count(*) FROM (SELECT s, count(*) FROM big GROUP BY s) AS x",
		"SELECT k FROM big ORDER BY s LIMIT 10 OFFSET 5000000",
	}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var ok, exhausted, other atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := flightsql.NewClient(sp.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Error(err)
				return
			}
			defer cl.Close()
			for i := c; ctx.Err() == nil; i++ {
				_, err := query(ctx, cl, heavy[i%len(heavy)])
				switch {
				case err == nil:
					ok.Add(1)
				case ctx.Err() != nil:
				case status.Code(err) == codes.ResourceExhausted:
					exhausted.Add(1)
				default:
					other.Add(1)
					t.Errorf("%s: %v", heavy[i%len(heavy)], err)
				}
			}
		}()
	}
	var lat []time.Duration
	var probeFails int
	pcl := flightClient(t, sp.addr)
	for ctx.Err() == nil {
		start := time.Now()
		n, err := query(context.Background(), pcl, "SELECT 1")
		lat = append(lat, time.Since(start))
		if err != nil || n != 1 {
			probeFails++
			t.Errorf("SELECT 1: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(100 * time.Microsecond)
	}
	m := memoryStatus(t, pcl)
	fmt.Printf("load: %d rows, %d clients, %s, serve %s\n", rows, clients, dur, strings.Join(args[4:], " "))
	fmt.Printf("load: server RSS idle %d MB, peak %d MB; budget %d MB, peak accounted %d MB\n",
		idle>>20, procStatus(t, sp.pid, "VmHWM")>>20, m.Budget>>20, m.PeakAccounted>>20)
	fmt.Printf("load: heavy statements %d finished, %d ResourceExhausted, %d other errors\n", ok.Load(), exhausted.Load(), other.Load())
	fmt.Printf("load: SELECT 1 x%d: p50 %s p95 %s p99 %s max %s, %d failed\n", len(lat), pct(0.50), pct(0.95), pct(0.99), lat[len(lat)-1], probeFails)
	fmt.Printf("load: server GOMAXPROCS %d; light calls %d, heavy goroutines parked %d times for %.1f s; Go scheduler latency p50 %s p99 %s; GC pause p99 %s max %s\n",
		m.GOMAXPROCS, m.LightCalls, m.HeavyParks, m.HeavyParkedS, secs(m.SchedLatencyP50), secs(m.SchedLatencyP99), secs(m.GCPauseP99), secs(m.GCPauseMax))
	fmt.Printf("load: heavy goroutines queued for a lease on a core %d times for %.1f s, %d leases revoked past their quantum\n",
		m.LeaseWaits, m.LeaseWaitS, m.LeaseRevokes)
	fmt.Printf("load: machine load average at the end %s", loadAvg())
}

// secs is a runtime/metrics bound in seconds as a duration.
func secs(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(10 * time.Microsecond)
}

// loadAvg is /proc/loadavg: the figures are only comparable between runs
// at like loads (the cores are shared).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown\n"
	}
	return string(b)
}

func envStr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err == nil {
			return n
		}
	}
	return def
}
