package rowmap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// valueTables holds what the sweep kernel works with: the two tables it
// indexes by packed value (2^16 entries, the widest packed value, so a uint16
// index needs no bounds check in the per-row loop), the deletion words of
// the current segment, and the buffer blocks are read into.
type valueTables struct {
	lut    [1 << 16]uint32      // packed value → label (identity, or the dictionary)
	loc    [1 << 16]uint32      // packed value → next offset of its label
	mask   uint32               // (1<<width)-1 of the block being translated
	width  uint                 // its packed label width
	identK int                  // lut[:identK] is known to hold the identity
	del    [segRows / 64]uint64 // deletion words of the segment being translated
	raw    []byte               // the block read, with the window's slack after it
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
// against the counts.
func (r *Reader) readParsed(b int, sc *sweepScratch) (parsedBlock, error) {
	if sc.tab == nil {
		sc.tab = tablePool.Get().(*valueTables)
		sc.lo, sc.hi = 0, 0
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
			return parsedBlock{}, fmt.Errorf("rowmap: reading block %d: %w", b, err)
		}
		sc.lo, sc.hi = b, hi
	}
	from, to := r.dir[b]-r.dir[sc.lo], r.dir[b+1]-r.dir[sc.lo]
	pb, err := parseBlock(sc.tab.raw[from:to], uint32(len(r.dests)), r.counts.BlockLen(b), r.counts.BlockLive(b))
	if err != nil {
		return parsedBlock{}, fmt.Errorf("block %d: %w", b, err)
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
	if err := translateBlock(pb, st.counters, sc.tab, sc.labels, sc.offsets); err != nil {
		return nil, nil, fmt.Errorf("block %d: %w", b, err)
	}
	return sc.labels, sc.offsets, nil
}

// translateBlock writes every row's label and offset (NullLabel for both on
// a deleted row) in one pass over the rows, advancing counters.
//
// The loop has no data-dependent branch. Counters are kept per packed value
// in t.loc (seeded from counters and written back after the block), so a
// dictionary block costs no extra lookup per row. A deleted row still reads
// the packed value under the cursor, but ORs an all-ones mask into its
// outputs, adds zero to the counter and does not advance the cursor; the
// deletion bit comes from one bitmap word per 64 rows.
//
// Out-of-range values are caught after the loop rather than tested per row:
// the entries of t.loc at and above the number of valid values start at
// zero, only a live row can raise them, and so any of them being non-zero
// means the block held a label outside its range.
func translateBlock(pb parsedBlock, counters []uint32, t *valueTables, labels, offs []uint32) error {
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
	t.width, t.mask = w, uint32(span-1)
	bit := uint(0)
	for s := 0; s < n; s += segRows {
		e := min(n, s+segRows)
		if pb.del != nil {
			for q := range (e - s + 63) / 64 {
				t.del[q] = binary.LittleEndian.Uint64(pb.del[s/8+8*q:])
			}
		} else {
			clear(t.del[:])
		}
		at := bit >> 3
		bit = at*8 + translateRows(labels[s:e], offs[s:e], (*[winSize]byte)(pk[at:at+winSize]), bit&7, t)
	}

	for _, c := range t.loc[k:span] {
		if c != 0 {
			return fmt.Errorf("%w: label out of range %d", ErrCorrupt, pb.limit)
		}
	}
	for j, l := range t.lut[:k] {
		counters[l] = t.loc[j]
	}
	return nil
}

// The per-row loop reads packed labels through a fixed-size window so the
// compiler can drop its bounds checks: a segment of at most segRows rows
// starts its cursor at a bit phase below 8, so every byte it reads lies
// below 2^17+3, inside a window of winSize bytes.
const (
	segRows  = 1 << 16
	winIndex = 1<<18 - 1 // mask that bounds a window byte index for the compiler
	winSize  = winIndex + 4
)

// translateRows is translateBlock's per-row loop over one segment of at most
// segRows rows whose deletion words are in t.del, kept apart (and reading the
// width and mask from t) so that its variables stay in registers. bit (< 8)
// is the cursor's phase in win; the cursor's final bit is returned.
func translateRows(lab, off []uint32, win *[winSize]byte, bit uint, t *valueTables) uint {
	off = off[:len(lab)]
	_, _ = win[0], t.loc[0] // one nil check each, before the loop
	var word uint64
	for i := range lab {
		if i&63 == 0 {
			word = t.del[i>>6&(segRows/64-1)]
		}
		live := uint32(word)&1 ^ 1
		dm := live - 1 // all ones on a deleted row
		word >>= 1
		j := bit >> 3 & winIndex
		x := uint32(win[j]) | uint32(win[j+1])<<8 | uint32(win[j+2])<<16 | uint32(win[j+3])<<24
		v := uint16(x >> (bit & 7) & t.mask)
		o := t.loc[v]
		lab[i] = t.lut[v] | dm
		off[i] = o | dm
		t.loc[v] = o + live
		bit += t.width * uint(live)
	}
	return bit
}
