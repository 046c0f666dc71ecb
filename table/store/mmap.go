package store

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Mapper is implemented by stores that can expose an object as read-only
// memory. The bytes stay valid for the life of the process: objects are
// immutable, and on POSIX systems a mapping outlives the unlink of its
// file, so zero-copy Arrow buffers built on them can never dangle.
type Mapper interface {
	Map(ctx context.Context, path string) (*Mapping, error)
}

// Mapping is an object's bytes as read-only memory, one value shared by
// every caller that maps the object while its bytes stay the same: for
// Local the life of the process (a file is mapped once), for Memory until
// the next Put or Delete of the path.
//
// Memo keeps what callers derive from exactly these bytes (the table
// package keeps which parts of a data file it has checksummed), so such
// state lives as long as the bytes it describes and no longer: new bytes
// come with a new Mapping and an empty memo.
type Mapping struct {
	Data   []byte
	memo   sync.Map
	mapped bool // Data is a file mapping (Local), not heap memory (Memory)
}

// Drop tells the kernel that the pages of Data wholly inside [lo, hi) are
// not needed for now (the last, partial page of Data counts as whole when
// hi is len(Data)), so they stop counting in the process's resident set
// until touched again. It is a hint, never a change of bytes: Data is a
// read-only shared mapping of an immutable file, so a page dropped with
// MADV_DONTNEED is read back from the page cache (or the file) on its next
// access, exactly as when the kernel reclaims it under memory pressure.
// Zero-copy Arrow buffers over the range therefore stay valid, and
// verification marks kept in the memo stay as true as they were. Without
// it, every page a scan has touched stays resident for the life of the
// mapping (the process), and the resident set of a full scan grows with
// the table. On heap-backed mappings (Memory) it does nothing.
func (m *Mapping) Drop(lo, hi int) {
	if !m.mapped {
		return
	}
	ps := os.Getpagesize()
	lo = (max(lo, 0) + ps - 1) &^ (ps - 1)
	if hi >= len(m.Data) {
		hi = len(m.Data)
	} else {
		hi &^= ps - 1
	}
	if lo >= hi {
		return
	}
	// The only errors are a range outside the mapping or an unsupported
	// advice; either way the pages simply stay resident.
	_ = unix.Madvise(m.Data[lo:hi], unix.MADV_DONTNEED)
}

// Memo returns the value kept under key, first storing mk's when there is
// none (mk may run more than once under a race; one value wins).
func (m *Mapping) Memo(key any, mk func() any) any {
	if v, ok := m.memo.Load(key); ok {
		return v
	}
	v, _ := m.memo.LoadOrStore(key, mk())
	return v
}

// mappings caches one mapping per file for the process: mapping is done
// once, and since buffers handed out reference the memory we never unmap.
// What bounds the resident set is Drop: readers drop the pages they have
// moved past.
var mappings sync.Map // full path -> *Mapping

// Map implements Mapper with mmap(2).
func (l *Local) Map(ctx context.Context, p string) (*Mapping, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	full, err := l.full(p)
	if err != nil {
		return nil, err
	}
	if m, ok := mappings.Load(full); ok {
		return m.(*Mapping), nil
	}
	f, err := os.Open(full)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, p)
		}
		return nil, fmt.Errorf("store: open %s: %w", p, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("store: stat %s: %w", p, err)
	}
	if st.Size() == 0 {
		return &Mapping{Data: []byte{}}, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("store: mmap %s: %w", p, err)
	}
	m, loaded := mappings.LoadOrStore(full, &Mapping{Data: b, mapped: true})
	if loaded {
		_ = syscall.Munmap(b)
	}
	return m.(*Mapping), nil
}

// Map on the memory store returns the stored object without a copy: Put
// replaces an object (bytes and Mapping), it never writes into one, so the
// bytes a caller holds stay as they were. Callers must not modify them.
func (m *Memory) Map(ctx context.Context, p string) (*Mapping, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o, _, err := m.lookup(p)
	return o, err
}
