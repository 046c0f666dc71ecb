package gcstart

import (
	"runtime"
	"sync"
	_ "unsafe" // go:linkname
)

// setGCPercent and setMemoryLimit are runtime/debug.SetGCPercent and
// SetMemoryLimit, reached by the names the runtime itself gives them
// (runtime/mgcpacer.go pushes its implementations to runtime/debug under
// these names) rather than by importing runtime/debug. The import would
// make this package wait for runtime/debug in Go's init order, which
// initializes, among the packages whose imports are done, the one whose
// path sorts first: runtime/debug sorts after nearly every path, so it
// runs at ~170 of the CLI's 276 initializers, and package warm, which
// must come after this one, would start ~9M instructions later.
//
//go:linkname setGCPercent runtime/debug.setGCPercent
func setGCPercent(int32) int32

//go:linkname setMemoryLimit runtime/debug.setMemoryLimit
func setMemoryLimit(int64) int64

// Heap is the memory the process may grow to before its first collection.
// A `stablerow sql -e` of a small take allocates ~8 MB in all (init
// included) and exits; under the default pacing (GOGC=100, a 4 MB first
// goal) it pays one full collection for nothing.
const Heap = 32 << 20

// restoreStart is the process-wide deferral's restore, kept for this
// package's tests (whose own first collections it would otherwise skew).
var restoreStart = DeferFirstGC(Heap)

// DeferFirstGC holds the first collection back until the process's Go
// memory reaches heap, then hands pacing back to GOGC and GOMEMLIMIT as
// the environment set them. It does so with the runtime's own knobs: GOGC
// off and a memory limit of heap until the first cycle, whose end a
// finalizer on an unreachable sentinel observes. After that the process is
// paced exactly as before, so a large statement's heap is not raised by
// more than heap (unlike a higher GOGC, which multiplies it).
//
// Nothing changes when the environment already asks for less: GOGC=off
// (no collections at all) or a GOMEMLIMIT at or below heap. The returned
// function restores the pacing at once (idempotent; for tests).
func DeferFirstGC(heap int64) (restore func()) {
	limit := setMemoryLimit(-1) // -1 reads without changing
	if limit <= heap {
		return func() {}
	}
	pct := setGCPercent(-1)
	if pct < 0 { // GOGC=off: it was off already
		return func() {}
	}
	setMemoryLimit(heap)
	var once sync.Once
	restore = func() {
		once.Do(func() {
			setMemoryLimit(limit)
			setGCPercent(pct)
		})
	}
	// Not a tiny allocation (those share a block, so a finalizer on one
	// may wait for its neighbours), and unreachable from the start: the
	// first cycle frees it and queues the finalizer.
	sentinel := new([64]byte)
	runtime.SetFinalizer(sentinel, func(*[64]byte) { restore() })
	return restore
}

// Restore hands pacing back to GOGC and GOMEMLIMIT now, if the first
// collection has not already. A caller about to set its own memory limit
// (a long-running server's budget) calls it first: the restore that runs
// after the first collection would otherwise put the environment's limit
// back over the caller's.
func Restore() { restoreStart() }
