package exec

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The sort's first key as an order-preserving uint64 ("normalized key"):
// comparing two rows' words as unsigned integers gives the same answer as
// the key's comparator, so most comparisons are one integer compare on a
// contiguous slice instead of two closure calls reading two arrays, and a
// single exact key sorts by radix with no comparisons at all.
//
//	rows ──split by the first key's NULLs──▶ non-NULL rows: (word, row) pairs
//	                                          │ exact key, no other keys: LSD radix (stable)
//	                                          │ otherwise: pdqsort on (word, rest of the keys, row)
//	                                         NULL rows: pdqsort on (rest of the keys, row)
//	──▶ concatenated, NULLs first or last as the key asks
//
// A word is exact when equal words mean equal keys (integers, dates,
// timestamps, floats, booleans, decimals that fit 64 bits); a string's
// word is its first 8 bytes, a prefix: equal words fall back to the full
// comparison. Ties on every key are broken by row position, so the result
// is the stable order, as SortExec promises.

// sortWord is one non-NULL row's normalized first key and its position.
type sortWord struct {
	k   uint64
	row int32
}

// normalizer returns the first key's word per row and whether words are
// exact; ok is false for a type or a column with no word form (a decimal
// whose values do not all fit 64 bits), which sorts with comparators.
func normalizer(a arrow.Array) (word func(i int) uint64, exact, ok bool) {
	const sign = uint64(1) << 63
	switch a := a.(type) {
	case *array.Int64:
		v := a.Int64Values()
		return func(i int) uint64 { return uint64(v[i]) ^ sign }, true, true
	case *array.Int32:
		v := a.Int32Values()
		return func(i int) uint64 { return uint64(int64(v[i])) ^ sign }, true, true
	case *array.Int16:
		v := a.Int16Values()
		return func(i int) uint64 { return uint64(int64(v[i])) ^ sign }, true, true
	case *array.Date32:
		v := a.Date32Values()
		return func(i int) uint64 { return uint64(int64(v[i])) ^ sign }, true, true
	case *array.Timestamp:
		v := a.TimestampValues()
		return func(i int) uint64 { return uint64(int64(v[i])) ^ sign }, true, true
	case *array.Uint64:
		v := a.Uint64Values()
		return func(i int) uint64 { return v[i] }, true, true
	case *array.Uint32:
		v := a.Uint32Values()
		return func(i int) uint64 { return uint64(v[i]) }, true, true
	case *array.Float64:
		v := a.Float64Values()
		return func(i int) uint64 { return floatWord(v[i]) }, true, true
	case *array.Float32:
		v := a.Float32Values()
		return func(i int) uint64 { return floatWord(float64(v[i])) }, true, true
	case *array.Boolean:
		return func(i int) uint64 {
			if a.Value(i) {
				return 1
			}
			return 0
		}, true, true
	case *array.Decimal128:
		// One scale per column, so the unscaled integers order the values;
		// they make a word only when every one fits an int64.
		v := a.Values()
		for i := range v {
			if a.IsValid(i) && v[i].HighBits() != int64(v[i].LowBits())>>63 {
				return nil, false, false
			}
		}
		return func(i int) uint64 { return v[i].LowBits() ^ sign }, true, true
	case *array.String:
		return func(i int) uint64 {
			var p [8]byte
			copy(p[:], a.Value(i))
			return binary.BigEndian.Uint64(p[:])
		}, false, true
	}
	return nil, false, false
}

// floatWord orders floats as value.CompareFloat does: -0 equals 0, NaNs equal each
// other and sort after every number (PostgreSQL's float order).
func floatWord(f float64) uint64 {
	switch {
	case math.IsNaN(f):
		return math.MaxUint64
	case f == 0:
		f = 0 // -0 → +0
	}
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// sortNormalized returns the rows 0..n-1 in the stable order of keys,
// where first is keys[0]'s column and rest compares by keys[1:] (nil: no
// more keys). ok is false when the first key has no word form. pass (may
// be nil) counts the comparisons and the words a radix pass moves.
//
// later, when not nil, is the words of keys[1:] (laterWords): every one
// exact and without NULLs, so the whole key sorts by radix with no
// comparison at all, key by key from the last (rest then orders only
// the first key's NULL rows).
func sortNormalized(first arrow.Array, key SortKey, n int, rest func(a, b int) int, later []func(i int) uint64, pass func(int)) ([]int64, bool) {
	word, exact, ok := normalizer(first)
	if !ok || n > math.MaxInt32 {
		return nil, false
	}
	ws := make([]sortWord, 0, n-first.NullN())
	var nulls []int32
	for i := 0; i < n; i++ {
		if first.IsNull(i) {
			nulls = append(nulls, int32(i))
			continue
		}
		k := word(i)
		if key.Descending {
			k = ^k
		}
		ws = append(ws, sortWord{k: k, row: int32(i)})
	}
	switch {
	case exact && (rest == nil || later != nil):
		if later != nil {
			// LSD over the keys as over the bytes: the last key first,
			// each pass stable, so a pass on an earlier key keeps the
			// later keys' order among its ties; the first key's words go
			// back in for the last pass.
			first := make([]uint64, n)
			for _, w := range ws {
				first[w.row] = w.k
			}
			for j := len(later) - 1; j >= 0; j-- {
				for i := range ws {
					ws[i].k = later[j](int(ws[i].row))
				}
				ws = radixSortWords(ws, pass)
			}
			for i := range ws {
				ws[i].k = first[ws[i].row]
			}
		}
		ws = radixSortWords(ws, pass)
	case exact:
		slices.SortFunc(ws, passing(func(a, b sortWord) int {
			if a.k != b.k {
				return cmp.Compare(a.k, b.k)
			}
			if r := rest(int(a.row), int(b.row)); r != 0 {
				return r
			}
			return cmp.Compare(a.row, b.row)
		}, pass))
	default: // a prefix: equal words compare the whole key
		full, _ := Comparator(first)
		desc := key.Descending
		slices.SortFunc(ws, passing(func(a, b sortWord) int {
			if a.k != b.k {
				return cmp.Compare(a.k, b.k)
			}
			r := full(int(a.row), int(b.row))
			if desc {
				r = -r
			}
			if r != 0 {
				return r
			}
			if rest != nil {
				if r := rest(int(a.row), int(b.row)); r != 0 {
					return r
				}
			}
			return cmp.Compare(a.row, b.row)
		}, pass))
	}
	if rest != nil && len(nulls) > 1 { // NULL rows are tied on the first key
		slices.SortFunc(nulls, func(a, b int32) int {
			if r := rest(int(a), int(b)); r != 0 {
				return r
			}
			return cmp.Compare(a, b)
		})
	}
	out := make([]int64, 0, n)
	if key.NullsFirst {
		for _, r := range nulls {
			out = append(out, int64(r))
		}
	}
	for _, w := range ws {
		out = append(out, int64(w.row))
	}
	if !key.NullsFirst {
		for _, r := range nulls {
			out = append(out, int64(r))
		}
	}
	return out, true
}

// laterWords is the words of keys[1:] over all's rows, each with its
// key's direction folded in, when every one is exact and has no NULLs (a
// window's PARTITION BY and ORDER BY keys, typically); nil otherwise.
func laterWords(all arrow.RecordBatch, keys []SortKey) []func(i int) uint64 {
	if len(keys) < 2 {
		return nil
	}
	out := make([]func(i int) uint64, 0, len(keys)-1)
	for _, k := range keys[1:] {
		col := all.Column(k.Column)
		word, exact, ok := normalizer(col)
		if !ok || !exact || col.NullN() > 0 {
			return nil
		}
		if k.Descending {
			out = append(out, func(i int) uint64 { return ^word(i) })
		} else {
			out = append(out, word)
		}
	}
	return out
}

// radixSortWords sorts by k, stably (LSD radix, a byte per pass; a pass
// whose byte is the same in every word is skipped, so small key ranges
// take two or three passes). ws arrives in row order, so stable is the
// row tie-break. pass (may be nil) counts the words moved.
func radixSortWords(ws []sortWord, pass func(int)) []sortWord {
	if len(ws) < 256 {
		slices.SortStableFunc(ws, func(a, b sortWord) int { return cmp.Compare(a.k, b.k) })
		return ws
	}
	var counts [8][256]int
	for _, w := range ws {
		k := w.k
		for p := range 8 {
			counts[p][byte(k>>(8*p))]++
		}
	}
	tmp := make([]sortWord, len(ws))
	src, dst := ws, tmp
	for p := range 8 {
		c := &counts[p]
		if c[byte(src[0].k>>(8*p))] == len(src) {
			continue // every word has this byte
		}
		var offs [256]int
		sum := 0
		for b := range 256 {
			offs[b] = sum
			sum += c[b]
		}
		shift := uint(8 * p)
		for lo := 0; lo < len(src); lo += passStride {
			for _, w := range src[lo:min(lo+passStride, len(src))] {
				b := byte(w.k >> shift)
				dst[offs[b]] = w
				offs[b]++
			}
			if pass != nil {
				pass(passStride)
			}
		}
		src, dst = dst, src
	}
	return src
}
