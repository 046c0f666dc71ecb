package btree

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/table/store"
)

func TestPageCacheBoundAndLRU(t *testing.T) {
	c := NewPageCache(1000)
	pg := func(n int64) *page { return &page{bytes: n} }
	c.put(cacheKey{1, 0}, pg(400))
	c.put(cacheKey{1, 1}, pg(400))
	if c.get(cacheKey{1, 0}) == nil { // 0 becomes most recent
		t.Fatal("page 0 missing")
	}
	c.put(cacheKey{1, 2}, pg(400)) // evicts 1, the least recently used
	if c.get(cacheKey{1, 1}) != nil || c.get(cacheKey{1, 0}) == nil || c.get(cacheKey{1, 2}) == nil {
		t.Fatal("LRU order not respected")
	}
	c.put(cacheKey{2, 0}, pg(5000)) // larger than the cache: not cached
	if s := c.Stats(); s.UsedBytes != 800 || s.Pages != 2 || s.UsedBytes > s.MaxBytes {
		t.Fatalf("stats %+v", s)
	}
	c.Clear()
	if s := c.Stats(); s.UsedBytes != 0 || s.Pages != 0 {
		t.Fatalf("after Clear: %+v", s)
	}
}

func TestLookupPageCounts(t *testing.T) {
	mem := newMem(t)
	kc := keyCases[1]
	r := rand.New(rand.NewPCG(9, 9))
	es := genEntries(r, kc, 700, 0)
	st := store.NewMemory()
	train(t, mem, st, "p/", kc, es, Options{PageRows: 10})
	cache := NewPageCache(1 << 20)
	ix, err := Open(context.Background(), st, "p/", Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]uint64, 0, 200)
	for _, e := range es[:200] {
		keys = append(keys, e.key.(uint64))
	}
	res, err := ix.LookupUint64(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	if res.PagesVisited == 0 || res.PagesDecoded != res.PagesVisited || res.PagesVisited > ix.Stats().Pages {
		t.Fatalf("cold probe: visited %d decoded %d of %d pages", res.PagesVisited, res.PagesDecoded, ix.Stats().Pages)
	}
	res2, err := ix.LookupUint64(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	if res2.PagesDecoded != 0 || res2.PagesVisited != res.PagesVisited {
		t.Fatalf("warm probe: visited %d decoded %d", res2.PagesVisited, res2.PagesDecoded)
	}
	if s := cache.Stats(); s.Pages != res.PagesVisited {
		t.Fatalf("cache holds %d pages, want %d", s.Pages, res.PagesVisited)
	}
}
