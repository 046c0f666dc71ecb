package memlimit

import "github.com/apache/arrow-go/v18/arrow/memory"

// Allocator returns inner wrapped so that its bytes are counted in the
// pool (Allocated, PeakAllocated). It never refuses: see the package doc.
// A nil pool returns inner itself.
func (p *Pool) Allocator(inner memory.Allocator) memory.Allocator {
	if p == nil {
		return inner
	}
	if inner == nil {
		inner = memory.DefaultAllocator
	}
	return &countingAllocator{inner: inner, pool: p}
}

type countingAllocator struct {
	inner memory.Allocator
	pool  *Pool
}

func (a *countingAllocator) Allocate(size int) []byte {
	b := a.inner.Allocate(size)
	a.pool.counted(int64(len(b)))
	return b
}

func (a *countingAllocator) Reallocate(size int, b []byte) []byte {
	old := len(b)
	nb := a.inner.Reallocate(size, b)
	a.pool.counted(int64(len(nb) - old))
	return nb
}

func (a *countingAllocator) Free(b []byte) {
	a.pool.counted(-int64(len(b)))
	a.inner.Free(b)
}

// counted adds n allocated bytes to p and to its parents: a server's
// budget sees the bytes of every statement.
func (p *Pool) counted(n int64) {
	for ; p != nil; p = p.parent {
		raise(&p.peakAlloc, p.allocated.Add(n))
	}
}
