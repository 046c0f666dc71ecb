// Package s3store is a store.Store over an S3 bucket prefix (AWS SDK for Go
// v2), selected by a location "s3://bucket/prefix".
//
// Configuration comes only from the standard AWS chain: environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL,
// AWS_PROFILE...) and the shared config files. Path-style addressing is
// used automatically for an endpoint that is an IP address or localhost,
// and wherever AWS_S3_FORCE_PATH_STYLE=true.
//
// Commits: PutIfAbsent is a PutObject with "If-None-Match: *"; a lost race
// (412 PreconditionFailed, or 409 ConditionalRequestConflict for two
// concurrent conditional writes) is store.ErrExists, the same error a local
// directory gives, so the table layer's retry path is unchanged. Nothing
// relies on list-after-write. A refused conditional write is read back:
// when the object holds our exact bytes, the first attempt landed and only
// its answer was lost before the SDK retried, so the commit is ours.
//
// Reads are byte ranges. Open issues one HEAD and pins the object's
// identity (ETag and size); every ranged GET of the Reader carries
// If-Match with that ETag, so a Reader never mixes two versions of an
// object. ReadRanges (store.RangeReader) merges ranges whose gap is below
// Options.CoalesceGap and fetches the merged groups in parallel, at most
// Options.Parallelism at a time:
//
//	ranges ──sort──▶ coalesce(gap) ──▶ groups ──errgroup(limit)──▶ GET Range ──slice──▶ results
//
// Reads are done in aligned blocks of Options.BlockSize, cached under
// (path, ETag, size, off, len): an immutable identity, so a cached block is
// never stale. The cache is Options.Cache, shared and bounded by bytes, or
// else a small private one per Reader, which turns the many small reads of
// an Arrow IPC reader into one GET per block.
//
// OpenKnown (store.KnownOpener) opens an immutable object whose size and
// content id the caller's manifest records: no HEAD, and its cached blocks
// are keyed by that content id. The table opens its data files so, and a
// take fetches the spans of the batches it decodes in one ReadRanges of
// the Reader (store.MultiRangeReader).
//
// A database is a prefix whose tables are sub-prefixes: Sub returns a
// table's store (same client and cache, no request), ListDirs the
// sub-prefixes (one delimited listing), Empty whether anything lies under
// the prefix. The engine opens "s3://bucket/prefix" with them.
//
// A conditional write refused with 412 whose object then cannot be read is
// ErrGhost: the server kept part of a write it never completed (Versity
// Gateway's posix backend killed mid-PUT does), and every later write of
// that path would collide with it.
//
// Throttling (503 SlowDown, 429) and 5xx answers are retried by the SDK's
// standard retryer (exponential backoff with full jitter, capped at
// Options.MaxBackoff) for up to Options.MaxAttempts attempts. Every call
// honours its context.
package s3store
