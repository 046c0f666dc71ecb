package physexpr

import "math/bits"

// intSet is the set of a long integer IN list (InValues): built once at
// bind time from the list's slice, probed once per row. A Go map of a
// million int64 keys took about 0.5 s to build (a hashed insert with its
// group probing per value, the largest cost of a 1M-value IN list after
// the parse); this set is one of two flat forms, chosen by the values'
// range as the join's dense index chooses (exec/denseindex.go):
//
//	span = max - min + 1 over the values
//	span <= max(DenseMinSpan, 64 per value) ─▶ dense: a bitmap over the
//	                                           range, bit v-min
//	otherwise                               ─▶ hashed: open addressing,
//	                                           linear probing, a table of
//	                                           at least twice the values
//
// The dense form costs at most 8 bytes a value and one load a probe; the
// hashed one 16 to 32 bytes a value and, at half load, about 1.5 slots a
// probe. Both answer exactly: the bit or the slot holds the value itself.
type intSet struct {
	n int // distinct values

	// dense
	min, span uint64
	bits      []uint64

	// hashed: slot value 0 is empty; the value 0 is hasZero.
	slots   []uint64
	shift   uint
	hasZero bool
}

// fibonacci multiplier: the high bits of v*fib spread consecutive and
// strided keys over the table.
const fib = 0x9E3779B97F4A7C15

func newIntSet[T int32 | int64](vals []T) *intSet {
	s := &intSet{}
	if len(vals) == 0 {
		return s
	}
	lo, hi := int64(vals[0]), int64(vals[0])
	for _, v := range vals {
		lo, hi = min(lo, int64(v)), max(hi, int64(v))
	}
	if span := uint64(hi) - uint64(lo); span < max(uint64(DenseMinSpan), 64*uint64(len(vals))) {
		s.min, s.span = uint64(lo), span+1
		s.bits = make([]uint64, (s.span+63)/64)
		for _, v := range vals {
			o := uint64(int64(v)) - s.min
			w, b := o/64, uint64(1)<<(o%64)
			if s.bits[w]&b == 0 {
				s.bits[w] |= b
				s.n++
			}
		}
		return s
	}
	size := uint64(1) << bits.Len64(uint64(2*len(vals)-1))
	s.slots = make([]uint64, size)
	s.shift = uint(64 - bits.Len64(size-1))
	mask := size - 1
	for _, v := range vals {
		u := uint64(int64(v))
		if u == 0 {
			if !s.hasZero {
				s.hasZero = true
				s.n++
			}
			continue
		}
		for i := (u * fib) >> s.shift; ; i = (i + 1) & mask {
			if s.slots[i] == u {
				break
			}
			if s.slots[i] == 0 {
				s.slots[i] = u
				s.n++
				break
			}
		}
	}
	return s
}

func (s *intSet) has(v int64) bool {
	u := uint64(v)
	if s.bits != nil {
		o := u - s.min
		return o < s.span && s.bits[o/64]&(1<<(o%64)) != 0
	}
	if u == 0 {
		return s.hasZero
	}
	if s.slots == nil {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := (u * fib) >> s.shift; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case u:
			return true
		case 0:
			return false
		}
	}
}

// keys lists the set's values (for the short-list scan).
func (s *intSet) keys() []int64 {
	out := make([]int64, 0, s.n)
	if s.bits != nil {
		for w, b := range s.bits {
			for ; b != 0; b &= b - 1 {
				out = append(out, int64(s.min+uint64(w*64+bits.TrailingZeros64(b))))
			}
		}
		return out
	}
	if s.hasZero {
		out = append(out, 0)
	}
	for _, u := range s.slots {
		if u != 0 {
			out = append(out, int64(u))
		}
	}
	return out
}

// DenseMinSpan is the smallest key span a dense bitmap may cover whatever
// the number of keys (1<<20 bits, 128 KiB: still cache-sized). The IN
// list's set here and the join's dense index (exec/denseindex.go) share it.
const DenseMinSpan = 1 << 20
