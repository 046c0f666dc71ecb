// Package deletion holds per-fragment deletion vectors: the set of deleted
// physical row offsets of one fragment, kept as a roaring bitmap.
//
// A nil *Vector means "no deletions" and every method is nil-safe, so callers
// never need a special case for untouched fragments. Vectors are immutable:
// Union returns a new vector and leaves its inputs alone.
//
// Example:
//
//	dv := deletion.New(3, 7)
//	dv = dv.Union(deletion.New(9))
//	b, _ := dv.MarshalBinary()
//	back, err := deletion.UnmarshalVector(b)
//	if err != nil { /* errors.Is(err, deletion.ErrCorrupt) */ }
//	_ = back.Contains(7) // true
//
// Unlike Lance, a vector that fails to decode is reported as ErrCorrupt and
// never silently treated as "no deletions".
package deletion
