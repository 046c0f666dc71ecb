package arrowtest

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// PeakAllocator tracks the largest number of bytes outstanding at once, for
// the tests and benchmarks that bound an operator's or an expression's
// memory (a take window, a broadcast literal).
type PeakAllocator struct {
	memory.Allocator
	cur, peak atomic.Int64
}

// Peak is the most bytes outstanding at once so far.
func (p *PeakAllocator) Peak() int64 { return p.peak.Load() }

func (p *PeakAllocator) add(n int) {
	c := p.cur.Add(int64(n))
	for {
		pk := p.peak.Load()
		if c <= pk || p.peak.CompareAndSwap(pk, c) {
			return
		}
	}
}

// Allocate counts n bytes in.
func (p *PeakAllocator) Allocate(n int) []byte { p.add(n); return p.Allocator.Allocate(n) }

// Reallocate counts the change of size.
func (p *PeakAllocator) Reallocate(n int, b []byte) []byte {
	p.add(n - len(b))
	return p.Allocator.Reallocate(n, b)
}

// Free counts b's bytes out.
func (p *PeakAllocator) Free(b []byte) { p.add(-len(b)); p.Allocator.Free(b) }
