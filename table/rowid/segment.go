package rowid

import (
	"math/bits"
	"slices"
	"sync"
)

// Kind names a segment encoding.
type Kind uint8

const (
	KindRange           Kind = 1 // [lo, hi], every id present
	KindRangeWithHoles  Kind = 2 // [lo, hi] minus a sorted list of holes
	KindRangeWithBitmap Kind = 3 // [lo, hi] with a presence bitmap and rank directory
	KindSortedArray     Kind = 4 // strictly ascending ids, base + packed offsets
	KindArray           Kind = 5 // unsorted ids, base + packed offsets
)

func (k Kind) String() string {
	switch k {
	case KindRange:
		return "Range"
	case KindRangeWithHoles:
		return "RangeWithHoles"
	case KindRangeWithBitmap:
		return "RangeWithBitmap"
	case KindSortedArray:
		return "SortedArray"
	case KindArray:
		return "Array"
	}
	return "Unknown"
}

// rankBlockWords is the rank-directory granularity: one cumulative count per
// 8 words (512 bits), so Position is O(1) and Get is a binary search over
// blocks plus at most 8 popcounts. Lance's bitmap popcounted from bit 0 on
// every lookup (lance#8930); this never scans more than 512 bits.
const rankBlockWords = 8

// segment is one immutable run of ids. Fields used depend on kind:
//
//	Range:            lo, hi
//	RangeWithHoles:   lo, hi, arr (hole offsets from lo, ascending, strictly inside)
//	RangeWithBitmap:  lo, hi, words (bit i = id lo+i present), ranks
//	SortedArray:      lo, hi, arr (values, ascending)
//	Array:            lo, hi (min/max), arr (values in offset order), perm (lazy)
type segment struct {
	kind  Kind
	n     uint64 // number of ids
	lo    uint64 // smallest id
	hi    uint64 // largest id
	arr   packed
	words []uint64
	ranks []uint64 // ranks[j] = popcount(words[:j*rankBlockWords])

	permOnce sync.Once
	perm     []uint32 // Array only: offsets ordered by value
}

func newRangeSeg(lo, n uint64) *segment {
	return &segment{kind: KindRange, n: n, lo: lo, hi: lo + n - 1}
}

// span is hi-lo (the last offset from lo), never overflowing.
func (s *segment) span() uint64 { return s.hi - s.lo }

func buildRanks(words []uint64) []uint64 {
	ranks := make([]uint64, (len(words)+rankBlockWords-1)/rankBlockWords)
	var c uint64
	for i, w := range words {
		if i%rankBlockWords == 0 {
			ranks[i/rankBlockWords] = c
		}
		c += uint64(bits.OnesCount64(w))
	}
	return ranks
}

// get returns the id at offset i (i < n).
func (s *segment) get(i uint64) uint64 {
	switch s.kind {
	case KindRange:
		return s.lo + i
	case KindRangeWithHoles:
		// Hole j has holes[j]-j present ids below it. The answer is
		// lo+i+k where k = number of holes with holes[j]-j <= i: a binary
		// search, O(log H) (Lance used iter().nth(i), O(i): lance#6716).
		lo, hi := 0, s.arr.n
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if s.arr.off(m)-uint64(m) <= i {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return s.lo + i + uint64(lo)
	case KindRangeWithBitmap:
		return s.lo + s.bitmapSelect(i)
	default:
		return s.arr.at(int(i))
	}
}

// bitmapSelect returns the bit position of the i-th set bit.
func (s *segment) bitmapSelect(i uint64) uint64 {
	lo, hi := 0, len(s.ranks)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.ranks[m] <= i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	blk := lo - 1
	rem := i - s.ranks[blk]
	for w := blk * rankBlockWords; w < len(s.words); w++ {
		x := s.words[w]
		c := uint64(bits.OnesCount64(x))
		if rem < c {
			return uint64(w)*64 + uint64(selectInWord(x, uint(rem)))
		}
		rem -= c
	}
	return s.span() // unreachable for i < n
}

// selectInWord returns the index of the k-th (0-based) set bit of x.
func selectInWord(x uint64, k uint) int {
	// Narrow by bytes first, then clear low bits: ≤ 8 + 7 steps.
	base := 0
	for {
		c := uint(bits.OnesCount8(uint8(x)))
		if k < c {
			break
		}
		k -= c
		x >>= 8
		base += 8
	}
	for ; k > 0; k-- {
		x &= x - 1
	}
	return base + bits.TrailingZeros64(x)
}

// position returns the offset of id in the segment.
func (s *segment) position(id uint64) (uint64, bool) {
	if id < s.lo || id > s.hi {
		return 0, false
	}
	d := id - s.lo
	switch s.kind {
	case KindRange:
		return d, true
	case KindRangeWithHoles:
		k := s.arr.searchOff(d)
		if k < s.arr.n && s.arr.off(k) == d {
			return 0, false
		}
		return d - uint64(k), true
	case KindRangeWithBitmap:
		w := d / 64
		x := s.words[w]
		if x&(1<<(d%64)) == 0 {
			return 0, false
		}
		r := s.ranks[w/rankBlockWords]
		for j := (w / rankBlockWords) * rankBlockWords; j < w; j++ {
			r += uint64(bits.OnesCount64(s.words[j]))
		}
		return r + uint64(bits.OnesCount64(x&(1<<(d%64)-1))), true
	case KindSortedArray:
		k := s.arr.searchOff(d)
		if k < s.arr.n && s.arr.off(k) == d {
			return uint64(k), true
		}
		return 0, false
	default:
		perm := s.sortedPerm()
		lo, hi := 0, len(perm)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if s.arr.off(int(perm[m])) < d {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < len(perm) && s.arr.off(int(perm[lo])) == d {
			return uint64(perm[lo]), true
		}
		return 0, false
	}
}

// sortedPerm builds (once, safely under concurrency) the offsets of an Array
// segment ordered by value, ties by offset so the first occurrence wins.
func (s *segment) sortedPerm() []uint32 {
	s.permOnce.Do(func() {
		p := make([]uint32, s.arr.n)
		for i := range p {
			p[i] = uint32(i)
		}
		slices.SortFunc(p, func(a, b uint32) int {
			va, vb := s.arr.off(int(a)), s.arr.off(int(b))
			switch {
			case va < vb:
				return -1
			case va > vb:
				return 1
			}
			return int(a) - int(b)
		})
		s.perm = p
	})
	return s.perm
}

// appendTo appends the segment's ids in offset order.
func (s *segment) appendTo(dst []uint64) []uint64 {
	switch s.kind {
	case KindRange:
		for v := s.lo; ; v++ {
			dst = append(dst, v)
			if v == s.hi {
				return dst
			}
		}
	case KindRangeWithHoles:
		next := s.lo
		for j := 0; j < s.arr.n; j++ {
			h := s.lo + s.arr.off(j)
			for ; next < h; next++ {
				dst = append(dst, next)
			}
			next = h + 1
		}
		for v := next; ; v++ {
			dst = append(dst, v)
			if v == s.hi {
				return dst
			}
		}
	case KindRangeWithBitmap:
		for w, x := range s.words {
			for x != 0 {
				dst = append(dst, s.lo+uint64(w)*64+uint64(bits.TrailingZeros64(x)))
				x &= x - 1
			}
		}
		return dst
	default:
		return s.arr.appendValues(dst)
	}
}
