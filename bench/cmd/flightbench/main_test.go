package main

import (
	"testing"
	"time"
)

// TestSmoke: a small run checks the in-process and Flight SQL answers
// agree (run fails otherwise) and the concurrency loop works.
func TestSmoke(t *testing.T) {
	if err := run([]int{5000}, []int{10, 3000}, []int{2}, 1, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
}
