package deletion

import "github.com/RoaringBitmap/roaring/v2"

// Vector is the immutable set of deleted physical offsets of one fragment.
// A nil *Vector means no deletions.
type Vector struct {
	bm *roaring.Bitmap // never mutated after construction; nil or non-empty
}

// New returns a vector holding offsets (duplicates are fine). With no
// offsets it returns nil, the canonical "no deletions" vector.
func New(offsets ...uint32) *Vector {
	if len(offsets) == 0 {
		return nil
	}
	bm := roaring.BitmapOf(offsets...)
	bm.RunOptimize()
	return &Vector{bm: bm}
}

// FromBitmap returns a vector over a copy of bm (nil or empty gives nil).
func FromBitmap(bm *roaring.Bitmap) *Vector {
	if bm == nil || bm.IsEmpty() {
		return nil
	}
	c := bm.Clone()
	c.RunOptimize()
	return &Vector{bm: c}
}

// Contains reports whether off is deleted.
func (v *Vector) Contains(off uint32) bool {
	return v != nil && v.bm != nil && v.bm.Contains(off)
}

// Cardinality is the number of deleted offsets.
func (v *Vector) Cardinality() uint64 {
	if v == nil || v.bm == nil {
		return 0
	}
	return v.bm.GetCardinality()
}

// IsEmpty reports whether the vector deletes nothing.
func (v *Vector) IsEmpty() bool { return v.Cardinality() == 0 }

// Offsets returns the deleted offsets in ascending order (nil when none).
func (v *Vector) Offsets() []uint32 {
	if v == nil || v.bm == nil || v.bm.IsEmpty() {
		return nil
	}
	return v.bm.ToArray()
}

// Union returns a new vector with the offsets of both; inputs are unchanged.
func (v *Vector) Union(o *Vector) *Vector {
	switch {
	case v.IsEmpty() && o.IsEmpty():
		return nil
	case o.IsEmpty():
		return v // immutable: sharing is safe
	case v.IsEmpty():
		return o
	}
	bm := roaring.Or(v.bm, o.bm)
	bm.RunOptimize()
	return &Vector{bm: bm}
}

// Bitmap returns a read-only view of the underlying bitmap (nil when there
// are no deletions). Callers must not modify it; Clone it first.
func (v *Vector) Bitmap() *roaring.Bitmap {
	if v == nil {
		return nil
	}
	return v.bm
}

// Equal reports whether both vectors delete the same offsets.
func (v *Vector) Equal(o *Vector) bool {
	if v.IsEmpty() || o.IsEmpty() {
		return v.IsEmpty() == o.IsEmpty()
	}
	return v.bm.Equals(o.bm)
}
