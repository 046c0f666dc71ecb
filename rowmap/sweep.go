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
	if err := unpack(pb.packed, pb.width, sc.liveLabels, pb.limit); err != nil {
		return nil, nil, fmt.Errorf("block %d: %w", b, err)
	}
	if pb.dict != nil {
		for i, v := range sc.liveLabels {
			sc.liveLabels[i] = pb.dict[v]
		}
	}
	st.blockLive(sc.liveLabels, sc.liveOffs)
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
