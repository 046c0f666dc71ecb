package btree

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// PageCache is a byte-bounded LRU of decoded pages, shared by every index
// of a process (DefaultCache) or of a caller's choosing. It is safe for
// concurrent use. A page costs roughly its encoded size, since decoded pages
// keep integer keys and addresses in their packed form.
type PageCache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	lru   list.List // front = most recently used; values are *cacheEntry
	items map[cacheKey]*list.Element

	hits, misses atomic.Int64
}

type cacheKey struct {
	index uint64 // Index.id: unique per opened index
	page  int
}

type cacheEntry struct {
	key cacheKey
	p   *page
}

// DefaultCache is the cache indexes use when Options.Cache is nil.
var DefaultCache = NewPageCache(256 << 20)

// NewPageCache returns a cache holding at most maxBytes of pages
// (maxBytes <= 0: caches nothing).
func NewPageCache(maxBytes int64) *PageCache {
	return &PageCache{max: maxBytes, items: make(map[cacheKey]*list.Element)}
}

// CacheStats is a snapshot of a cache's counters.
type CacheStats struct {
	UsedBytes, MaxBytes int64
	Pages               int
	Hits, Misses        int64
}

// Stats returns the cache's current counters.
func (c *PageCache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{UsedBytes: c.used, MaxBytes: c.max, Pages: len(c.items), Hits: c.hits.Load(), Misses: c.misses.Load()}
}

// Clear drops every page.
func (c *PageCache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	clear(c.items)
	c.used = 0
}

func (c *PageCache) get(k cacheKey) *page {
	c.mu.Lock()
	e, ok := c.items[k]
	if ok {
		c.lru.MoveToFront(e)
	}
	c.mu.Unlock()
	if !ok {
		c.misses.Add(1)
		return nil
	}
	c.hits.Add(1)
	return e.Value.(*cacheEntry).p
}

func (c *PageCache) put(k cacheKey, p *page) {
	if p.bytes > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[k]; ok {
		return // a concurrent reader loaded it first
	}
	c.items[k] = c.lru.PushFront(&cacheEntry{key: k, p: p})
	c.used += p.bytes
	for c.used > c.max {
		e := c.lru.Back()
		ce := e.Value.(*cacheEntry)
		c.lru.Remove(e)
		delete(c.items, ce.key)
		c.used -= ce.p.bytes
	}
}
