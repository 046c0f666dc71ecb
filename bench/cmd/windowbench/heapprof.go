package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// heapPeak samples the live heap (after each GC's mark) while the query
// runs and keeps a heap profile taken at its largest, for a developer
// asking what a run's peak RSS is made of (WINDOWBENCH_HEAPPROFILE=FILE;
// go tool pprof -sample_index=inuse_space FILE). The profile is the
// previous GC's view, so it is taken when the live heap grows by a tenth.
type heapPeak struct {
	stop chan struct{}
	done chan struct{}
	max  uint64
	prof bytes.Buffer
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{}), done: make(chan struct{})}
	go h.run()
	return h
}

func (h *heapPeak) run() {
	defer close(h.done)
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		metrics.Read(s)
		live := s[0].Value.Uint64()
		if live > h.max+h.max/10 {
			h.max = live
			h.prof.Reset()
			_ = pprof.Lookup("heap").WriteTo(&h.prof, 0)
		}
	}
}

// finish stops the sampling, writes the profile to path and the peak
// live heap, with the Go runtime's view of the process, to w.
func (h *heapPeak) finish(path string, w io.Writer) error {
	close(h.stop)
	<-h.done
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "heap: peak live %d MiB (sampled), heap sys %d MiB, total sys %d MiB, GCs %d\n",
		h.max>>20, ms.HeapSys>>20, ms.Sys>>20, ms.NumGC)
	return os.WriteFile(path, h.prof.Bytes(), 0o644)
}
