package s3store

import (
	"container/list"
	"sync"
)

// CacheKey names a cached byte range by the immutable identity of its
// object: the path with its ETag and size. A replaced object gets a new
// ETag, so a cached range can never be served for the wrong bytes.
type CacheKey struct {
	Path, ETag string
	Size       int64
	Off, Len   int64
}

// Cache is a bounded LRU of byte ranges, evicting by bytes. It is safe for
// concurrent use and may be shared by several stores. Values are shared:
// callers must not modify a slice they Put or Get.
type Cache struct {
	mu       sync.Mutex
	capacity int64
	used     int64
	ll       *list.List // front = most recently used; values are *entry
	items    map[CacheKey]*list.Element
	stats    CacheStats
}

type entry struct {
	key CacheKey
	val []byte
}

// CacheStats counts a cache's traffic.
type CacheStats struct {
	Hits, Misses, Evictions int64
	// Bytes is the size of the cached values now.
	Bytes int64
	// Entries is the number of cached values now.
	Entries int
}

// NewCache returns a cache holding at most capacity bytes of values.
func NewCache(capacity int64) *Cache {
	return &Cache{capacity: capacity, ll: list.New(), items: map[CacheKey]*list.Element{}}
}

// Get returns the cached value for k and marks it recently used.
func (c *Cache) Get(k CacheKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		c.stats.Misses++
		return nil, false
	}
	c.stats.Hits++
	c.ll.MoveToFront(e)
	return e.Value.(*entry).val, true
}

// Put caches v under k, evicting the least recently used values until it
// fits. A value larger than the whole capacity is not cached.
func (c *Cache) Put(k CacheKey, v []byte) {
	n := int64(len(v))
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.capacity {
		return
	}
	if e, ok := c.items[k]; ok {
		c.used += n - int64(len(e.Value.(*entry).val))
		e.Value.(*entry).val = v
		c.ll.MoveToFront(e)
	} else {
		c.items[k] = c.ll.PushFront(&entry{key: k, val: v})
		c.used += n
	}
	for c.used > c.capacity {
		last := c.ll.Back()
		ent := last.Value.(*entry)
		c.ll.Remove(last)
		delete(c.items, ent.key)
		c.used -= int64(len(ent.val))
		c.stats.Evictions++
	}
}

// Stats returns the cache's counters.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Bytes, s.Entries = c.used, len(c.items)
	return s
}
