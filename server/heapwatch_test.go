package server

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAdmissionRefreshesStaleHeap: the heap watcher holds the live heap of
// the last collection; when that heap has become garbage and nothing
// collects (an idle server), a heavy statement waiting for its grant asks
// for a collection and is admitted at once, instead of waiting out its
// queue time behind memory nobody holds (TestServeUploadStream's
// statement after a cancelled upload waited 30 s and failed).
func TestAdmissionRefreshesStaleHeap(t *testing.T) {
	b := newBudget(64<<20, 4<<20, 10*time.Second, 0) // heavy lane: 52MB
	garbage := make([]byte, 50<<20)
	for i := range garbage {
		garbage[i] = 1
	}
	runtime.GC() // the live heap now counts the 50MB
	w := b.watchHeap()
	defer w.close()
	require.Eventually(t, func() bool { return w.size() >= 45<<20 }, 5*time.Second, 5*time.Millisecond,
		"the watcher holds the live heap")
	runtime.KeepAlive(garbage)
	garbage = nil // garbage now; no collection is due for another 50MB of allocation

	start := time.Now()
	p, err := b.admit(context.Background(), true, 0)
	require.NoError(t, err)
	p.Close()
	require.Less(t, time.Since(start), 5*time.Second, "admitted only after %s", time.Since(start))
}
