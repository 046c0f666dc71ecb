package rowmap

import "fmt"

// NullLabel is the in-memory label of a deleted row in a decoded block.
const NullLabel = ^uint32(0)

// TranslateInBlock returns the in-block rank of the row at pos: the number of
// earlier rows in the block with the same label. labels is a decoded block
// (NullLabel = deleted). deleted reports a NULL label.
func TranslateInBlock(labels []uint32, pos int) (label uint32, rank uint32, deleted bool) {
	l := labels[pos]
	if l == NullLabel {
		return l, 0, true
	}
	return l, countEqual(labels[:pos], l), false
}

// useAVX2Count selects countEqualAVX2; tests turn it off to check
// countEqualGo on machines that have the kernel.
var useAVX2Count = haveAVX2

// countEqual returns how many of s equal want: eight lanes a compare with
// AVX2 (a full 64K block in a few µs), else countEqualGo.
func countEqual(s []uint32, want uint32) uint32 {
	if useAVX2Count && len(s) > 0 {
		return uint32(countEqualAVX2(&s[0], len(s), want))
	}
	return countEqualGo(s, want)
}

// countEqualGo is countEqual without a data-dependent branch: widened to 64
// bits, v^want - 1 wraps around to set bit 63 exactly when v == want. Four
// sums let the adds overlap.
func countEqualGo(s []uint32, want uint32) uint32 {
	var a, b, c, d uint64
	i := 0
	for ; i+4 <= len(s); i += 4 {
		q := s[i : i+4 : i+4]
		a += (uint64(q[0]^want) - 1) >> 63
		b += (uint64(q[1]^want) - 1) >> 63
		c += (uint64(q[2]^want) - 1) >> 63
		d += (uint64(q[3]^want) - 1) >> 63
	}
	for _, v := range s[i:] {
		a += (uint64(v^want) - 1) >> 63
	}
	return uint32(a + b + c + d)
}

// SweepTranslator replays a map from a block boundary: offset = counter[label]++.
type SweepTranslator struct {
	counters []uint32
}

// NewSweepTranslator seeds counters from the counts before block fromBlock.
func NewSweepTranslator(c *CountsMatrix, fromBlock int) (*SweepTranslator, error) {
	if fromBlock < 0 || fromBlock > c.NumBlocks() {
		return nil, fmt.Errorf("%w: sweep start block %d of %d", ErrInvalidArgument, fromBlock, c.NumBlocks())
	}
	s := &SweepTranslator{counters: make([]uint32, c.NumDestinations())}
	if base := c.Base(fromBlock); base != nil {
		copy(s.counters, base)
	}
	return s, nil
}

// Next translates one row label; deleted rows return ok=false.
func (s *SweepTranslator) Next(label uint32) (offset uint32, ok bool) {
	if label == NullLabel {
		return 0, false
	}
	o := s.counters[label]
	s.counters[label] = o + 1
	return o, true
}

// Block translates a whole decoded block into offsets (NullLabel rows get
// NullLabel in out). out must be at least len(labels) long.
func (s *SweepTranslator) Block(labels []uint32, out []uint32) {
	c := s.counters
	out = out[:len(labels)]
	for i, l := range labels {
		if l == NullLabel {
			out[i] = NullLabel
			continue
		}
		out[i] = c[l]
		c[l]++
	}
}
