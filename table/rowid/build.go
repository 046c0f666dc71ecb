package rowid

import (
	"math"
	"math/bits"
)

// minSortedRun is the shortest ascending run worth its own segment; shorter
// runs are pooled into Array segments, whose per-id cost beats a segment
// header for such runs.
const minSortedRun = 8

// maxArrayLen bounds an Array segment so its permutation fits uint32.
const maxArrayLen = math.MaxUint32

// spanLimit bounds the span of hole/bitmap encodings: beyond it they can
// never be the smallest choice, and the guard keeps size arithmetic exact.
const spanLimit = 1 << 48

// NewSequence encodes ids (in physical-offset order). It splits the input
// into maximal strictly ascending runs, gives each long run its smallest
// sorted encoding, and pools short runs into Array segments. ids is not
// retained. Ids are expected to be unique; if they are not, Position returns
// one of the offsets holding the id.
func NewSequence(ids []uint64) *Sequence {
	return newSequence(appendEncoded(nil, ids))
}

// appendEncoded appends the segments encoding ids to dst.
func appendEncoded(dst []*segment, ids []uint64) []*segment {
	pending := 0 // ids[pending:start] await an Array segment
	flush := func(end int) {
		for pending < end {
			m := min(end-pending, maxArrayLen)
			dst = append(dst, newArraySeg(ids[pending:pending+m]))
			pending += m
		}
	}
	for start := 0; start < len(ids); {
		end := start + 1
		for end < len(ids) && ids[end] > ids[end-1] {
			end++
		}
		if end-start >= minSortedRun {
			flush(start)
			dst = appendSorted(dst, ids[start:end])
			pending = end
		}
		start = end
	}
	flush(len(ids))
	return dst
}

func newArraySeg(v []uint64) *segment {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	if len(v) == 1 {
		return newRangeSeg(lo, 1)
	}
	return &segment{kind: KindArray, n: uint64(len(v)), lo: lo, hi: hi, arr: newPacked(lo, v)}
}

func uvLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// Encoded sizes of each segment kind; they must match codec.go exactly.
func rangeSize(lo, n uint64) int { return 1 + uvLen(lo) + uvLen(n) }
func holesSize(lo, span1, h uint64) int {
	return 2 + uvLen(lo) + uvLen(span1) + uvLen(h) + int(h)*int(widthFor(span1))
}
func bitmapSize(lo, span1 uint64) int { return 1 + uvLen(lo) + uvLen(span1) + int(span1/8+1) }
func arraySize(lo, n, span1 uint64) int {
	return 2 + uvLen(lo) + uvLen(n) + int(n)*int(widthFor(span1))
}

// minSplitRun is the shortest consecutive stretch worth its own Range
// segment inside an ascending run.
const minSplitRun = 64

// appendSorted appends the smallest encoding of a strictly ascending run:
// either one segment for the whole run, or the run split around its long
// consecutive stretches (each a Range) when that is smaller — the ids an
// update moves are typically a few scattered ids plus long ranges, which no
// single segment encodes well.
func appendSorted(dst []*segment, v []uint64) []*segment {
	one := appendSortedOne(nil, v)
	if len(v) < 2*minSplitRun || one[0].kind == KindRange {
		return append(dst, one...)
	}
	var split []*segment
	start := 0
	for i := 0; i < len(v); {
		j := i + 1
		for j < len(v) && v[j] == v[j-1]+1 {
			j++
		}
		if j-i >= minSplitRun {
			if i > start {
				split = appendSortedOne(split, v[start:i])
			}
			split = append(split, newRangeSeg(v[i], uint64(j-i)))
			start = j
		}
		i = j
	}
	if start == 0 {
		return append(dst, one...)
	}
	if start < len(v) {
		split = appendSortedOne(split, v[start:])
	}
	if segmentsSize(split) < segmentsSize(one) {
		return append(dst, split...)
	}
	return append(dst, one...)
}

func segmentsSize(segs []*segment) int {
	n := 0
	for _, g := range segs {
		n += g.encodedSize()
	}
	return n
}

// appendSortedOne appends the smallest single-segment encoding of a
// strictly ascending run. Like Lance: a hole-free run is a Range; otherwise
// the smallest of holes, bitmap and sorted array wins, ties preferring
// holes then bitmap.
func appendSortedOne(dst []*segment, v []uint64) []*segment {
	lo, hi := v[0], v[len(v)-1]
	n := uint64(len(v))
	span1 := hi - lo
	holes := span1 - (n - 1) // span - n, overflow-free
	if holes == 0 {
		return append(dst, newRangeSeg(lo, n))
	}
	best, kind := arraySize(lo, n, span1), KindSortedArray
	if span1 < spanLimit {
		if b := bitmapSize(lo, span1); b <= best {
			best, kind = b, KindRangeWithBitmap
		}
		if h := holesSize(lo, span1, holes); h <= best {
			kind = KindRangeWithHoles
		}
	}
	s := &segment{kind: kind, n: n, lo: lo, hi: hi}
	switch kind {
	case KindRangeWithHoles:
		hs := make([]uint64, 0, holes)
		for i := 1; i < len(v); i++ {
			for x := v[i-1] + 1; x < v[i]; x++ {
				hs = append(hs, x)
			}
		}
		s.arr = newPacked(lo, hs)
	case KindRangeWithBitmap:
		s.words = make([]uint64, span1/64+1)
		for _, x := range v {
			d := x - lo
			s.words[d/64] |= 1 << (d % 64)
		}
		s.ranks = buildRanks(s.words)
	default:
		s.arr = newPacked(lo, v)
	}
	return append(dst, s)
}
