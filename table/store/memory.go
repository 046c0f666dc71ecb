package store

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Memory is an in-memory Store for tests. It is safe for concurrent use.
// Objects are copied on the way in and out, so callers may reuse buffers.
// Each stored object is a Mapping (what Map hands out); a Put makes a new
// one, so state memoized on the old bytes never describes the new.
type Memory struct {
	mu      sync.RWMutex
	objects map[string]*Mapping
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{objects: map[string]*Mapping{}} }

func (m *Memory) lookup(p string) (*Mapping, string, error) {
	c, err := cleanPath(p)
	if err != nil {
		return nil, "", err
	}
	m.mu.RLock()
	b, ok := m.objects[c]
	m.mu.RUnlock()
	if !ok {
		return nil, c, fmt.Errorf("%w: %q", ErrNotFound, p)
	}
	return b, c, nil
}

// Get implements Store.
func (m *Memory) Get(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o, _, err := m.lookup(p)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(o.Data), nil
}

// GetRange implements Store.
func (m *Memory) GetRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o, _, err := m.lookup(p)
	if err != nil {
		return nil, err
	}
	b := o.Data
	if err := checkRange(p, int64(len(b)), off, n); err != nil {
		return nil, err
	}
	return bytes.Clone(b[off : off+n]), nil
}

// Size implements Store.
func (m *Memory) Size(ctx context.Context, p string) (int64, error) {
	o, _, err := m.lookup(p)
	if err != nil {
		return 0, err
	}
	return int64(len(o.Data)), nil
}

// Put implements Store.
func (m *Memory) Put(ctx context.Context, p string, data []byte) error {
	c, err := cleanPath(p)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	m.objects[c] = &Mapping{Data: bytes.Clone(data)}
	m.mu.Unlock()
	return nil
}

// PutIfAbsent implements Store.
func (m *Memory) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	c, err := cleanPath(p)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[c]; ok {
		return fmt.Errorf("%w: %q", ErrExists, p)
	}
	m.objects[c] = &Mapping{Data: bytes.Clone(data)}
	return nil
}

// List implements Store.
func (m *Memory) List(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	var out []string
	for k := range m.objects {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	m.mu.RUnlock()
	slices.Sort(out)
	return out, nil
}

// Delete implements Store.
func (m *Memory) Delete(ctx context.Context, p string) error {
	c, err := cleanPath(p)
	if err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.objects, c)
	m.mu.Unlock()
	return nil
}

// Open implements Store. The reader sees the object as it was when opened.
func (m *Memory) Open(ctx context.Context, p string) (Reader, error) {
	o, _, err := m.lookup(p)
	if err != nil {
		return nil, err
	}
	return &memReader{r: bytes.NewReader(o.Data), size: int64(len(o.Data))}, nil
}

type memReader struct {
	r    *bytes.Reader
	size int64
}

func (r *memReader) ReadAt(p []byte, off int64) (int, error) { return r.r.ReadAt(p, off) }
func (r *memReader) Size() int64                             { return r.size }
func (r *memReader) Close() error                            { return nil }
