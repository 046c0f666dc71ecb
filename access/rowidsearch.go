package access

import (
	"math"
	"slices"

	"github.com/stablerow/stablerow/internal/radix"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
)

// RowIDSearch is the fallback step of a resolution for _rowid keys: it
// finds the live rows of wanted row ids in some fragments (those an index
// does not cover) through the fragments' row id sequences, which the
// manifest holds and which are an exact index: no data is read. Each
// fragment whose id range can hold a wanted id is searched by arithmetic
// on ranges and binary search on arrays, once per distinct id. exec's
// UnindexedFallbackScan runs it for a probe batch, a batch of pairs at a
// time; the bulk take runs it whole.
//
//	┌──────┐ sort wanted ids (radix)  ┌────────────┐ candidate by candidate ┌──────┐
//	│ new  │─────────────────────────>│ candidates │───────────────────────>│ Next │──> (probe row, address)
//	└──────┘ keep fragments whose     └────────────┘ (resumable: stops      └──────┘    per live row
//	         id range holds any                       when the caller is full)
type RowIDSearch struct {
	ids   []uint64 // wanted, sorted (ties in probe row order)
	pos   []int32  // ids[i]'s probe row
	cands []candidate
	ci, k int // cursor: candidate, wanted entry
}

// candidate is a fragment with the wanted ids ids[lo:hi] in its id range.
type candidate struct {
	f      *table.Fragment
	lo, hi int
}

// NewRowIDSearch searches snapshot t's fragments for ids, whose probe rows
// are pos; it sorts both in place and keeps them.
func NewRowIDSearch(t *table.Table, fragments []uint32, ids []uint64, pos []int32) *RowIDSearch {
	s := &RowIDSearch{ids: ids, pos: pos}
	radix.SortKeyed(ids, pos) // stable: equal ids keep probe row order
	m := t.Manifest()
	for _, id := range fragments {
		f := m.Fragment(id)
		if f == nil || f.LiveRows() == 0 {
			continue
		}
		lo, hi, ok := f.RowIDs.MinMax()
		if !ok {
			continue
		}
		a, _ := slices.BinarySearch(ids, lo)
		b := len(ids)
		if hi != math.MaxUint64 {
			b, _ = slices.BinarySearch(ids, hi+1)
		}
		if a < b {
			s.cands = append(s.cands, candidate{f: f, lo: a, hi: b})
		}
	}
	if len(s.cands) > 0 {
		s.k = s.cands[0].lo
	}
	return s
}

// Fragments is the number of fragments searched: those whose id range
// can hold a wanted id.
func (s *RowIDSearch) Fragments() int { return len(s.cands) }

// Next hands emit a (probe row, address) pair per live row found, until
// full reports true (checked before each wanted id) or every candidate is
// searched; done says which. lookups counts the sequence lookups made (a
// run of equal ids is one).
func (s *RowIDSearch) Next(emit func(pos int32, addr uint64), full func() bool) (done bool, lookups int64) {
	for s.ci < len(s.cands) {
		c := s.cands[s.ci]
		var last, lastAddr uint64
		lastOK, have := false, false
		for ; s.k < c.hi; s.k++ {
			if full() {
				return false, lookups
			}
			id := s.ids[s.k]
			if !have || id != last {
				lookups++
				last, have, lastOK = id, true, false
				if off, ok := c.f.RowIDs.Position(id); ok && off <= math.MaxUint32 && c.f.IsLive(uint32(off)) {
					lastAddr, lastOK = uint64(rowid.NewAddress(c.f.ID, uint32(off))), true
				}
			}
			if lastOK {
				emit(s.pos[s.k], lastAddr)
			}
		}
		s.ci++
		if s.ci < len(s.cands) {
			s.k = s.cands[s.ci].lo
		}
	}
	return true, lookups
}
