package btree

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
)

// bound is one end of a range in a key domain; nil means unbounded.
type bound[K cmp.Ordered] struct {
	v    K
	incl bool
}

// SearchEqual returns the addresses of the entries whose key equals v.
func (ix *Index) SearchEqual(ctx context.Context, v any) (*roaring64.Bitmap, error) {
	if v == nil {
		return nil, fmt.Errorf("%w: SearchEqual(nil); use SearchIsNull", ErrInvalidArgument)
	}
	return ix.SearchRange(ctx, v, v, true, true)
}

// SearchRange returns the addresses of the entries whose key lies between
// lo and hi; a nil bound is unbounded on that side. Null keys never match.
func (ix *Index) SearchRange(ctx context.Context, lo, hi any, loIncl, hiIncl bool) (*roaring64.Bitmap, error) {
	out := roaring64.New()
	if ix.lk.kind.stringy() {
		l, h, err := stringBounds(ix.lk.kind, lo, hi, loIncl, hiIncl)
		if err != nil {
			return nil, err
		}
		return out, scanRange(ctx, ix, ix.sops(), l, h, out)
	}
	l, h, err := uintBounds(ix.lk.kind, lo, hi, loIncl, hiIncl)
	if err != nil {
		return nil, err
	}
	return out, scanRange(ctx, ix, ix.uops(), l, h, out)
}

func uintBounds(kind keyKind, lo, hi any, loIncl, hiIncl bool) (l, h *bound[uint64], err error) {
	if lo != nil {
		k, _, err := scalarKey(kind, lo)
		if err != nil {
			return nil, nil, err
		}
		l = &bound[uint64]{k, loIncl}
	}
	if hi != nil {
		k, _, err := scalarKey(kind, hi)
		if err != nil {
			return nil, nil, err
		}
		h = &bound[uint64]{k, hiIncl}
	}
	return l, h, nil
}

func stringBounds(kind keyKind, lo, hi any, loIncl, hiIncl bool) (l, h *bound[string], err error) {
	if lo != nil {
		_, k, err := scalarKey(kind, lo)
		if err != nil {
			return nil, nil, err
		}
		l = &bound[string]{k, loIncl}
	}
	if hi != nil {
		_, k, err := scalarKey(kind, hi)
		if err != nil {
			return nil, nil, err
		}
		h = &bound[string]{k, hiIncl}
	}
	return l, h, nil
}

// above reports whether k lies beyond the upper bound (never, when unbounded).
func (b *bound[K]) above(k K) bool { return b != nil && (k > b.v || !b.incl && k == b.v) }

// scanRange adds every address whose key is within [lo, hi] to out.
func scanRange[K cmp.Ordered](ctx context.Context, ix *Index, o keyOps[K], lo, hi *bound[K], out *roaring64.Bitmap) error {
	if lo != nil && hi != nil && (lo.v > hi.v || lo.v == hi.v && !(lo.incl && hi.incl)) {
		return nil
	}
	np := len(o.maxs)
	first := ix.lk.nullPages
	if lo != nil {
		first = firstPage(o, first, lo.v, !lo.incl)
	}
	last := first
	for last < np && !hi.above(o.mins[last]) {
		last++
	}
	need := make([]int, 0, last-first)
	for p := first; p < last; p++ {
		need = append(need, p)
	}
	pages, _, err := ix.loadPages(ctx, need)
	if err != nil {
		return err
	}
	var buf []uint64
	for _, pg := range pages {
		i := 0
		if lo != nil {
			i = o.lower(pg, lo.v)
			for !lo.incl && i < pg.n && o.key(pg, i) == lo.v {
				i++
			}
		}
		for ; i < pg.n && !hi.above(o.key(pg, i)); i++ {
			buf = append(buf, pg.addr(i))
		}
		if len(buf) >= 1<<16 {
			out.AddMany(buf)
			buf = buf[:0]
		}
	}
	out.AddMany(buf)
	return ctx.Err()
}

// SearchIn returns the addresses of the entries whose key is one of vals
// (an array of the index's key type). Null values match nothing.
func (ix *Index) SearchIn(ctx context.Context, vals arrow.Array) (*roaring64.Bitmap, error) {
	if vals == nil {
		return nil, fmt.Errorf("%w: nil values", ErrInvalidArgument)
	}
	out := roaring64.New()
	if ix.lk.kind.stringy() {
		ks, valid, err := stringKeys(ix.lk.kind, ix.lk.parts, vals)
		if err != nil {
			return nil, err
		}
		return out, searchIn(ctx, ix, ix.sops(), ks, valid, out)
	}
	ks, valid, err := numericKeys(ix.lk.kind, vals)
	if err != nil {
		return nil, err
	}
	return out, searchIn(ctx, ix, ix.uops(), ks, valid, out)
}

func searchIn[K cmp.Ordered](ctx context.Context, ix *Index, o keyOps[K], ks []K, valid []bool, out *roaring64.Bitmap) error {
	set := make([]K, 0, len(ks))
	for i, k := range ks {
		if valid == nil || valid[i] {
			set = append(set, k)
		}
	}
	slices.Sort(set)
	set = slices.Compact(set)
	for _, k := range set {
		b := &bound[K]{k, true}
		if err := scanRange(ctx, ix, o, b, b, out); err != nil {
			return err
		}
	}
	return nil
}

// SearchIsNull returns the addresses of the entries whose key is null.
func (ix *Index) SearchIsNull(ctx context.Context) (*roaring64.Bitmap, error) {
	need := make([]int, ix.lk.nullPages)
	for i := range need {
		need[i] = i
	}
	pages, _, err := ix.loadPages(ctx, need)
	if err != nil {
		return nil, err
	}
	out := roaring64.New()
	var buf []uint64
	for _, pg := range pages {
		buf = buf[:0]
		for i := 0; i < pg.n; i++ {
			buf = append(buf, pg.addr(i))
		}
		out.AddMany(buf)
	}
	return out, nil
}
