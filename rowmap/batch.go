package rowmap

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/stablerow/stablerow/internal/radix"
)

// A batch of at least SweepMin rows is swept when it asks for at least one
// row in SweepDensity of the rows it spans (max-min+1); any other batch
// goes through TranslateMany (point lookups, partial sweeps per block). At
// 1 in 64 nearly every 64K-row block is touched anyway, and one sweep
// (~400M rows/s) beats decoding the same blocks row group by row group.
const (
	SweepDensity = 64
	SweepMin     = 64
)

// BatchStats says how TranslateBatch answered: rows swept, rows looked up
// one by one, and blocks read (distinct blocks for point lookups).
type BatchStats struct {
	Swept, Point, Blocks int64
}

// TranslateBatch translates rows (any order, duplicates allowed) into res
// (len(res) ≥ len(rows)), choosing by density itself: one sweep when the
// batch is dense (see SweepDensity) — in row order when rows are sorted,
// through block-grouped keys when not (an index probe's answers come in key
// order) — else TranslateMany. Both give the same answers. st, when not
// nil, accumulates how (counting the point path's blocks costs a bitmap of
// the map's blocks, so pass nil when nobody looks).
//
//	rows ──> n < SweepMin or n·SweepDensity < span? ──yes──> TranslateMany
//	                         │ no
//	                         v
//	              sorted? ──yes──> sweep from lo's block, rows in order
//	                         │ no
//	                         v
//	         radix-group (block, offset, position) keys ──> sweep, keys in order
func (r *Reader) TranslateBatch(rows []uint64, res []Translation, st *BatchStats) error {
	if len(res) < len(rows) {
		return fmt.Errorf("%w: res has %d slots for %d rows", ErrInvalidArgument, len(res), len(rows))
	}
	if len(rows) < SweepMin {
		return r.points(rows, res, st)
	}
	lo, hi := slices.Min(rows), slices.Max(rows)
	if !dense(len(rows), lo, hi) {
		return r.points(rows, res, st)
	}
	bs := uint64(r.counts.BlockSize())
	if hi >= r.NumRows() {
		return fmt.Errorf("%w: row %d is past the rowmap's %d rows", ErrInvalidArgument, hi, r.NumRows())
	}
	if slices.IsSorted(rows) {
		if st != nil {
			st.Swept += int64(len(rows))
		}
		return r.sweepSorted(rows, res, lo/bs, st)
	}
	kl := keyLayout{loBlock: lo / bs, bs: bs, blockBits: uint(bits.Len64(hi/bs - lo/bs)), offBits: uint(bits.Len64(bs - 1)), posBits: uint(bits.Len64(uint64(len(rows) - 1)))}
	if kl.blockBits+kl.offBits+kl.posBits > 64 {
		return r.points(rows, res, st) // too wide for one key a row (no real map is)
	}
	if st != nil {
		st.Swept += int64(len(rows))
	}
	return r.sweepKeys(kl.keys(rows), res, kl, st)
}

// dense reports whether n rows spanning [lo, hi] are swept: at least
// SweepMin of them, at least one in SweepDensity of the span.
func dense(n int, lo, hi uint64) bool {
	return n >= SweepMin && uint64(n)*SweepDensity >= hi-lo+1
}

// points translates rows through TranslateMany, counting the distinct
// blocks it reads.
func (r *Reader) points(rows []uint64, res []Translation, st *BatchStats) error {
	if st != nil {
		st.Point += int64(len(rows))
		bs := uint64(r.counts.BlockSize())
		seen := make([]uint64, r.counts.NumBlocks()/64+1)
		for _, g := range rows {
			if b := g / bs; b/64 < uint64(len(seen)) && seen[b/64]&(1<<(b%64)) == 0 {
				seen[b/64] |= 1 << (b % 64)
				st.Blocks++
			}
		}
	}
	return r.TranslateMany(rows, res)
}

// errStop ends a sweep once every row is answered.
var errStop = errors.New("stop")

// sweepSorted answers ascending rows with one sweep from block first.
func (r *Reader) sweepSorted(rows []uint64, res []Translation, first uint64, st *BatchStats) error {
	k, n := 0, len(rows)
	err := r.SweepBlocks(int(first), func(start uint64, labels, offsets []uint32) error {
		if st != nil {
			st.Blocks++
		}
		end := start + uint64(len(labels))
		for ; k < n && rows[k] < end; k++ {
			res[k] = answer(labels, offsets, rows[k]-start)
		}
		if k == n {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	if k != n {
		return fmt.Errorf("%w: row %d is past the rowmap's %d rows", ErrInvalidArgument, rows[k], r.NumRows())
	}
	return nil
}

// answer is the translation of row p of a swept block.
func answer(labels, offsets []uint32, p uint64) Translation {
	if l := labels[p]; l != NullLabel {
		return Translation{Dest: uint16(l), Offset: offsets[p]}
	}
	return Translation{Deleted: true}
}

// keyLayout packs a requested row and its position into one uint64: the
// row's block less loBlock, its offset in the block, and the position.
type keyLayout struct {
	loBlock, bs                 uint64
	blockBits, offBits, posBits uint
}

// keys returns one key per row, grouped by ascending block and in position
// order within a block: radix-sorted by the block bits only (a sweep needs
// no finer order; a 10M-row map's 153 blocks are one 8-bit pass). The sweep
// then reads the keys in order and never loads rows at random.
func (kl keyLayout) keys(rows []uint64) []uint64 {
	keys := make([]uint64, len(rows))
	for i, g := range rows {
		keys[i] = ((g/kl.bs-kl.loBlock)<<kl.offBits|g%kl.bs)<<kl.posBits | uint64(i)
	}
	radix.SortKeys(keys, kl.offBits+kl.posBits, kl.blockBits+kl.offBits+kl.posBits)
	return keys
}

// sweepKeys answers the rows behind keys (see keyLayout.keys) with one
// sweep from the first one's block, straight into res. Rows are checked
// against the map's size before (TranslateBatch), so every key lands in a
// block the sweep reaches.
func (r *Reader) sweepKeys(keys []uint64, res []Translation, kl keyLayout, st *BatchStats) error {
	k, n := 0, len(keys)
	blockShift, offMask, posMask := kl.offBits+kl.posBits, uint64(1)<<kl.offBits-1, uint64(1)<<kl.posBits-1
	err := r.SweepBlocks(int(kl.loBlock), func(start uint64, labels, offsets []uint32) error {
		if st != nil {
			st.Blocks++
		}
		blk := start/kl.bs - kl.loBlock
		for ; k < n && keys[k]>>blockShift == blk; k++ {
			p, i := keys[k]>>kl.posBits&offMask, keys[k]&posMask
			res[i] = answer(labels, offsets, p)
		}
		if k == n {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	if k != n {
		row := (keys[k]>>blockShift+kl.loBlock)*kl.bs + keys[k]>>kl.posBits&offMask
		return fmt.Errorf("%w: row %d is past the rowmap's %d rows", ErrInvalidArgument, row, r.NumRows())
	}
	return nil
}
