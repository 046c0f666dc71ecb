package radix

// SortKeyed sorts keys ascending by all 64 bits, moving payload[i] along
// with keys[i], with a stable LSD radix sort over bytes: the sort of a
// probe's keys with their input positions (index/btree's batched lookup)
// and of an index's (key, address) entries, where the key is a full
// 64-bit value that cannot be packed with its payload into one word the
// way SortKeys's callers pack theirs. Byte positions where every key
// agrees are skipped, so row ids below 2^24 take three passes; the digit
// histograms do not depend on the order, so one counting pass serves every
// digit. Up to 64 keys go through an insertion sort instead.
func SortKeyed[P any](keys []uint64, payload []P) {
	SortKeyedBuf(keys, payload, nil, nil)
}

// SortKeyedBuf is SortKeyed with scratch buffers of len(keys) (allocated
// when too short), for callers that sort batch after batch.
func SortKeyedBuf[P any](keys []uint64, payload []P, tk []uint64, tp []P) {
	n := len(keys)
	if n < 2 {
		return
	}
	if n <= 64 {
		insertionSort(keys, payload)
		return
	}
	var hist [8][256]int
	for _, k := range keys {
		for d := range 8 {
			hist[d][byte(k>>(8*d))]++
		}
	}
	if len(tk) < n {
		tk = make([]uint64, n)
	}
	if len(tp) < n {
		tp = make([]P, n)
	}
	src, sp, dst, dp := keys, payload, tk[:n], tp[:n]
	for d := range 8 {
		h := &hist[d]
		if h[byte(keys[0]>>(8*d))] == n {
			continue // every key has the same byte here
		}
		var pos [256]int
		sum := 0
		for b := range 256 {
			pos[b] = sum
			sum += h[b]
		}
		sh := uint(8 * d)
		for i, k := range src {
			b := byte(k >> sh)
			j := pos[b]
			pos[b] = j + 1
			dst[j] = k
			dp[j] = sp[i]
		}
		src, sp, dst, dp = dst, dp, src, sp
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
		copy(payload, sp)
	}
}

// insertionSort is SortKeyed for a few keys, stable as well.
func insertionSort[P any](keys []uint64, payload []P) {
	for i := 1; i < len(keys); i++ {
		k, p := keys[i], payload[i]
		j := i
		for j > 0 && keys[j-1] > k {
			keys[j], payload[j] = keys[j-1], payload[j-1]
			j--
		}
		keys[j], payload[j] = k, p
	}
}

// SortPairs sorts the pairs (keys[i], vals[i]) by key, then value: two
// stable passes, the second keeping the first's value order among equal
// keys.
func SortPairs(keys, vals []uint64) {
	SortKeyed(vals, keys)
	SortKeyed(keys, vals)
}
