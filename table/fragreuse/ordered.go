package fragreuse

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
)

// orderedStep translates an order-preserving rewrite by rank: the live row
// at offset o of source s is row livePrefix[s] + o - rank_s(o) of the
// concatenated destinations.
type orderedStep struct {
	sourceTable
	dels       []*roaring.Bitmap // source deletion vectors (nil: none)
	livePrefix []uint64
	destStart  []uint64 // len(dests)+1 cumulative row counts
	destIDs    []uint32
}

func newOrdered(tr *table.Transition) (*orderedStep, error) {
	st, err := newSourceTable(tr)
	if err != nil {
		return nil, err
	}
	s := &orderedStep{sourceTable: st, dels: make([]*roaring.Bitmap, len(tr.Sources)), livePrefix: make([]uint64, len(tr.Sources))}
	var live uint64
	for i := range tr.Sources {
		src := &tr.Sources[i]
		s.dels[i] = src.Deletions.Bitmap()
		s.livePrefix[i] = live
		live += src.LiveRows()
	}
	s.destStart = make([]uint64, len(tr.Destinations)+1)
	s.destIDs = make([]uint32, len(tr.Destinations))
	for j, d := range tr.Destinations {
		s.destStart[j+1] = s.destStart[j] + d.Rows
		s.destIDs[j] = d.Fragment
	}
	if s.destStart[len(tr.Destinations)] != live {
		return nil, errorf(ErrCorrupt, "version %d: destinations hold %d rows, sources %d live", tr.Version, s.destStart[len(tr.Destinations)], live)
	}
	return s, nil
}

func (s *orderedStep) translate(out []uint64, live []bool, sel, srcs []int32, st *stats) error {
	if sortedAt(out, sel) {
		if st != nil {
			st.orderedSwept += int64(len(sel))
		}
		return s.sweep(out, live, sel, srcs)
	}
	if st != nil {
		st.orderedPoint += int64(len(sel))
	}
	for k, i := range sel {
		src := srcs[k]
		o, err := s.offset(out[i], src)
		if err != nil {
			return err
		}
		p := s.livePrefix[src] + uint64(o)
		if d := s.dels[src]; d != nil {
			if d.Contains(o) {
				out[i], live[i] = DeletedAddr, false
				continue
			}
			p -= d.Rank(o)
		}
		// The destination whose row range holds p.
		j, _ := slices.BinarySearch(s.destStart, p+1)
		out[i] = s.dest(j-1, p)
	}
	return nil
}

func (s *orderedStep) dest(j int, p uint64) uint64 {
	return uint64(rowid.NewAddress(s.destIDs[j], uint32(p-s.destStart[j])))
}

// sortedAt reports whether out[sel[k]] is non-decreasing in k.
func sortedAt(out []uint64, sel []int32) bool {
	for k := 1; k < len(sel); k++ {
		if out[sel[k]] < out[sel[k-1]] {
			return false
		}
	}
	return true
}

// sweep translates addresses in ascending order: the deletion rank and
// the destination advance with them, so the cost is one step per address
// plus one per deletion passed, with no rank or search per address.
func (s *orderedStep) sweep(out []uint64, live []bool, sel, srcs []int32) error {
	cur := int32(-1)
	var it roaring.IntPeekable
	var rank uint64
	j := 0
	for k, i := range sel {
		src := srcs[k]
		o, err := s.offset(out[i], src)
		if err != nil {
			return err
		}
		if src != cur {
			cur, rank, it = src, 0, nil
			if d := s.dels[src]; d != nil {
				it = d.Iterator()
			}
			j, _ = slices.BinarySearch(s.destStart, s.livePrefix[src]+1)
			j--
		}
		if it != nil {
			for it.HasNext() && it.PeekNext() < o {
				it.Next()
				rank++
			}
			if it.HasNext() && it.PeekNext() == o {
				out[i], live[i] = DeletedAddr, false
				continue
			}
		}
		p := s.livePrefix[src] + uint64(o) - rank
		for s.destStart[j+1] <= p {
			j++
		}
		out[i] = s.dest(j, p)
	}
	return nil
}

func (s *orderedStep) memoryBytes() int {
	n := s.sourceTable.memoryBytes() + len(s.livePrefix)*8 + len(s.destStart)*8 + len(s.destIDs)*4
	for _, d := range s.dels {
		if d != nil {
			n += int(d.GetSizeInBytes())
		}
	}
	return n
}

func (s *orderedStep) close() error { return nil }
