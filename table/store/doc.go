// Package store is the object-store seam of a stablerow table.
//
// Every byte a table reads or writes goes through a Store: whole reads, range
// reads, atomic overwrites and the atomic put-if-absent that makes a manifest
// commit safe against a concurrent writer. Two implementations ship: Local,
// the embedded default over a directory, and Memory, for tests. An object
// store (S3, GCS) can be plugged in later behind the same interface.
//
//	st, err := store.NewLocal("/data/t")
//	if err != nil { ... }
//	err = st.PutIfAbsent(ctx, "_versions/00000000000000000001.manifest", b)
//	if errors.Is(err, store.ErrExists) { /* somebody else committed version 1 */ }
package store
