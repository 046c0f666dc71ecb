package main

import (
	"testing"
	"time"
)

// TestSmoke: a small run checks the in-process and Flight SQL answers
// agree, one endpoint and partitioned (run fails otherwise), and the
// concurrency loop works.
func TestSmoke(t *testing.T) {
	if err := run(config{sizes: []int{50000}, idCounts: []int{10, 3000}, clientCounts: []int{2}, runs: 1, dur: 200 * time.Millisecond,
		partIDs: []int{20000}, readers: []int{1, 3}, partitions: 4, fragments: 8}); err != nil {
		t.Fatal(err)
	}
}
