package rowmap

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// BlockCache keeps translated blocks of named row maps across calls, up
// to a byte budget, least recently used out first.
//
// Why: a take through a deferred remap arrives as a stream of batches of
// a few thousand addresses each, scattered over the whole map (the index
// probe answers in key order, the rewrite reordered the rows). Each batch
// is too sparse to sweep (TranslateBatch's density rule), so
// TranslateMany translates every block it touches, and a 10M-row map's
// 153 blocks were translated again for every batch: 1M ids cost 18,666
// block translations, 13x the take after OptimizeIndex. A translated
// block is kept as 4 bytes and 1 bit a row (a label and the row's rank
// among its block's rows of that label, both below 2^16 because a block
// has at most 65,536 rows and a map at most 65,536 destinations, and a
// deletion bit), so the default budget
// holds a 16M-row map; the offset is counts.Base(b)[label] + rank, the
// same arithmetic as TranslateInBlock.
//
// Entries are keyed by the Reader (an id taken at Open), not by the
// file's name: nothing short of the blocks' bytes identifies a file's
// content (two row maps with the same name, destinations and counts but
// rows in another order have the same tail), and a reader checked the
// blocks it translated. Readers live as long as the resolver that holds
// them (access.Layer caches those), so their blocks are reused across
// queries; a dropped reader's blocks age out. Unnamed readers (Open, not
// OpenNamed: tools and tests) do not cache.
type BlockCache struct {
	mu     sync.Mutex
	budget int
	used   int
	lru    *list.List // of *cacheEntry, most recent in front
	byKey  map[blockKey]*list.Element
	hits   uint64
	misses uint64
}

// blockKey names one block of one Reader's file.
type blockKey struct {
	reader uint64 // Reader.id
	block  int
}

// readerIDs hands out Reader ids.
var readerIDs atomic.Uint64

type cacheEntry struct {
	key blockKey
	blk *translatedBlock
}

// translatedBlock is one block's translation: per row its label and its
// rank among the block's rows of that label, packed as label<<16 | rank
// so that a lookup touches one word (a take's rows are scattered: one
// cache miss a row, not three). A deleted row packs as ^0 and has its bit
// in del; a live row can pack as ^0 too (label 65,535, rank 65,535: the
// last row of a block whose rows all go to the 65,536th destination),
// which del tells apart, read only then.
type translatedBlock struct {
	packed []uint32
	del    []uint64
}

// deletedWord is the packed word of a deleted row (see translatedBlock).
const deletedWord = ^uint32(0)

func (t *translatedBlock) bytes() int { return 4*len(t.packed) + 8*len(t.del) + 64 }

// answer is row p's translation, base the block's counts.Base (nil for
// block 0).
func (t *translatedBlock) answer(p uint64, base []uint32) Translation {
	w := t.packed[p]
	if w == deletedWord && t.del[p/64]&(1<<(p%64)) != 0 {
		return Translation{Deleted: true}
	}
	l, off := w>>16, w&0xFFFF
	if base != nil {
		off += base[l]
	}
	return Translation{Dest: uint16(l), Offset: off}
}

// newTranslatedBlock packs a swept block (labels with NullLabel for
// deleted rows, offsets counted from base).
func newTranslatedBlock(labels, offsets, base []uint32) *translatedBlock {
	n := len(labels)
	t := &translatedBlock{packed: make([]uint32, n), del: make([]uint64, (n+63)/64)}
	for p, l := range labels {
		if l == NullLabel {
			t.packed[p] = deletedWord
			t.del[p/64] |= 1 << (p % 64)
			continue
		}
		off := offsets[p]
		if base != nil {
			off -= base[l]
		}
		t.packed[p] = l<<16 | off
	}
	return t
}

// DefaultBlockCacheBytes is the budget of the process's block cache
// (64 MiB: a 16M-row map's blocks).
const DefaultBlockCacheBytes = 64 << 20

// NewBlockCache returns a cache holding at most budget bytes of
// translated blocks (0 or less: it holds nothing).
func NewBlockCache(budget int) *BlockCache {
	return &BlockCache{budget: budget, lru: list.New(), byKey: map[blockKey]*list.Element{}}
}

// defaultBlockCache serves every named Reader unless SetBlockCache
// replaced it.
var defaultBlockCache = struct {
	sync.RWMutex
	c *BlockCache
}{c: NewBlockCache(DefaultBlockCacheBytes)}

// SetBlockCache makes c the cache of readers opened from now on (nil: no
// caching) and returns the one it replaces.
func SetBlockCache(c *BlockCache) *BlockCache {
	defaultBlockCache.Lock()
	defer defaultBlockCache.Unlock()
	old := defaultBlockCache.c
	defaultBlockCache.c = c
	return old
}

func currentBlockCache() *BlockCache {
	defaultBlockCache.RLock()
	defer defaultBlockCache.RUnlock()
	return defaultBlockCache.c
}

// get returns the cached block for k, if any.
func (c *BlockCache) get(k blockKey) *translatedBlock {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok {
		c.misses++
		return nil
	}
	c.hits++
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).blk
}

// put adds k's block, evicting the least recently used ones over the
// budget. A block larger than the whole budget is not kept.
func (c *BlockCache) put(k blockKey, t *translatedBlock) {
	sz := t.bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	if sz > c.budget {
		return
	}
	if e, ok := c.byKey[k]; ok { // another call translated it meanwhile
		c.lru.MoveToFront(e)
		return
	}
	for c.used+sz > c.budget {
		back := c.lru.Back()
		old := back.Value.(*cacheEntry)
		c.lru.Remove(back)
		delete(c.byKey, old.key)
		c.used -= old.blk.bytes()
	}
	c.byKey[k] = c.lru.PushFront(&cacheEntry{key: k, blk: t})
	c.used += sz
}

// CacheStats is a snapshot of a BlockCache's counters.
type CacheStats struct {
	Blocks, Bytes int
	Hits, Misses  uint64
}

// Stats returns the cache's counters.
func (c *BlockCache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Blocks: c.lru.Len(), Bytes: c.used, Hits: c.hits, Misses: c.misses}
}
