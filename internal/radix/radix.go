package radix

// maxDigit bounds a pass's digit: 2^11 buckets is about where the scatter's
// write heads stop fitting in L1.
const maxDigit = 11

// SortKeys stably sorts keys by their bits [from, to) (to ≤ 64), in as few
// passes of at most 11 bits as the range needs, each digit as narrow as that
// pass count allows (24 bits go as three 8-bit passes, not 11+11+2). Keys
// equal in those bits keep their order. Passes in which every key has the
// same digit are skipped.
func SortKeys(keys []uint64, from, to uint) {
	to = min(to, 64)
	if to <= from || len(keys) < 2 {
		return
	}
	passes := (to - from + maxDigit - 1) / maxDigit
	digit := (to - from + passes - 1) / passes
	count := make([]int, 1<<digit+1)
	tmp := make([]uint64, len(keys))
	src, dst := keys, tmp
	for shift := from; shift < to; shift += digit {
		// The last pass may be narrower: bits at and above to are not part
		// of the order.
		mask := uint64(1)<<min(digit, to-shift) - 1
		clear(count)
		for _, k := range src {
			count[(k>>shift)&mask+1]++
		}
		if count[(src[0]>>shift)&mask+1] == len(src) {
			continue // one digit for all: the pass would move nothing
		}
		for d := 1; d < len(count); d++ {
			count[d] += count[d-1]
		}
		for _, k := range src {
			d := (k >> shift) & mask
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}
