package btree

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/internal/radix"
)

// LookupResult answers an ordered probe: entry i is about input key i.
type LookupResult struct {
	// Addrs[i] is the address of key i's entry (its lowest address when it
	// has several); 0 when not found.
	Addrs []uint64
	// Found[i] reports whether key i is in the index (null keys never are).
	Found []bool
	// Multi lists, ascending, the input positions whose key has more than
	// one entry, so the caller can enforce uniqueness.
	Multi []int
	// PagesVisited is the number of distinct pages the probe needed;
	// PagesDecoded how many of them were read and decoded (cache misses).
	PagesVisited, PagesDecoded int
}

// keyOps gives the generic search code access to one key domain: ordered
// uint64s (integer and float keys) or strings.
type keyOps[K cmp.Ordered] struct {
	mins, maxs []K
	key        func(*page, int) K
	lower      func(*page, K) int
}

func (ix *Index) uops() keyOps[uint64] {
	return keyOps[uint64]{ix.lk.umin, ix.lk.umax, pageKeyU, pageLowerU}
}

func (ix *Index) sops() keyOps[string] {
	return keyOps[string]{ix.lk.smin, ix.lk.smax, pageKeyS, pageLowerS}
}

// firstPage returns the first non-null page at or after from whose max is
// >= k (or > k when strict), or len(pages).
func firstPage[K cmp.Ordered](o keyOps[K], from int, k K, strict bool) int {
	lo, hi := from, len(o.maxs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if o.maxs[m] < k || strict && o.maxs[m] == k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Lookup probes the index for every key of keys (an array of the index's
// key type): the address per input position, in input order, duplicates
// kept. Keys are sorted internally so that each page is read once.
func (ix *Index) Lookup(ctx context.Context, keys arrow.Array) (*LookupResult, error) {
	if keys == nil {
		return nil, fmt.Errorf("%w: nil keys", ErrInvalidArgument)
	}
	n := keys.Len()
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d keys in one probe", ErrInvalidArgument, n)
	}
	res := &LookupResult{Addrs: make([]uint64, n), Found: make([]bool, n)}
	if ix.lk.kind.stringy() {
		ks, valid, err := stringKeys(ix.lk.kind, ix.lk.parts, keys)
		if err != nil {
			return nil, err
		}
		pos := make([]int32, 0, n)
		for i := range ks {
			if valid == nil || valid[i] {
				pos = append(pos, int32(i))
			}
		}
		slices.SortStableFunc(pos, func(a, b int32) int { return cmp.Compare(ks[a], ks[b]) })
		sorted := make([]string, len(pos))
		for j, p := range pos {
			sorted[j] = ks[p]
		}
		return res, probe(ctx, ix, ix.sops(), sorted, pos, res, nil)
	}
	ks, valid, err := numericKeys(ix.lk.kind, keys)
	if err != nil {
		return nil, err
	}
	if valid != nil {
		m := 0
		pos := make([]int32, 0, n)
		for i, ok := range valid {
			if ok {
				ks[m] = ks[i]
				pos = append(pos, int32(i))
				m++
			}
		}
		return res, ix.probeU(ctx, ks[:m], pos, res, nil)
	}
	return res, ix.probeU(ctx, ks, nil, res, nil)
}

// LookupUint64 is Lookup for a uint64-keyed index (such as one on _rowid)
// without building an Arrow array.
func (ix *Index) LookupUint64(ctx context.Context, keys []uint64) (*LookupResult, error) {
	if ix.lk.kind != kindUint64 {
		return nil, fmt.Errorf("%w: LookupUint64 on a %s index", ErrKeyType, ix.KeyType())
	}
	if len(keys) > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d keys in one probe", ErrInvalidArgument, len(keys))
	}
	res := &LookupResult{Addrs: make([]uint64, len(keys)), Found: make([]bool, len(keys))}
	sc := getScratch(len(keys))
	defer scratchPool.Put(sc)
	ks := sc.keys[:len(keys)]
	copy(ks, keys)
	return res, ix.probeU(ctx, ks, nil, res, sc)
}

// scratch holds a probe's temporary buffers, pooled: a 1M-key probe would
// otherwise allocate some 30 MB per call.
type scratch struct {
	keys, tk      []uint64
	pos, tp, page []int32
}

var scratchPool sync.Pool

func getScratch(n int) *scratch {
	sc, _ := scratchPool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	if cap(sc.keys) < n {
		sc.keys, sc.tk = make([]uint64, n), make([]uint64, n)
		sc.pos, sc.tp, sc.page = make([]int32, n), make([]int32, n), make([]int32, n)
	}
	return sc
}

// probeU radix-sorts ks (owned; pos are their input positions, nil meaning
// 0..n-1) and probes. sc, if not nil, provides the scratch buffers.
func (ix *Index) probeU(ctx context.Context, ks []uint64, pos []int32, res *LookupResult, sc *scratch) error {
	if sc == nil {
		sc = getScratch(len(ks))
		defer scratchPool.Put(sc)
	}
	if pos == nil {
		pos = sc.pos[:len(ks)]
		for i := range pos {
			pos[i] = int32(i)
		}
	}
	radix.SortKeyedBuf(ks, pos, sc.tk, sc.tp)
	return probe(ctx, ix, ix.uops(), ks, pos, res, sc.page)
}

// probe resolves sorted keys (pos[j] is the input position of keys[j]) in
// two passes: find each key's page, read every needed page (coalesced),
// then search each page once per distinct key, scattering into res.
func probe[K cmp.Ordered](ctx context.Context, ix *Index, o keyOps[K], keys []K, pos []int32, res *LookupResult, pageOf []int32) error {
	np := len(o.maxs)
	if len(pageOf) < len(keys) {
		pageOf = make([]int32, len(keys))
	}
	pageOf = pageOf[:len(keys)]
	var need []int
	p := ix.lk.nullPages
	for j, k := range keys {
		if p < np && o.maxs[p] < k {
			p = firstPage(o, p+1, k, false)
		}
		if p == np {
			for ; j < len(keys); j++ {
				pageOf[j] = -1
			}
			break
		}
		if o.mins[p] > k {
			pageOf[j] = -1
			continue
		}
		pageOf[j] = int32(p)
		if len(need) == 0 || need[len(need)-1] != p {
			need = append(need, p)
		}
	}
	pages, decoded, err := ix.loadPages(ctx, need)
	if err != nil {
		return err
	}
	res.PagesVisited, res.PagesDecoded = len(need), decoded
	ni := -1
	cur := int32(-1)
	lastFound, lastMulti := false, false
	var lastAddr uint64
	for j, k := range keys {
		p := pageOf[j]
		if p < 0 {
			continue
		}
		at := pos[j]
		if j > 0 && pageOf[j-1] == p && keys[j-1] == k {
			// A repeated key: same answer as its predecessor.
			res.Found[at], res.Addrs[at] = lastFound, lastAddr
			if lastMulti {
				res.Multi = append(res.Multi, int(at))
			}
			continue
		}
		if p != cur {
			ni++
			cur = p
		}
		pg := pages[ni]
		i := o.lower(pg, k)
		lastFound, lastMulti = false, false
		if i < pg.n && o.key(pg, i) == k {
			lastFound, lastAddr = true, pg.addr(i)
			res.Found[at], res.Addrs[at] = true, lastAddr
			if i+1 < pg.n {
				lastMulti = o.key(pg, i+1) == k
			} else {
				lastMulti = int(p)+1 < np && o.mins[p+1] == k
			}
			if lastMulti {
				res.Multi = append(res.Multi, int(at))
			}
		}
	}
	slices.Sort(res.Multi)
	return ctx.Err()
}
