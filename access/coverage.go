package access

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
)

// State is the coverage state of a fragment or of an answered address (see
// the package documentation).
type State uint8

const (
	NotCovered State = iota // outside the index: the fallback searches it
	Covered                 // in the index's fragment_bitmap
	Derived                 // reached through the fragment reuse history
	Deleted                 // an answered address whose row is not live
)

func (s State) String() string {
	switch s {
	case Covered:
		return "covered"
	case Derived:
		return "derived"
	case Deleted:
		return "deleted"
	}
	return "not covered"
}

// Coverage is an index's coverage in one snapshot. It is immutable and
// safe for concurrent use.
type Coverage struct {
	frag  []State           // by fragment id; NotCovered past the end
	live  []*table.Fragment // by fragment id; nil for ids not in the snapshot
	phys  []uint64          // by fragment id: physical rows of Covered and Derived fragments, else 0
	dense [][]uint64        // per answering fragment with deletions: a bit per offset, set when live
	n     uint64            // fragments the index answers for (Covered + Derived)
}

// NewCoverage computes meta's coverage in snapshot t: its fragment_bitmap,
// widened by derived, the coverage derived through the fragment reuse
// history (derivedCoverage; nil when no rewrite happened since the build).
func NewCoverage(t *table.Table, meta *table.IndexMeta, derived *roaring.Bitmap) *Coverage {
	m := t.Manifest()
	c := &Coverage{frag: make([]State, m.NextFragmentID), live: make([]*table.Fragment, m.NextFragmentID),
		phys: make([]uint64, m.NextFragmentID), dense: make([][]uint64, m.NextFragmentID)}
	for _, f := range m.Fragments {
		if int(f.ID) >= len(c.frag) {
			continue
		}
		c.live[f.ID] = f
		switch {
		case meta.Fragments != nil && meta.Fragments.Contains(f.ID):
			c.frag[f.ID] = Covered
		case derived != nil && derived.Contains(f.ID):
			c.frag[f.ID] = Derived
		default:
			continue
		}
		c.n++
		c.phys[f.ID] = f.PhysicalRows
		if f.Deletions.Cardinality() > 0 {
			// Every fragment with deletions gets the dense bitmap (a bit a
			// row, built once per snapshot): Valid is then a word read.
			c.dense[f.ID] = denseLive(f)
		}
	}
	return c
}

// denseLive returns a bitmap of f's live offsets.
func denseLive(f *table.Fragment) []uint64 {
	words := make([]uint64, (f.PhysicalRows+63)/64)
	for i := range words {
		words[i] = ^uint64(0)
	}
	if r := f.PhysicalRows % 64; r != 0 {
		words[len(words)-1] = 1<<r - 1
	}
	for _, off := range f.Deletions.Offsets() {
		if uint64(off) < f.PhysicalRows {
			words[off/64] &^= 1 << (off % 64)
		}
	}
	return words
}

// Fragment returns the state of fragment id: Covered, Derived or
// NotCovered.
func (c *Coverage) Fragment(id uint32) State {
	if int(id) >= len(c.frag) {
		return NotCovered
	}
	return c.frag[id]
}

// Addr returns the state of an address the index answered (translated
// through the history when the index predates rewrites): Covered or
// Derived when its row is live in a fragment the index answers for,
// Deleted when that row is not live, NotCovered when the fragment is not
// the index's.
func (c *Coverage) Addr(a uint64) State {
	ad := rowid.Address(a)
	id := ad.Fragment()
	s := c.Fragment(id)
	if s == NotCovered {
		return s
	}
	if !c.isLive(id, ad.Offset()) {
		return Deleted
	}
	return s
}

// isLive reports whether offset off of an answering fragment holds a live
// row (false for fragments the index does not answer for).
func (c *Coverage) isLive(id, off uint32) bool {
	if int(id) >= len(c.phys) || uint64(off) >= c.phys[id] {
		return false
	}
	d := c.dense[id]
	return d == nil || d[off/64]&(1<<(off%64)) != 0
}

// Valid sets ok[i] to whether addrs[i] is Covered or Derived (live, and
// the index's to answer).
func (c *Coverage) Valid(addrs []uint64, ok []bool) {
	for i, a := range addrs {
		ok[i] = c.isLive(uint32(a>>32), uint32(a))
	}
}

// Uncovered lists the snapshot's fragments in state NotCovered, ascending.
func (c *Coverage) Uncovered() []uint32 {
	var out []uint32
	for id, f := range c.live {
		if f != nil && c.frag[id] == NotCovered {
			out = append(out, uint32(id))
		}
	}
	return out
}

// Fragments is the number of fragments the index answers for.
func (c *Coverage) Fragments() uint64 { return c.n }
