package fragreuse

import (
	"cmp"
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

func (s *partitionStep) translate(out []uint64, live []bool, sel, srcs []int32) error {
	rows := make([]uint64, len(sel))
	for k, i := range sel {
		o, err := s.offset(out[i], srcs[k])
		if err != nil {
			return err
		}
		rows[k] = s.physPrefix[srcs[k]] + uint64(o)
	}
	res := make([]rowmap.Translation, len(rows))
	if err := s.lookup(rows, res); err != nil {
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

var errStop = errors.New("stop")

// lookup translates rows: one sweep when they are dense (sorted, or
// grouped by block first when they are not: an index probe's answers come
// in key order), else TranslateMany's point and per-block paths.
func (s *partitionStep) lookup(rows []uint64, res []rowmap.Translation) error {
	n := len(rows)
	if n < sweepMin {
		return s.rm.TranslateMany(rows, res)
	}
	lo, hi := rows[0], rows[n-1]
	sorted := slices.IsSorted(rows)
	if !sorted {
		lo, hi = slices.Min(rows), slices.Max(rows)
	}
	if uint64(n)*sweepDensity < hi-lo+1 {
		return s.rm.TranslateMany(rows, res)
	}
	var perm []int32 // nil: rows are in order already
	bs := uint64(s.rm.Counts().BlockSize())
	if !sorted {
		perm = blockPerm(rows, lo/bs, hi/bs, bs)
	}
	return s.sweepRows(rows, perm, res, lo/bs)
}

// sweepRows translates rows with one sweep from block first, visiting them
// in perm's order (grouped by ascending block, any order within one; nil
// for rows already ascending) and answering each straight into res.
func (s *partitionStep) sweepRows(rows []uint64, perm []int32, res []rowmap.Translation, first uint64) error {
	k, n := 0, len(rows)
	err := s.rm.SweepBlocks(int(first), func(start uint64, labels, offsets []uint32) error {
		end := start + uint64(len(labels))
		for ; k < n; k++ {
			i := k
			if perm != nil {
				i = int(perm[k])
			}
			r := rows[i]
			if r >= end {
				break
			}
			if l := labels[r-start]; l == rowmap.NullLabel {
				res[i] = rowmap.Translation{Deleted: true}
			} else {
				res[i] = rowmap.Translation{Dest: uint16(l), Offset: offsets[r-start]}
			}
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
		i := k
		if perm != nil {
			i = int(perm[k])
		}
		return errorf(ErrInvalidArgument, "row %d is past the rowmap's %d rows", rows[i], s.rm.NumRows())
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

// blockPerm returns the positions of rows grouped by block (rows/bs, from
// loBlock to hiBlock) in ascending block order, positions ascending within
// a block. Each row becomes one key, its block less loBlock above its
// position, and radix.SortKeys sorts by the block bits only: a sweep needs
// no more order than that, and a 10M-row map's 153 blocks are one 8-bit
// pass. (A full sort of (row, position) pairs with 16-bit digits, then a
// sorted copy and a scatter back, cost ~3× as much per 1M rows.) Too many
// blocks to share a key with the position take a comparison sort.
func blockPerm(rows []uint64, loBlock, hiBlock, bs uint64) []int32 {
	blockBits, posBits := uint(bits.Len64(hiBlock-loBlock)), uint(bits.Len64(uint64(len(rows)-1)))
	perm := make([]int32, len(rows))
	if blockBits+posBits > 64 {
		for i := range perm {
			perm[i] = int32(i)
		}
		slices.SortStableFunc(perm, func(a, b int32) int { return cmp.Compare(rows[a]/bs, rows[b]/bs) })
		return perm
	}
	keys := make([]uint64, len(rows))
	for i, r := range rows {
		keys[i] = (r/bs-loBlock)<<posBits | uint64(i)
	}
	radix.SortKeys(keys, posBits, posBits+blockBits)
	for k, key := range keys {
		perm[k] = int32(key & (1<<posBits - 1))
	}
	return perm
}
