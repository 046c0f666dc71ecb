package store

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// Mapper is implemented by stores that can expose an object as read-only
// memory. The bytes stay valid for the life of the process: objects are
// immutable, and on POSIX systems a mapping outlives the unlink of its
// file, so zero-copy Arrow buffers built on them can never dangle.
type Mapper interface {
	Map(ctx context.Context, path string) ([]byte, error)
}

// mappings caches one mapping per file for the process: mapping is done
// once, and since buffers handed out reference the memory we never unmap.
var mappings sync.Map // full path -> []byte

// Map implements Mapper with mmap(2).
func (l *Local) Map(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	full, err := l.full(p)
	if err != nil {
		return nil, err
	}
	if b, ok := mappings.Load(full); ok {
		return b.([]byte), nil
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
		return []byte{}, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("store: mmap %s: %w", p, err)
	}
	if prev, loaded := mappings.LoadOrStore(full, b); loaded {
		_ = syscall.Munmap(b)
		return prev.([]byte), nil
	}
	return b, nil
}

// Map on the memory store returns the stored bytes without a copy: Put
// replaces an object's slice, it never writes into one, so the bytes a
// caller holds stay as they were. Callers must not modify them.
func (m *Memory) Map(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, _, err := m.lookup(p)
	return b, err
}
