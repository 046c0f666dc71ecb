package main

import (
	"strings"
	"testing"
)

// TestAppendMeter: the demo's meter draws its count in place, redraws at
// most every 100 ms, and erases its line at the end; a nil meter (off a
// terminal) draws nothing.
func TestAppendMeter(t *testing.T) {
	var none *appendMeter
	none.add(5)
	none.finish()

	var w strings.Builder
	m := &appendMeter{w: &w, total: 100}
	m.add(10)
	m.add(10) // within 100 ms of the first draw: counted, not drawn
	if got, want := w.String(), "\rappend 10/100 rows"; got != want {
		t.Fatalf("after two adds drew %q, want %q", got, want)
	}
	if m.done != 20 {
		t.Fatalf("counted %d rows, want 20", m.done)
	}
	m.finish()
	if got, want := w.String(), "\rappend 10/100 rows\r\033[K"; got != want {
		t.Fatalf("finish drew %q, want %q", got, want)
	}
}
