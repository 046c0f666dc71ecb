package fragreuse

import (
	"context"
	"errors"
	"fmt"
	"slices"

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
			return nil, rowMapErr(tr, "map", err)
		}
		rms = rowmap.BytesSource(b.Data)
	} else {
		if s.r, err = st.Open(ctx, tr.RowMap); err != nil {
			return nil, rowMapErr(tr, "open", err)
		}
		rms = s.r
	}
	fail := func(err error) (*partitionStep, error) {
		s.close()
		return nil, err
	}
	if s.rm, err = rowmap.OpenNamed(rms, tr.RowMap); err != nil {
		return fail(fmt.Errorf("%w: %w", ErrCorrupt, err))
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

// lookup translates rows through the rowmap, which picks a sweep or point
// lookups by their density (rowmap.Reader.TranslateBatch).
func (s *partitionStep) lookup(rows []uint64, res []rowmap.Translation, st *stats) error {
	if st == nil {
		return s.rm.TranslateBatch(rows, res, nil)
	}
	var bs rowmap.BatchStats
	err := s.rm.TranslateBatch(rows, res, &bs)
	st.rowmapSwept += bs.Swept
	st.rowmapPoint += bs.Point
	st.rowmapBlocks += bs.Blocks
	return err
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

// rowMapErr wraps a store error on tr's row map. A row map a version's
// history records that is not there is also ErrCorrupt naming it.
func rowMapErr(tr *table.Transition, op string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: rowmap %s of version %d is missing (%s: %w)", ErrCorrupt, tr.RowMap, tr.Version, op, err)
	}
	return fmt.Errorf("fragreuse: %s rowmap %s of version %d: %w", op, tr.RowMap, tr.Version, err)
}
