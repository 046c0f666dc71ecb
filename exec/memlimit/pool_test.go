package memlimit

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
)

func TestReservationLimit(t *testing.T) {
	p := NewPool(100)
	a, b := p.NewReservation("a"), p.NewReservation("b")
	if err := a.TryGrow(60); err != nil {
		t.Fatal(err)
	}
	err := b.TryGrow(41)
	if !errors.Is(err, ErrResourceExhausted) || !errors.Is(err, errkind.OutOfRange) {
		t.Fatalf("TryGrow past the limit: %v", err)
	}
	if b.Size() != 0 || p.Reserved() != 60 || p.Refusals() != 1 {
		t.Fatalf("a refused TryGrow changed state: b=%d pool=%d refusals=%d", b.Size(), p.Reserved(), p.Refusals())
	}
	if err := b.TryGrow(40); err != nil {
		t.Fatal(err)
	}
	a.Shrink(1000) // at most Size
	if a.Size() != 0 || p.Reserved() != 40 {
		t.Fatalf("after Shrink: a=%d pool=%d", a.Size(), p.Reserved())
	}
	b.Grow(100) // forced
	if p.Reserved() != 140 || p.PeakReserved() != 140 {
		t.Fatalf("forced Grow: %d peak %d", p.Reserved(), p.PeakReserved())
	}
	if err := a.TryGrow(1); !errors.Is(err, ErrResourceExhausted) {
		t.Fatalf("over the limit after a forced Grow: %v", err)
	}
	b.Free()
	if p.Reserved() != 0 {
		t.Fatalf("after Free: %d", p.Reserved())
	}
}

func TestNilPoolUnlimited(t *testing.T) {
	var p *Pool
	r := p.NewReservation("x")
	if err := r.TryGrow(1 << 62); err != nil {
		t.Fatal(err)
	}
	r.Free()
	if p.Limit() != 0 || p.Reserved() != 0 {
		t.Fatal("nil pool reports a limit")
	}
	if mem := memory.NewGoAllocator(); p.Allocator(mem) != memory.Allocator(mem) {
		t.Fatal("nil pool wraps the allocator")
	}
}

func TestAllocatorCounts(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	p := NewPool(0)
	a := p.Allocator(mem)
	b := a.Allocate(1000)
	b = a.Reallocate(3000, b)
	c := a.Allocate(64)
	if p.Allocated() != int64(len(b)+len(c)) {
		t.Fatalf("allocated %d, want %d", p.Allocated(), len(b)+len(c))
	}
	a.Free(b)
	a.Free(c)
	if p.Allocated() != 0 || p.PeakAllocated() < 3064 {
		t.Fatalf("allocated %d peak %d", p.Allocated(), p.PeakAllocated())
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"256MB", 256 << 20}, {"1GB", 1 << 30}, {" 1 GB ", 1 << 30}, {"64kB", 64 << 10},
		{"2TB", 2 << 40}, {"100", 100}, {"100B", 100}, {"0", 0}, {"unlimited", 0}, {"", 0},
	} {
		got, err := ParseSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	// PostgreSQL's units are case-sensitive: 'mb' and 'KB' are refused.
	for _, bad := range []string{"mb", "256mb", "1KB", "-1MB", "1.5GB", "MB", "99999999999TB", "1 G B", "0x10"} {
		if _, err := ParseSize(bad); !errors.Is(err, ErrBadSize) || !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("ParseSize(%q): %v, want ErrBadSize", bad, err)
		}
	}
	for _, n := range []int64{0, 1, 1023, 1024, 256 << 20, 1536 << 10, 3 << 40} {
		if got, err := ParseSize(FormatSize(n)); err != nil || got != n {
			t.Errorf("ParseSize(FormatSize(%d)=%q) = %d, %v", n, FormatSize(n), got, err)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"256MB", "1 GB", "0", "unlimited", "1KB", "9223372036854775807B", "8589934592GB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			if !errors.Is(err, ErrBadSize) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d < 0", s, n)
		}
		if back, err := ParseSize(FormatSize(n)); err != nil || back != n {
			t.Fatalf("round trip of %d: %d, %v", n, back, err)
		}
	})
}
