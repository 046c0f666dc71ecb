package gcstart

import (
	"math"
	"runtime"
	rdebug "runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// goMemory is the Go runtime's own memory, the figure a memory limit
// bounds.
func goMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

var sink [][]byte

// pacing returns GOGC and the memory limit now, without changing them.
func pacing() (pct int, limit int64) {
	pct = rdebug.SetGCPercent(100)
	rdebug.SetGCPercent(pct)
	return pct, rdebug.SetMemoryLimit(-1)
}

// TestDeferFirstGC: a burst of garbage well over the default first goal
// (4 MB) runs no collection while the process is under heap; the first
// collection hands pacing back to what it was.
func TestDeferFirstGC(t *testing.T) {
	restoreStart() // this test binary's own deferral, from the package's init
	runtime.GC()
	pct0, limit0 := pacing()
	if pct0 < 0 || limit0 != math.MaxInt64 {
		t.Skipf("GOGC=%d GOMEMLIMIT=%d in the environment: the default pacing is what this tests", pct0, limit0)
	}
	restore := DeferFirstGC(goMemory() + 48<<20)
	defer restore()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 256 { // 16 MB of 64 KB garbage: four times the default first goal
		sink = append(sink[:0], make([]byte, 64<<10))
	}
	sink = nil
	runtime.ReadMemStats(&after)
	if n := after.NumGC - before.NumGC; n != 0 {
		t.Fatalf("%d collections while under the start heap, want 0", n)
	}

	runtime.GC() // the first cycle: its finalizer restores the pacing
	deadline := time.Now().Add(10 * time.Second)
	for rdebug.SetMemoryLimit(-1) != limit0 {
		if time.Now().After(deadline) {
			t.Fatalf("memory limit %d after the first collection, want %d restored", rdebug.SetMemoryLimit(-1), limit0)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if pct, _ := pacing(); pct != pct0 {
		t.Fatalf("GOGC %d after the first collection, want %d restored", pct, pct0)
	}
}

// TestDeferFirstGCRespectsEnvironment: GOGC=off and a memory limit at or
// below the start heap are left as they are.
func TestDeferFirstGCRespectsEnvironment(t *testing.T) {
	restoreStart()
	pct0, limit0 := pacing()
	defer func() {
		rdebug.SetGCPercent(pct0)
		rdebug.SetMemoryLimit(limit0)
	}()

	rdebug.SetMemoryLimit(16 << 20)
	DeferFirstGC(32 << 20)
	if pct, limit := pacing(); pct != pct0 || limit != 16<<20 {
		t.Fatalf("under GOMEMLIMIT=16MiB: GOGC %d limit %d, want %d and %d untouched", pct, limit, pct0, 16<<20)
	}
	rdebug.SetMemoryLimit(limit0)

	rdebug.SetGCPercent(-1)
	DeferFirstGC(32 << 20)
	if pct, limit := pacing(); pct != -1 || limit != limit0 {
		t.Fatalf("under GOGC=off: GOGC %d limit %d, want -1 and %d untouched", pct, limit, limit0)
	}
}
