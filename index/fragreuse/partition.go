package fragreuse

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/stablerow/stablerow/internal/radix"
	"github.com/stablerow/stablerow/rowmap"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// partitionStep translates a stable partition through its rowmap. Source
// row (s, o) is rowmap row physPrefix[s] + o.
type partitionStep struct {
	sourceTable
	physPrefix []uint64
	destIDs    []uint32
	rm         *rowmap.Reader
	r          store.Reader // nil when the row map is mapped memory
}

// sweepDensity: requests of at least sweepMin rows are swept (sorted
// first when they are not) when they ask for at least one row in
// sweepDensity of the rows they span; others use TranslateMany (point
// lookups, partial sweeps per block). At 1 in 64 nearly every 64K-row
// block is touched anyway, and one sweep (~400M rows/s) beats decoding
// the same blocks row group by row group.
const (
	sweepDensity = 64
	sweepMin     = 64
)

func openPartition(ctx context.Context, st store.Store, tr *table.Transition) (*partitionStep, error) {
	src, err := newSourceTable(tr)
	if err != nil {
		return nil, err
	}
	s := &partitionStep{sourceTable: src, physPrefix: make([]uint64, len(tr.Sources)), destIDs: make([]uint32, len(tr.Destinations))}
	var phys, live uint64
	for i := range tr.Sources {
		s.physPrefix[i] = phys
		phys += tr.Sources[i].PhysicalRows
		live += tr.Sources[i].LiveRows()
	}
	for j, d := range tr.Destinations {
		s.destIDs[j] = d.Fragment
	}
	// A store that maps objects hands the row map over as memory, which the
	// sweep reads in place rather than copying block runs out of the file.
	var rms rowmap.Source
	if m, ok := st.(store.Mapper); ok {
		b, err := m.Map(ctx, tr.RowMap)
		if err != nil {
			return nil, fmt.Errorf("fragreuse: map rowmap of version %d: %w", tr.Version, err)
		}
		rms = rowmap.BytesSource(b)
	} else {
		if s.r, err = st.Open(ctx, tr.RowMap); err != nil {
			return nil, fmt.Errorf("fragreuse: open rowmap of version %d: %w", tr.Version, err)
		}
		rms = s.r
	}
	fail := func(err error) (*partitionStep, error) {
		s.close()
		return nil, err
	}
	if s.rm, err = rowmap.Open(rms); err != nil {
		return fail(fmt.Errorf("%w: rowmap %s: %w", ErrCorrupt, tr.RowMap, err))
	}
	if !slices.Equal(s.rm.Destinations(), s.destIDs) {
		return fail(errorf(ErrCorrupt, "rowmap %s lists destinations %v, version %d says %v", tr.RowMap, s.rm.Destinations(), tr.Version, s.destIDs))
	}
	c := s.rm.Counts()
	if c.TotalRows() != phys || c.LiveRows() != live {
		return fail(errorf(ErrCorrupt, "rowmap %s has %d rows (%d live), version %d's sources %d (%d live)", tr.RowMap, c.TotalRows(), c.LiveRows(), tr.Version, phys, live))
	}
	for j, n := range c.Totals() {
		if uint64(n) != tr.Destinations[j].Rows {
			return fail(errorf(ErrCorrupt, "rowmap %s sends %d rows to fragment %d, version %d says %d", tr.RowMap, n, s.destIDs[j], tr.Version, tr.Destinations[j].Rows))
		}
	}
	return s, nil
}

func (s *partitionStep) translate(out []uint64, live []bool, sel, srcs []int32, st *stats) error {
	rows := make([]uint64, len(sel))
	for k, i := range sel {
		o, err := s.offset(out[i], srcs[k])
		if err != nil {
			return err
		}
		rows[k] = s.physPrefix[srcs[k]] + uint64(o)
	}
	res := make([]rowmap.Translation, len(rows))
	if err := s.lookup(rows, res, st); err != nil {
		return fmt.Errorf("fragreuse: version %d: %w", s.version, err)
	}
	for k, i := range sel {
		if r := res[k]; r.Deleted {
			out[i], live[i] = DeletedAddr, false
		} else {
			out[i] = uint64(rowid.NewAddress(s.destIDs[r.Dest], r.Offset))
		}
	}
	return nil
}

// errStop ends a sweep once every request is answered; errPast ends it at
// a request past the map's rows (reported with the row by the caller).
var (
	errStop = errors.New("stop")
	errPast = errors.New("past the end")
)

// lookup translates rows: one sweep when they are dense — in row order
// when they are sorted, through block-grouped keys when not (an index
// probe's answers come in key order) — else TranslateMany's point and
// per-block paths.
func (s *partitionStep) lookup(rows []uint64, res []rowmap.Translation, st *stats) error {
	n := len(rows)
	if n < sweepMin {
		return s.points(rows, res, st)
	}
	lo, hi := slices.Min(rows), slices.Max(rows)
	if uint64(n)*sweepDensity < hi-lo+1 {
		return s.points(rows, res, st)
	}
	bs := uint64(s.rm.Counts().BlockSize())
	if st != nil {
		st.rowmapSwept += int64(n)
	}
	if slices.IsSorted(rows) {
		return s.sweepSorted(rows, res, lo/bs, st)
	}
	kl := keyLayout{loBlock: lo / bs, bs: bs, blockBits: uint(bits.Len64(hi/bs - lo/bs)), offBits: uint(bits.Len64(bs - 1)), posBits: uint(bits.Len64(uint64(n - 1)))}
	if kl.blockBits+kl.offBits+kl.posBits > 64 {
		return s.points(rows, res, st) // too wide for one key a row (no real map is)
	}
	return s.sweepKeys(kl.keys(rows), res, kl, st)
}

// points translates rows through TranslateMany (point lookups, partial
// sweeps per block), counting the distinct blocks it reads.
func (s *partitionStep) points(rows []uint64, res []rowmap.Translation, st *stats) error {
	if st != nil {
		st.rowmapPoint += int64(len(rows))
		bs := uint64(s.rm.Counts().BlockSize())
		seen := make([]uint64, s.rm.Counts().NumBlocks()/64+1)
		for _, r := range rows {
			if b := r / bs; b/64 < uint64(len(seen)) && seen[b/64]&(1<<(b%64)) == 0 {
				seen[b/64] |= 1 << (b % 64)
				st.rowmapBlocks++
			}
		}
	}
	return s.rm.TranslateMany(rows, res)
}

// sweepSorted answers ascending rows with one sweep from block first.
func (s *partitionStep) sweepSorted(rows []uint64, res []rowmap.Translation, first uint64, st *stats) error {
	k, n := 0, len(rows)
	err := s.rm.SweepBlocks(int(first), func(start uint64, labels, offsets []uint32) error {
		if st != nil {
			st.rowmapBlocks++
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
		return errorf(ErrInvalidArgument, "row %d is past the rowmap's %d rows", rows[k], s.rm.NumRows())
	}
	return nil
}

// answer is the translation of row p of a swept block.
func answer(labels, offsets []uint32, p uint64) rowmap.Translation {
	if l := labels[p]; l != rowmap.NullLabel {
		return rowmap.Translation{Dest: uint16(l), Offset: offsets[p]}
	}
	return rowmap.Translation{Deleted: true}
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
	for i, r := range rows {
		keys[i] = ((r/kl.bs-kl.loBlock)<<kl.offBits|r%kl.bs)<<kl.posBits | uint64(i)
	}
	radix.SortKeys(keys, kl.offBits+kl.posBits, kl.blockBits+kl.offBits+kl.posBits)
	return keys
}

// sweepKeys answers the rows behind keys (see keyLayout.keys) with one
// sweep from the first one's block, straight into res.
func (s *partitionStep) sweepKeys(keys []uint64, res []rowmap.Translation, kl keyLayout, st *stats) error {
	k, n := 0, len(keys)
	blockShift, offMask, posMask := kl.offBits+kl.posBits, uint64(1)<<kl.offBits-1, uint64(1)<<kl.posBits-1
	err := s.rm.SweepBlocks(int(kl.loBlock), func(start uint64, labels, offsets []uint32) error {
		if st != nil {
			st.rowmapBlocks++
		}
		blk := start/kl.bs - kl.loBlock
		for ; k < n && keys[k]>>blockShift == blk; k++ {
			p, i := keys[k]>>kl.posBits&offMask, keys[k]&posMask
			if p >= uint64(len(labels)) {
				return errPast // in the short last block, past its rows
			}
			res[i] = answer(labels, offsets, p)
		}
		if k == n {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) && !errors.Is(err, errPast) {
		return err
	}
	if k != n {
		row := (keys[k]>>blockShift+kl.loBlock)*kl.bs + keys[k]>>kl.posBits&offMask
		return errorf(ErrInvalidArgument, "row %d is past the rowmap's %d rows", row, s.rm.NumRows())
	}
	return nil
}

func (s *partitionStep) memoryBytes() int {
	c := s.rm.Counts()
	return s.sourceTable.memoryBytes() + len(s.physPrefix)*8 + len(s.destIDs)*8 +
		c.NumBlocks()*c.NumDestinations()*4 + (c.NumBlocks()+1)*8
}

func (s *partitionStep) close() error {
	if s.r == nil {
		return nil
	}
	return s.r.Close()
}
