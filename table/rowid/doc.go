// Package rowid holds stable row ids: the Address of a physical row and the
// Sequence of row ids stored by each fragment.
//
// A Sequence lists a fragment's ids in physical-offset order as segments
// (Range, RangeWithHoles, RangeWithBitmap, SortedArray, Array). NewSequence
// picks the smallest encoding per ascending run. Unlike Lance, every lookup
// is logarithmic: Get on holes binary-searches "value − holes before", the
// bitmap keeps a rank directory (one count per 512 bits), and Array builds a
// sorted permutation once for Position.
//
// Example:
//
//	seq := rowid.NewRange(1000, 2000)             // 16 bytes encoded
//	seq = seq.Select([]uint64{0, 1, 5, 999})      // re-encoded after deletes
//	id, _ := seq.Get(2)                           // 1005
//	off, _ := seq.Position(1999)                  // 3
//	b, _ := seq.MarshalBinary()
//	back, err := rowid.UnmarshalSequence(b)       // errors.Is(err, rowid.ErrCorrupt) on bad input
//	addr := rowid.NewAddress(12, 345)             // addr.String() == "f12:345"
package rowid
