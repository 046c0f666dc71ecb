package rowmap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
)

// sweepScratch holds the buffers one sweep reuses across blocks.
type sweepScratch struct {
	raw                  []byte
	liveLabels, liveOffs []uint32
	labels, offsets      []uint32
}

// sweepBlock translates block b in the order that keeps the hot loops free
// of per-row branches: unpack the live labels, translate them (live rows
// only), then spread labels and offsets over the deletions run by run.
func (r *Reader) sweepBlock(st *SweepTranslator, b int, sc *sweepScratch) (labels, offsets []uint32, err error) {
	sz := int(r.dir[b+1] - r.dir[b])
	sc.raw = slices.Grow(sc.raw[:0], sz)[:sz]
	if _, err := r.src.ReadAt(sc.raw, int64(r.dir[b])); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("rowmap: reading block %d: %w", b, err)
	}
	pb, err := parseBlock(sc.raw, uint32(len(r.dests)), r.counts.BlockLen(b), r.counts.BlockLive(b))
	if err != nil {
		return nil, nil, fmt.Errorf("block %d: %w", b, err)
	}
	// One guard element past the live values, read (and masked) by spread2.
	sc.liveLabels = slices.Grow(sc.liveLabels[:0], pb.live+1)[:pb.live]
	sc.liveOffs = slices.Grow(sc.liveOffs[:0], pb.live+1)[:pb.live]
	if err := unpackTranslate(pb, sc.liveLabels, sc.liveOffs, st); err != nil {
		return nil, nil, fmt.Errorf("block %d: %w", b, err)
	}
	if pb.del == nil {
		return sc.liveLabels, sc.liveOffs, nil
	}
	sc.labels = slices.Grow(sc.labels[:0], pb.rows)[:pb.rows]
	sc.offsets = slices.Grow(sc.offsets[:0], pb.rows)[:pb.rows]
	if err := spread2(pb.del, pb.rows, sc.liveLabels, sc.liveOffs, sc.labels, sc.offsets); err != nil {
		return nil, nil, fmt.Errorf("block %d: %w", b, err)
	}
	return sc.labels, sc.offsets, nil
}

// spread2 places the live values of a and b at the live positions of
// dstA/dstB (n rows) and NullLabel at the positions set in the deletion
// bitmap del. It is branch-free per row: NullLabel is all ones, so a deleted
// row is the next live value OR-ed with an all-ones mask, and the live cursor
// advances by one minus the deletion bit. a and b need one readable guard
// element past their live values (cap > len).
func spread2(del []byte, n int, a, b, dstA, dstB []uint32) error {
	dead := 0
	for base := 0; base < n; base += 64 {
		word := binary.LittleEndian.Uint64(del[base/8:])
		if n-base < 64 {
			word &= uint64(1)<<(n-base) - 1
		}
		dead += bits.OnesCount64(word)
	}
	if n-dead != len(a) || len(b) != len(a) || cap(a) <= len(a) || cap(b) <= len(b) {
		return fmt.Errorf("%w: deletion bitmap disagrees with live count", ErrCorrupt)
	}
	ga, gb := a[:len(a)+1], b[:len(b)+1]
	dstA, dstB = dstA[:n], dstB[:n]
	seen := 0
	for base := 0; base < n; base += 64 {
		end := min(n, base+64)
		word := binary.LittleEndian.Uint64(del[base/8:])
		for i := base; i < end; i++ {
			d := uint32(word & 1)
			word >>= 1
			m := -d // all ones when deleted
			dstA[i] = ga[seen] | m
			dstB[i] = gb[seen] | m
			seen += int(1 - d)
		}
	}
	return nil
}

// unpackTranslate unpacks a block's live labels and translates them in the
// same pass (offset = counter[label]++), so each value is touched once.
// Indexes are kept in range by padding the counters (and the dictionary) to
// 2^width entries; an out-of-range label is reported after the loop, when
// the translator's state no longer matters because the sweep fails.
func unpackTranslate(pb parsedBlock, labels, offs []uint32, st *SweepTranslator) error {
	w := pb.width
	n := len(labels)
	if w == 0 {
		if n > 0 && pb.limit == 0 {
			return fmt.Errorf("%w: label out of range", ErrCorrupt)
		}
		l := uint32(0)
		if pb.dict != nil {
			l = pb.dict[0]
		}
		c := st.counters
		for i := range labels {
			labels[i] = l
			offs[i] = c[l]
			c[l]++
		}
		return nil
	}
	if w > 16 {
		return fmt.Errorf("%w: bit width %d", ErrCorrupt, w)
	}
	span := 1 << w
	if len(st.counters) < span {
		st.counters = append(st.counters, make([]uint32, span-len(st.counters))...)
	}
	c := st.counters[:span]
	mask := uint64(span - 1)
	fast := 0
	if len(pb.packed) >= 8 {
		fast = min(n, int(uint64(len(pb.packed)-8)*8/uint64(w))+1)
	}
	labels, offs = labels[:n], offs[:n]
	var maxv uint64
	bit := uint(0)
	if pb.dict == nil {
		for i := range labels[:fast] {
			v := binary.LittleEndian.Uint64(pb.packed[bit>>3:]) >> (bit & 7) & mask
			bit += w
			maxv = max(maxv, v)
			labels[i] = uint32(v)
			o := c[v]
			offs[i] = o
			c[v] = o + 1
		}
	} else {
		dict := make([]uint32, span)
		copy(dict, pb.dict)
		full := st.counters
		for i := range labels[:fast] {
			v := binary.LittleEndian.Uint64(pb.packed[bit>>3:]) >> (bit & 7) & mask
			bit += w
			maxv = max(maxv, v)
			l := dict[v] // validated < m at parse; padding entries are 0
			labels[i] = l
			o := full[l]
			offs[i] = o
			full[l] = o + 1
		}
	}
	for i := fast; i < n; i++ {
		v := packedAt(pb.packed, w, i)
		maxv = max(maxv, uint64(v))
		if uint64(v) >= uint64(pb.limit) {
			break
		}
		l := v
		if pb.dict != nil {
			l = pb.dict[v]
		}
		labels[i] = l
		offs[i] = st.counters[l]
		st.counters[l]++
	}
	if n > 0 && maxv >= uint64(pb.limit) {
		return fmt.Errorf("%w: label out of range %d", ErrCorrupt, pb.limit)
	}
	return nil
}
