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
	var n uint32
	for _, v := range labels[:pos] {
		if v == l {
			n++
		}
	}
	return l, n, false
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
