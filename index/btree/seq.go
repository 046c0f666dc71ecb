package btree

import (
	"encoding/binary"
	"math/bits"
)

// An integer sequence (page keys, address fragment ids, address offsets) is
// stored in one of two forms, whichever is smaller:
//
//	FOR:  tag=0, uvarint base, u8 width, ceil(n*width/64) little-endian u64
//	      words holding v-base bit-packed LSB first (width 0: all equal base)
//	runs: tag=1, uvarint nruns, nruns x (uvarint start, uvarint len): the
//	      run (start, len) stands for start, start+1, ..., start+len-1
//	rle:  tag=2, as runs, but the run (v, len) stands for len copies of v
//	      (fragment ids of an append-only table: one run per fragment)
//
// Both forms are read in place with O(1) (FOR) or O(log runs) random access,
// so a cached page is never expanded into a slice.
const (
	seqFOR  = 0
	seqRuns = 1
	seqRLE  = 2
)

// seq is a read-only view of one encoded sequence.
type seq struct {
	n     int
	base  uint64
	width uint
	mask  uint64
	words []byte
	// Runs form (runPos != nil): runPos[j] is the position of run j's first
	// element, runPos[len(runStart)] == n; runStart[j] its first value.
	runPos   []int32
	runStart []uint64
	step     uint64 // 1 for runs, 0 for rle
	one      bool   // a single run starting at start: no slice to chase
	start    uint64
}

// at returns element i (0 <= i < n).
func (s *seq) at(i int) uint64 {
	if s.runPos != nil {
		if s.one {
			return s.start + s.step*uint64(i)
		}
		lo, hi := 0, len(s.runStart)-1 // last run with runPos <= i
		for lo < hi {
			m := int(uint(lo+hi+1) >> 1)
			if int(s.runPos[m]) <= i {
				lo = m
			} else {
				hi = m - 1
			}
		}
		return s.runStart[lo] + s.step*uint64(i-int(s.runPos[lo]))
	}
	if s.width == 0 {
		return s.base
	}
	bit := uint(i) * s.width
	w, sh := (bit>>6)<<3, bit&63
	v := binary.LittleEndian.Uint64(s.words[w:]) >> sh
	if sh+s.width > 64 {
		v |= binary.LittleEndian.Uint64(s.words[w+8:]) << (64 - sh)
	}
	return s.base + v&s.mask
}

// lowerBound returns the first position whose value is >= v, for a
// non-decreasing sequence.
func (s *seq) lowerBound(v uint64) int {
	if s.runPos != nil {
		// First run whose last value is >= v.
		lo, hi := 0, len(s.runStart)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			last := s.runStart[m] + s.step*uint64(s.runPos[m+1]-s.runPos[m]-1)
			if last < v {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo == len(s.runStart) {
			return s.n
		}
		if s.runStart[lo] >= v || s.step == 0 {
			return int(s.runPos[lo])
		}
		return int(s.runPos[lo]) + int(v-s.runStart[lo])
	}
	lo, hi := 0, s.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.at(m) < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// appendTo appends all n values to dst.
func (s *seq) appendTo(dst []uint64) []uint64 {
	if s.runPos != nil {
		for j, st := range s.runStart {
			for k := int32(0); k < s.runPos[j+1]-s.runPos[j]; k++ {
				dst = append(dst, st+s.step*uint64(k))
			}
		}
		return dst
	}
	for i := 0; i < s.n; i++ {
		dst = append(dst, s.at(i))
	}
	return dst
}

// appendSeq encodes vals (any order) in the smallest of the three forms.
func appendSeq(dst []byte, vals []uint64) []byte {
	if len(vals) == 0 {
		return append(dst, seqFOR, 0, 0)
	}
	lo, hi := vals[0], vals[0]
	for _, v := range vals[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	width := uint(bits.Len64(hi - lo))
	forBytes := uvarintLen(lo) + 1 + 8*((len(vals)*int(width)+63)/64)
	runBytes, rleBytes := runsSize(vals, 1), runsSize(vals, 0)
	switch {
	case runBytes < forBytes && runBytes <= rleBytes:
		return appendRuns(append(dst, seqRuns), vals, 1)
	case rleBytes < forBytes:
		return appendRuns(append(dst, seqRLE), vals, 0)
	}
	dst = append(dst, seqFOR)
	dst = binary.AppendUvarint(dst, lo)
	dst = append(dst, byte(width))
	return appendPacked(dst, vals, lo, width)
}

// appendPacked appends v-lo for every v at width bits, LSB first, in
// little-endian u64 words.
func appendPacked(dst []byte, vals []uint64, lo uint64, width uint) []byte {
	if width == 0 {
		return dst
	}
	var acc uint64
	var nb uint
	for _, v := range vals {
		d := v - lo
		acc |= d << nb
		nb += width
		if nb >= 64 {
			dst = binary.LittleEndian.AppendUint64(dst, acc)
			nb -= 64
			acc = 0
			if nb > 0 {
				acc = d >> (width - nb)
			}
		}
	}
	if nb > 0 {
		dst = binary.LittleEndian.AppendUint64(dst, acc)
	}
	return dst
}

// continues reports whether v extends a run ending in prev with the step.
func continues(prev, v, step uint64) bool { return v == prev+step && prev+step >= prev }

// runsSize is the encoded size of vals as runs of the step (without tag).
func runsSize(vals []uint64, step uint64) int {
	runs, size, n := 1, uvarintLen(vals[0]), uint64(1)
	for i := 1; i < len(vals); i++ {
		if continues(vals[i-1], vals[i], step) {
			n++
			continue
		}
		size += uvarintLen(n) + uvarintLen(vals[i])
		runs++
		n = 1
	}
	return size + uvarintLen(n) + uvarintLen(uint64(runs))
}

func appendRuns(dst []byte, vals []uint64, step uint64) []byte {
	runs := 1
	for i := 1; i < len(vals); i++ {
		if !continues(vals[i-1], vals[i], step) {
			runs++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(runs))
	start, n := vals[0], uint64(1)
	for i := 1; i < len(vals); i++ {
		if continues(vals[i-1], vals[i], step) {
			n++
			continue
		}
		dst = binary.AppendUvarint(binary.AppendUvarint(dst, start), n)
		start, n = vals[i], 1
	}
	return binary.AppendUvarint(binary.AppendUvarint(dst, start), n)
}

// decodePacked makes a FOR view of n values of width bits from b and
// returns the rest.
func decodePacked(b []byte, n int, base uint64, width uint) (seq, []byte, error) {
	s := seq{n: n, base: base, width: width}
	if width > 64 {
		return s, nil, corruptf("sequence width %d", width)
	}
	s.mask = ^uint64(0)
	if width < 64 {
		s.mask = 1<<width - 1
	}
	nw := (uint64(n)*uint64(width) + 63) / 64
	if uint64(len(b)) < nw*8 {
		return s, nil, corruptf("sequence words truncated")
	}
	s.words = b[:nw*8]
	return s, b[nw*8:], nil
}

// decodeSeq reads a sequence of n values from b and returns the rest.
// Every length is checked, so a view it returns never reads out of bounds.
func decodeSeq(b []byte, n int) (seq, []byte, error) {
	s := seq{n: n}
	if len(b) < 1 {
		return s, nil, corruptf("sequence truncated")
	}
	tag := b[0]
	b = b[1:]
	switch tag {
	case seqFOR:
		base, k := binary.Uvarint(b)
		if k <= 0 || len(b) < k+1 {
			return s, nil, corruptf("sequence header truncated")
		}
		return decodePacked(b[k+1:], n, base, uint(b[k]))
	case seqRuns, seqRLE:
		if tag == seqRuns {
			s.step = 1
		}
		nr, k := binary.Uvarint(b)
		if k <= 0 || nr == 0 || nr > uint64(n) || nr > uint64(len(b)/2) {
			return s, nil, corruptf("bad run count")
		}
		b = b[k:]
		s.runPos = make([]int32, nr+1)
		s.runStart = make([]uint64, nr)
		pos := uint64(0)
		for j := range s.runStart {
			st, k1 := binary.Uvarint(b)
			if k1 <= 0 {
				return s, nil, corruptf("run truncated")
			}
			l, k2 := binary.Uvarint(b[k1:])
			if k2 <= 0 || l == 0 || l > uint64(n)-pos || st+s.step*(l-1) < st {
				return s, nil, corruptf("bad run")
			}
			b = b[k1+k2:]
			s.runStart[j] = st
			s.runPos[j] = int32(pos)
			pos += l
		}
		if pos != uint64(n) {
			return s, nil, corruptf("runs cover %d of %d values", pos, n)
		}
		s.runPos[nr] = int32(n)
		s.one, s.start = nr == 1, s.runStart[0]
		return s, b, nil
	}
	return s, nil, corruptf("unknown sequence tag %d", tag)
}

// sortedSeq reports whether the sequence is non-decreasing; for the runs form
// it is a check of the run boundaries only, for FOR a full scan.
func (s *seq) sorted() bool {
	if s.runPos != nil {
		for j := 1; j < len(s.runStart); j++ {
			last := s.runStart[j-1] + s.step*uint64(s.runPos[j]-s.runPos[j-1]-1)
			if s.runStart[j] < last {
				return false
			}
		}
		return true
	}
	if s.width == 0 {
		return true
	}
	prev := s.at(0)
	for i := 1; i < s.n; i++ {
		v := s.at(i)
		if v < prev {
			return false
		}
		prev = v
	}
	return true
}

// size is the view's resident footprint beyond the page bytes.
func (s *seq) size() int64 { return int64(len(s.runPos))*4 + int64(len(s.runStart))*8 }

func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

func corruptf(format string, args ...any) error {
	return fmtErr(ErrCorrupt, format, args...)
}
