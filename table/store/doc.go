// Package store is the object-store seam of a stablerow table.
//
// Every byte a table reads or writes goes through a Store: whole reads, range
// reads, atomic overwrites and the atomic put-if-absent that makes a manifest
// commit safe against a concurrent writer. Local is the embedded default
// over a directory, Memory is for tests, and s3store is S3 (selected by a
// location "s3://bucket/prefix": ParseURI decides, once, whether a location
// is local, so a remote one never falls back to a path). Object stores also
// implement RangeReader, MultiRangeReader and KnownOpener, which let the
// table ask for many ranges at once and open an immutable file without a
// request.
//
//	st, err := store.NewLocal("/data/t")
//	if err != nil { ... }
//	err = st.PutIfAbsent(ctx, "_versions/00000000000000000001.manifest", b)
//	if errors.Is(err, store.ErrExists) { /* somebody else committed version 1 */ }
package store
