package memlimit

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestChildDrawsFromBudget: a statement's pool reserves past its grant in
// the shared budget, is refused when the budget is spent even under its
// own limit, gives its growth back as it shrinks and everything at Close.
func TestChildDrawsFromBudget(t *testing.T) {
	b := NewBudget(100)
	if err := b.TryReserve("admit", 10); err != nil {
		t.Fatal(err)
	}
	c := b.Child(80, 10)
	r := c.NewReservation("SortExec")
	if err := r.TryGrow(10); err != nil || b.Reserved() != 10 {
		t.Fatalf("within the grant: %v, budget %d", err, b.Reserved())
	}
	if err := r.TryGrow(50); err != nil || b.Reserved() != 60 {
		t.Fatalf("past the grant: %v, budget %d", err, b.Reserved())
	}
	other := b.NewReservation("other")
	if err := other.TryGrow(35); err != nil {
		t.Fatal(err)
	}
	// The child is at 60 of its 80, but the budget has 5 left.
	err := r.TryGrow(10)
	if !errors.Is(err, ErrResourceExhausted) || !strings.Contains(err.Error(), "server memory budget") {
		t.Fatalf("TryGrow past the budget: %v", err)
	}
	if c.Reserved() != 60 || b.Reserved() != 95 || c.Refusals() != 1 {
		t.Fatalf("refused TryGrow changed state: child %d budget %d refusals %d", c.Reserved(), b.Reserved(), c.Refusals())
	}
	other.Free()
	if err := r.TryGrow(30); !errors.Is(err, ErrResourceExhausted) || b.Reserved() != 60 {
		t.Fatalf("past the child's own limit: %v, budget %d", err, b.Reserved())
	}
	r.Shrink(55) // back inside the grant
	if c.Reserved() != 5 || b.Reserved() != 10 {
		t.Fatalf("after Shrink: child %d budget %d", c.Reserved(), b.Reserved())
	}
	r.Grow(40) // forced
	if b.Reserved() != 45 {
		t.Fatalf("forced Grow: budget %d", b.Reserved())
	}
	c.Close()
	c.Close()
	if b.Reserved() != 0 {
		t.Fatalf("after Close: budget %d", b.Reserved())
	}
	r.Free() // after Close: the budget is not given the bytes twice
	if b.Reserved() != 0 || c.Reserved() != 0 {
		t.Fatalf("Free after Close: budget %d child %d", b.Reserved(), c.Reserved())
	}
}

// TestChildAllocatorCountsInBudget: bytes allocated through a statement's
// allocator are counted in the budget too.
func TestChildAllocatorCountsInBudget(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := NewBudget(0)
	c := b.Child(0, 0)
	a := c.Allocator(mem)
	buf := a.Allocate(4096)
	if b.Allocated() != int64(len(buf)) || c.Allocated() != int64(len(buf)) {
		t.Fatalf("budget %d child %d, want %d", b.Allocated(), c.Allocated(), len(buf))
	}
	a.Free(buf)
	if b.Allocated() != 0 || b.PeakAllocated() < 4096 {
		t.Fatalf("after Free: %d peak %d", b.Allocated(), b.PeakAllocated())
	}
}
