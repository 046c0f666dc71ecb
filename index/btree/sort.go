package btree

// radixSort sorts keys ascending, moving payload along, with a stable LSD
// radix sort over bytes. Byte positions where every key agrees are skipped,
// so row ids below 2^24 take three passes. The digit histograms do not
// depend on the order, so one counting pass serves every digit.
func radixSort[P any](keys []uint64, payload []P) {
	radixSortBuf(keys, payload, nil, nil)
}

// radixSortBuf is radixSort with scratch buffers of len(keys) (allocated
// when too short).
func radixSortBuf[P any](keys []uint64, payload []P, tk []uint64, tp []P) {
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

// sortPairs sorts (keys[i], addrs[i]) by key, then address.
func sortPairs(keys, addrs []uint64) {
	radixSort(addrs, keys) // stable passes: address order survives among equal keys
	radixSort(keys, addrs)
}
