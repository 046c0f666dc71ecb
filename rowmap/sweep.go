package rowmap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sync"
)

// valueTables holds what the sweep kernel works with: the two tables it
// indexes by packed value (2^16 entries, the widest packed value, so a uint16
// index needs no bounds check in the per-row loops), the deletion words and
// unpacked values of the current segment, and the buffer blocks are read
// into.
type valueTables struct {
	lut    [1 << 16]uint32         // packed value → label (identity, or the dictionary)
	loc    [1 << 16]uint32         // packed value → next offset of its label
	identK int                     // lut[:identK] is known to hold the identity
	del    [segRows / 64]uint64    // deletion words of the segment being translated
	vals   [2 * (segRows + 8)]byte // the segment's live rows' packed values, unpacked to uint16s
	raw    []byte                  // the block read, with the window's slack after it
}

// tablePool keeps sweeps over many small maps from allocating ~800 KiB each.
var tablePool = sync.Pool{New: func() any { return new(valueTables) }}

// sweepScratch holds the buffers one sweep reuses across blocks.
type sweepScratch struct {
	labels, offsets []uint32
	tab             *valueTables
	// readAhead makes readParsed read runs of consecutive blocks, up to
	// readAheadBytes, in one ReadAt; tab.raw then holds blocks [lo, hi).
	readAhead bool
	lo, hi    int
}

// readAheadBytes bounds one sweep read: enough to cut ReadAt calls (and the
// scheduling points they are on a busy machine) by an order of magnitude,
// small enough to stay in cache.
const readAheadBytes = 1 << 20

func (sc *sweepScratch) release() {
	if sc.tab != nil {
		tablePool.Put(sc.tab)
		sc.tab = nil
	}
}

// readParsed reads block b into sc.tab.raw (leaving the slack translateBlock's
// window needs) and checks it: CRC32C once per block read, and the header
// against the counts. A block of an in-memory file is not copied when the
// file's remaining bytes can serve as the window's slack (translateBlock
// only reads through the window, and the bytes past the block it reads have
// no effect on the result).
func (r *Reader) readParsed(b int, sc *sweepScratch) (parsedBlock, error) {
	if sc.tab == nil {
		sc.tab = tablePool.Get().(*valueTables)
		sc.lo, sc.hi = 0, 0
	}
	if r.mem != nil && r.dir[b+1]+winSize <= uint64(len(r.mem)) {
		pb, err := parseBlock(r.mem[r.dir[b]:r.dir[b+1]:len(r.mem)], uint32(len(r.dests)), r.counts.BlockLen(b), r.counts.BlockLive(b))
		if err != nil {
			return parsedBlock{}, r.blockErr(b, err)
		}
		return pb, nil
	}
	if b < sc.lo || b >= sc.hi {
		hi := b + 1
		for sc.readAhead && hi < r.counts.NumBlocks() && r.dir[hi+1]-r.dir[b] <= readAheadBytes {
			hi++
		}
		sz := int(r.dir[hi] - r.dir[b])
		raw := slices.Grow(sc.tab.raw[:0], sz+winSize)[:sz]
		sc.tab.raw = raw
		sc.lo, sc.hi = b, b // empty until the read succeeds
		if _, err := r.src.ReadAt(raw, int64(r.dir[b])); err != nil && !errors.Is(err, io.EOF) {
			return parsedBlock{}, r.readErr(b, err)
		}
		sc.lo, sc.hi = b, hi
	}
	from, to := r.dir[b]-r.dir[sc.lo], r.dir[b+1]-r.dir[sc.lo]
	pb, err := parseBlock(sc.tab.raw[from:to], uint32(len(r.dests)), r.counts.BlockLen(b), r.counts.BlockLive(b))
	if err != nil {
		return parsedBlock{}, r.blockErr(b, err)
	}
	return pb, nil
}

// sweepBlock reads, checks and translates block b into sc.labels and
// sc.offsets, advancing st.
func (r *Reader) sweepBlock(st *SweepTranslator, b int, sc *sweepScratch) (labels, offsets []uint32, err error) {
	pb, err := r.readParsed(b, sc)
	if err != nil {
		return nil, nil, err
	}
	sc.labels = slices.Grow(sc.labels[:0], pb.rows)[:pb.rows]
	sc.offsets = slices.Grow(sc.offsets[:0], pb.rows)[:pb.rows]
	if err := translateBlock(pb, st.counters, r.counts.After(b), sc.tab, sc.labels, sc.offsets); err != nil {
		return nil, nil, r.blockErr(b, err)
	}
	return sc.labels, sc.offsets, nil
}

// translateBlock writes every row's label and offset (NullLabel for both on
// a deleted row), advancing counters, which must then equal after (the
// counts after the block).
//
// Per segment of up to segRows rows: unpack the live rows' packed values
// (unpackLive), then rank and spread them (rankCompact and expandRows with
// AVX2, else rankRows). Counters are kept per packed value in t.loc, seeded
// from counters and written back after the block, so a dictionary block
// costs no extra lookup per row.
//
// Two checks run after the loops rather than per row. Out-of-range values:
// the entries of t.loc at and above the number of valid values start at
// zero, only a live row can raise them, so any of them being non-zero means
// the block held a label outside its range. Counts: a block whose labels
// disagree with the counts matrix would translate differently by sweep and
// by point lookup, so the labels' counters are compared with after. Only
// the block's own labels need comparing: their deltas then add up to the
// block's live count, which the header matched, so every other label's
// (non-negative) delta is zero.
func translateBlock(pb parsedBlock, counters, after []uint32, t *valueTables, labels, offs []uint32) error {
	w := pb.width
	if w > 16 {
		return fmt.Errorf("%w: bit width %d", ErrCorrupt, w)
	}
	n := pb.rows
	if len(labels) != n || len(offs) != n {
		return fmt.Errorf("%w: %d rows into %d/%d slots", ErrInvalidArgument, n, len(labels), len(offs))
	}
	if n == 0 {
		return nil
	}
	span := 1 << w
	k := min(int(pb.limit), span) // valid packed values are [0, k)
	if pb.live > 0 && k == 0 {
		return fmt.Errorf("%w: label out of range", ErrCorrupt)
	}
	if pb.dict != nil {
		copy(t.lut[:], pb.dict[:k])
		t.identK = 0
	} else {
		for j := t.identK; j < k; j++ {
			t.lut[j] = uint32(j)
		}
		t.identK = max(t.identK, k)
	}
	for j, l := range t.lut[:k] {
		if int(l) >= len(counters) {
			return fmt.Errorf("%w: label %d of %d destinations", ErrCorrupt, l, len(counters))
		}
		t.loc[j] = counters[l]
	}
	clear(t.loc[k:span])

	// The cursor never passes the end of the packed labels (the live count
	// matches the bitmap, checked at parse), so a window of winSize bytes
	// from any cursor byte fits in the buffer's slack, which readParsed
	// leaves.
	if uint64(pb.live)*uint64(w) > uint64(len(pb.packed))*8 {
		return fmt.Errorf("%w: packed labels truncated", ErrCorrupt)
	}
	pk := pb.packed
	if cap(pk)-len(pk) < winSize {
		return fmt.Errorf("%w: block buffer without window slack", ErrInvalidArgument)
	}
	pk = pk[:cap(pk)]
	bit := uint(0)
	for s := 0; s < n; s += segRows {
		e := min(n, s+segRows)
		words := (e - s + 63) / 64
		live := e - s
		if pb.del != nil {
			for q := range words {
				t.del[q] = binary.LittleEndian.Uint64(pb.del[s/8+8*q:])
			}
			if tail := (e - s) % 64; tail != 0 {
				t.del[words-1] &= 1<<tail - 1
			}
			for _, d := range t.del[:words] {
				live -= bits.OnesCount64(d)
			}
		} else {
			clear(t.del[:words])
		}
		at := bit >> 3
		unpackLive(t.vals[:], live, (*[winSize]byte)(pk[at:at+winSize]), bit&7, w)
		if useExpand {
			rankCompact(labels[s:s+live], offs[s:s+live], t, pb.dict == nil)
			expandRows(labels[s:e], offs[s:e], live, t, pb.dict == nil)
		} else {
			rankRows(labels[s:e], offs[s:e], t)
		}
		bit += uint(live) * w
	}

	for _, c := range t.loc[k:span] {
		if c != 0 {
			return fmt.Errorf("%w: label out of range %d", ErrCorrupt, pb.limit)
		}
	}
	for j, l := range t.lut[:k] {
		if t.loc[j] != after[l] {
			return fmt.Errorf("%w: %d rows of destination %d through this block, counts say %d", ErrCorrupt, t.loc[j], l, after[l])
		}
	}
	for j, l := range t.lut[:k] {
		counters[l] = t.loc[j]
	}
	return nil
}

// The unpack reads packed labels through a fixed-size window so the
// compiler can drop its bounds checks: a segment of at most segRows rows
// starts its cursor at a bit phase below 8, so every byte it reads lies
// below 2^17+3, inside a window of winSize bytes.
const (
	segRows  = 1 << 16
	winIndex = 1<<18 - 1 // mask that bounds a window byte index for the compiler
	winSize  = winIndex + 4
)

// unpackLive unpacks n values of width w that start bit bits into win into
// dst, as little-endian uint16s. A segment that starts on a byte (every
// segment of a block of at most segRows rows does) goes through the width's
// constant-shift kernel, which may write up to 7 values past n (t.vals has
// room for them); otherwise each value is one unaligned load, shift and
// mask.
func unpackLive(dst []byte, n int, win *[winSize]byte, bit, w uint) {
	if bit == 0 {
		unpackKernels[w](dst, win[:], (n+7)/8)
		return
	}
	mask := uint32(1)<<w - 1
	for i := range n {
		j := bit >> 3 & winIndex
		x := uint32(win[j]) | uint32(win[j+1])<<8 | uint32(win[j+2])<<16 | uint32(win[j+3])<<24
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(x>>(bit&7)&mask))
		bit += w
	}
}

// useExpand selects the two-pass row loop (rankCompact, then expandRows);
// tests turn it off to check rankRows on machines that have the kernel.
var useExpand = haveAVX2

// rankCompact ranks a segment's live rows in row order, writing their
// offsets to off and, for a block with a dictionary, their labels to lab
// (one entry per live row, len(lab) the segment's live count); expandRows
// then spreads them over the segment's rows. Split this way the rank loop
// carries no deletion logic, and a block without a dictionary costs one
// store per live row besides its counter (the sweep is bound by stores:
// one a cycle on the cores we measure on). The labels of such a block are
// its unpacked values, which expandRows widens straight from t.vals.
func rankCompact(lab, off []uint32, t *valueTables, ident bool) {
	loc, vals := t.loc[:], &t.vals
	if ident {
		for k := range off {
			v := binary.LittleEndian.Uint16(vals[2*(k&(segRows-1)):])
			c := loc[v]
			loc[v] = c + 1
			off[k] = c
		}
		return
	}
	off = off[:len(lab)]
	lut := t.lut[:]
	for k := range lab {
		v := binary.LittleEndian.Uint16(vals[2*(k&(segRows-1)):])
		c := loc[v]
		loc[v] = c + 1
		lab[k] = lut[v]
		off[k] = c
	}
}

// expandRows spreads the live rows' offsets that rankCompact left in
// off[:live], and their labels (from lab[:live], or from t.vals when ident),
// over the segment's rows, in place, writing NullLabel at deleted rows: a
// short final group here, from its last row back (each value is read before
// anything is written over it), then the full groups in the vector kernel.
func expandRows(lab, off []uint32, live int, t *valueTables, ident bool) {
	n := len(lab)
	off = off[:n]
	full := n &^ 63
	k := live
	if full < n {
		d := t.del[full>>6&(segRows/64-1)]
		for r := n - 1; r >= full; r-- {
			if d>>(r-full)&1 != 0 {
				lab[r], off[r] = NullLabel, NullLabel
				continue
			}
			k--
			l := lab[k]
			if ident {
				l = uint32(binary.LittleEndian.Uint16(t.vals[2*(k&(segRows-1)):]))
			}
			lab[r], off[r] = l, off[k]
		}
	}
	if full == 0 {
		return
	}
	if ident {
		expandIdentAVX2(&lab[0], &t.vals[0], &off[0], &t.del[0], full/64, k)
	} else {
		expandAVX2(&lab[0], &off[0], &t.del[0], full/64, k)
	}
}

// rankRows is translateBlock's per-row pass over one segment of at most
// segRows rows whose deletion words are in t.del and whose live rows'
// values are in t.vals, kept apart so that its variables stay in registers.
//
// Rows go in groups of 64, one deletion word each. Deleted rows and live
// rows are visited by walking the set bits of the word and of its
// complement, so a live row costs its value load and its rank, and a
// deleted row two stores. (A per-row loop with a branch-free deletion mask
// decoding in place runs ~1.6x the instructions per row; the price here is
// about one mispredicted loop exit per group.)
func rankRows(lab, off []uint32, t *valueTables) {
	n := len(lab)
	off = off[:n]
	full := n &^ 63
	k := 0
	for g := 0; g < full; g += 64 {
		k = rankGroup(lab[g:g+64], off[g:g+64], t.del[g>>6&(segRows/64-1)], ^uint64(0), k, t)
	}
	if rem := n - full; rem > 0 {
		var l, o [64]uint32
		rankGroup(l[:], o[:], t.del[full>>6&(segRows/64-1)], 1<<rem-1, k, t)
		copy(lab[full:], l[:rem])
		copy(off[full:], o[:rem])
	}
}

// rankGroup translates the rows of a group of 64 that valid selects, del being its deletion word and k the index in t.vals of its
// first live row; it returns the index after its last.
func rankGroup(lab, off []uint32, del, valid uint64, k int, t *valueTables) int {
	lab, off = lab[:64], off[:64]
	for m := del & valid; m != 0; m &= m - 1 {
		r := bits.TrailingZeros64(m) & 63
		lab[r] = NullLabel
		off[r] = NullLabel
	}
	loc, lut, vals := t.loc[:], t.lut[:], t.vals[:]
	for m := ^del & valid; m != 0; m &= m - 1 {
		r := bits.TrailingZeros64(m) & 63
		v := binary.LittleEndian.Uint16(vals[2*(k&(segRows-1)):])
		k++
		o := loc[v]
		loc[v] = o + 1
		lab[r] = lut[v]
		off[r] = o
	}
	return k
}
