package access

import (
	"cmp"
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
				lastAddr, lastOK = liveAddr(c.f, id)
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

// liveAddr is the address of id's row in f when f holds id and the row is
// live.
func liveAddr(f *table.Fragment, id uint64) (uint64, bool) {
	if off, ok := f.RowIDs.Position(id); ok && off <= math.MaxUint32 && f.IsLive(uint32(off)) {
		return uint64(rowid.NewAddress(f.ID, uint32(off))), true
	}
	return 0, false
}

// SearchRowIDs is RowIDSearch run whole, for a caller that wants every
// answer at once (the bulk take): emit(pos[i], addr) per live row of
// ids[i] in fragments, in input order. It does not sort the ids: the
// streaming search sorts so that it can stop and resume fragment by
// fragment, and for a million ids that sort was a third of PlanTake's
// time (BENCHMARKS.md, issue 27). Each id is looked up in the fragments
// whose id range holds it, found by binary search over the ranges sorted
// by their low end and a running maximum of their high ends, so ranges
// that overlap (rows an update moved keep their ids) are all searched and
// a second live row still reaches the caller's uniqueness check.
func SearchRowIDs(t *table.Table, fragments []uint32, ids []uint64, pos []int32, emit func(pos int32, addr uint64)) {
	type span struct {
		f      *table.Fragment
		lo, hi uint64
	}
	m := t.Manifest()
	spans := make([]span, 0, len(fragments))
	for _, id := range fragments {
		f := m.Fragment(id)
		if f == nil || f.LiveRows() == 0 {
			continue
		}
		if lo, hi, ok := f.RowIDs.MinMax(); ok {
			spans = append(spans, span{f, lo, hi})
		}
	}
	if len(spans) == 0 {
		return
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	los := make([]uint64, len(spans))
	maxHi := make([]uint64, len(spans)) // maxHi[k]: the highest hi of spans[:k+1]
	for k, s := range spans {
		los[k] = s.lo
		maxHi[k] = s.hi
		if k > 0 {
			maxHi[k] = max(maxHi[k], maxHi[k-1])
		}
	}
	for i, id := range ids {
		// spans[:j] start at or below id; walk down while one of them can
		// still reach it.
		j := upperBound(los, id)
		for k := j - 1; k >= 0 && maxHi[k] >= id; k-- {
			if spans[k].hi < id {
				continue
			}
			if a, ok := liveAddr(spans[k].f, id); ok {
				emit(pos[i], a)
			}
		}
	}
}

// upperBound is the number of v's leading elements at or below x (v
// sorted), a plain loop: the generic BinarySearchFunc's comparison call
// per step was half of SearchRowIDs' time.
func upperBound(v []uint64, x uint64) int {
	lo, hi := 0, len(v)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if v[m] <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
