package rowid

import (
	"slices"
	"sync"
)

// Sequence is an immutable list of the row ids of one fragment in
// physical-offset order, stored as segments. All methods are safe for
// concurrent use; a nil *Sequence behaves as an empty sequence.
type Sequence struct {
	segs   []*segment // shared freely between sequences: segments are immutable
	starts []uint64   // starts[k] = offset of the first id of segs[k]
	n      uint64

	// disjoint is true when segments ascend and do not overlap in id
	// space, so Position is one binary search over segments.
	disjoint bool

	// Otherwise Position uses a lazily built order of segments by lo with
	// prefix maxima of hi (an interval-stabbing walk).
	idxOnce sync.Once
	byLo    []int
	maxHi   []uint64
}

func newSequence(segs []*segment) *Sequence {
	segs = mergeRanges(segs)
	s := &Sequence{segs: segs, starts: make([]uint64, len(segs)), disjoint: true}
	for k, g := range segs {
		s.starts[k] = s.n
		s.n += g.n
		if k > 0 && g.lo <= segs[k-1].hi {
			s.disjoint = false
		}
	}
	return s
}

// mergeRanges fuses adjacent Range segments that continue each other.
func mergeRanges(segs []*segment) []*segment {
	out := segs[:0:0]
	for _, g := range segs {
		if g == nil || g.n == 0 {
			continue
		}
		if k := len(out) - 1; k >= 0 && g.kind == KindRange && out[k].kind == KindRange &&
			out[k].hi != ^uint64(0) && out[k].hi+1 == g.lo {
			out[k] = newRangeSeg(out[k].lo, out[k].n+g.n)
			continue
		}
		out = append(out, g)
	}
	return out
}

// NewRange returns the sequence of ids [start, end) (empty if end <= start).
func NewRange(start, end uint64) *Sequence {
	if end <= start {
		return newSequence(nil)
	}
	return newSequence([]*segment{newRangeSeg(start, end-start)})
}

// Concat returns the sequences one after another; adjacent Ranges merge.
func Concat(seqs ...*Sequence) *Sequence {
	var segs []*segment
	for _, q := range seqs {
		if q != nil {
			segs = append(segs, q.segs...)
		}
	}
	return newSequence(segs)
}

// Len is the number of ids.
func (s *Sequence) Len() uint64 {
	if s == nil {
		return 0
	}
	return s.n
}

// segAt returns the index of the segment holding offset i (i < n).
func (s *Sequence) segAt(i uint64) int {
	lo, hi := 0, len(s.starts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.starts[m] <= i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// Get returns the id at physical offset i; O(log segments + log segment).
func (s *Sequence) Get(i uint64) (uint64, bool) {
	if s == nil || i >= s.n {
		return 0, false
	}
	if len(s.segs) == 1 {
		return s.segs[0].get(i), true
	}
	k := s.segAt(i)
	return s.segs[k].get(i - s.starts[k]), true
}

// Position returns the physical offset of id; O(log) for sequences whose
// segments do not overlap in id space (everything NewSequence and appends
// produce for fragments with ascending ids). Overlapping segments cost an
// extra walk over the segments whose range covers id.
func (s *Sequence) Position(id uint64) (uint64, bool) {
	if s == nil || s.n == 0 {
		return 0, false
	}
	if s.disjoint {
		// First segment with hi >= id.
		lo, hi := 0, len(s.segs)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if s.segs[m].hi < id {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo == len(s.segs) {
			return 0, false
		}
		p, ok := s.segs[lo].position(id)
		return s.starts[lo] + p, ok
	}
	s.idxOnce.Do(s.buildIndex)
	// Segments with lo <= id are byLo[:k]; walk back while some may cover id.
	lo, hi := 0, len(s.byLo)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.segs[s.byLo[m]].lo <= id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	best, found := uint64(0), false
	for j := lo - 1; j >= 0 && s.maxHi[j] >= id; j-- {
		k := s.byLo[j]
		if p, ok := s.segs[k].position(id); ok {
			if off := s.starts[k] + p; !found || off < best {
				best, found = off, true
			}
		}
	}
	return best, found
}

func (s *Sequence) buildIndex() {
	s.byLo = make([]int, len(s.segs))
	for i := range s.byLo {
		s.byLo[i] = i
	}
	slices.SortStableFunc(s.byLo, func(a, b int) int {
		la, lb := s.segs[a].lo, s.segs[b].lo
		switch {
		case la < lb:
			return -1
		case la > lb:
			return 1
		}
		return 0
	})
	s.maxHi = make([]uint64, len(s.byLo))
	var m uint64
	for j, k := range s.byLo {
		m = max(m, s.segs[k].hi)
		s.maxHi[j] = m
	}
}

// MinMax returns the smallest and largest id; ok is false when empty.
func (s *Sequence) MinMax() (lo, hi uint64, ok bool) {
	if s == nil || s.n == 0 {
		return 0, 0, false
	}
	lo, hi = s.segs[0].lo, s.segs[0].hi
	for _, g := range s.segs[1:] {
		lo, hi = min(lo, g.lo), max(hi, g.hi)
	}
	return lo, hi, true
}

// AppendTo appends all ids in offset order to dst.
func (s *Sequence) AppendTo(dst []uint64) []uint64 {
	if s == nil {
		return dst
	}
	dst = slices.Grow(dst, int(min(s.n, 1<<30)))
	for _, g := range s.segs {
		dst = g.appendTo(dst)
	}
	return dst
}

// Slice returns the ids at offsets [off, off+n), clamped to Len.
func (s *Sequence) Slice(off, n uint64) *Sequence {
	if s == nil || off >= s.n || n == 0 {
		return newSequence(nil)
	}
	n = min(n, s.n-off)
	end := off + n
	var out []*segment
	var tmp []uint64
	for k := s.segAt(off); k < len(s.segs) && s.starts[k] < end; k++ {
		g := s.segs[k]
		a := max(off, s.starts[k]) - s.starts[k]
		b := min(end, s.starts[k]+g.n) - s.starts[k]
		switch {
		case a == 0 && b == g.n:
			out = append(out, g)
		case g.kind == KindRange:
			out = append(out, newRangeSeg(g.lo+a, b-a))
		default:
			tmp = tmp[:0]
			if b-a < g.n/4 {
				for i := a; i < b; i++ {
					tmp = append(tmp, g.get(i))
				}
			} else {
				tmp = g.appendTo(tmp)
				tmp = append(tmp[:0], tmp[a:b]...)
			}
			out = appendEncoded(out, tmp)
		}
	}
	return newSequence(out)
}

// Select returns the ids at the given strictly ascending offsets,
// re-encoded. It returns nil (which behaves as an empty sequence) when the
// offsets are not strictly ascending or out of range; use TrySelect to get
// the reason.
func (s *Sequence) Select(offsets []uint64) *Sequence {
	q, err := s.TrySelect(offsets)
	if err != nil {
		return nil
	}
	return q
}

// TrySelect is Select that reports bad offsets as ErrInvalidArgument.
func (s *Sequence) TrySelect(offsets []uint64) (*Sequence, error) {
	for i, o := range offsets {
		if o >= s.Len() {
			return nil, errorf(ErrInvalidArgument, "offset %d out of range [0,%d)", o, s.Len())
		}
		if i > 0 && o <= offsets[i-1] {
			return nil, errorf(ErrInvalidArgument, "offsets not strictly ascending at index %d", i)
		}
	}
	if len(offsets) == 0 {
		return newSequence(nil), nil
	}
	ids := make([]uint64, len(offsets))
	k := 0
	for i, o := range offsets {
		for s.starts[k]+s.segs[k].n <= o {
			k++
		}
		ids[i] = s.segs[k].get(o - s.starts[k])
	}
	return NewSequence(ids), nil
}

// SegmentInfo describes one segment, for inspection tools.
type SegmentInfo struct {
	Kind         string
	Len          uint64
	Min, Max     uint64
	EncodedBytes int
}

// Segments describes the segments in offset order.
func (s *Sequence) Segments() []SegmentInfo {
	if s == nil {
		return nil
	}
	out := make([]SegmentInfo, len(s.segs))
	for k, g := range s.segs {
		out[k] = SegmentInfo{Kind: g.kind.String(), Len: g.n, Min: g.lo, Max: g.hi, EncodedBytes: g.encodedSize()}
	}
	return out
}
