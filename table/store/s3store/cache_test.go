package s3store

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func ck(path string, off int64) CacheKey {
	return CacheKey{Path: path, ETag: `"e"`, Size: 1000, Off: off, Len: 10}
}

func TestCacheLRUByBytes(t *testing.T) {
	c := NewCache(30)
	c.Put(ck("a", 0), make([]byte, 10))
	c.Put(ck("a", 10), make([]byte, 10))
	c.Put(ck("a", 20), make([]byte, 10))
	_, ok := c.Get(ck("a", 0)) // a/0 is now the most recent
	require.True(t, ok)
	c.Put(ck("b", 0), make([]byte, 15)) // needs 15: evicts a/10 and a/20, the two oldest
	_, ok = c.Get(ck("a", 10))
	require.False(t, ok)
	_, ok = c.Get(ck("a", 20))
	require.False(t, ok)
	_, ok = c.Get(ck("a", 0))
	require.True(t, ok)
	s := c.Stats()
	require.EqualValues(t, 25, s.Bytes)
	require.Equal(t, 2, s.Entries)
	require.EqualValues(t, 2, s.Evictions)

	c.Put(ck("huge", 0), make([]byte, 31)) // larger than the cache: not cached, evicts nothing
	_, ok = c.Get(ck("huge", 0))
	require.False(t, ok)
	require.EqualValues(t, 25, c.Stats().Bytes)

	c.Put(ck("b", 0), make([]byte, 5)) // replacing a value re-accounts its bytes
	require.EqualValues(t, 15, c.Stats().Bytes)
}

// TestCacheIdentity: a replaced object has a new ETag, so its ranges are
// new keys and the old bytes are never served for it.
func TestCacheIdentity(t *testing.T) {
	c := NewCache(100)
	k := ck("a", 0)
	c.Put(k, []byte("old"))
	k2 := k
	k2.ETag = `"f"`
	_, ok := c.Get(k2)
	require.False(t, ok)
	k3 := k
	k3.Size = 999
	_, ok = c.Get(k3)
	require.False(t, ok)
}

// TestCacheConcurrent hammers one cache from many goroutines (run with
// -race) and checks the byte bound and the accounting against a recount.
func TestCacheConcurrent(t *testing.T) {
	c := NewCache(1 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 2000 {
				k := ck(fmt.Sprint(rng.IntN(4)), int64(rng.IntN(64)))
				if v, ok := c.Get(k); ok {
					require.Len(t, v, int(k.Off%50)+1, "value belongs to its key")
				} else {
					c.Put(k, make([]byte, k.Off%50+1))
				}
				require.LessOrEqual(t, c.Stats().Bytes, int64(1<<10))
			}
		}()
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	var sum int64
	for e := c.ll.Front(); e != nil; e = e.Next() {
		sum += int64(len(e.Value.(*entry).val))
	}
	require.Equal(t, sum, c.used)
	require.Equal(t, c.ll.Len(), len(c.items))
}
