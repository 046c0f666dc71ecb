// Package btree is a paged BTree scalar index: entries (key, row address)
// sorted by key then address, cut into pages of PageRows entries, with a
// small page lookup (min, max, null count, location per page) that is read
// once at Open. Pages are read on demand and kept in a byte-bounded
// PageCache shared by all indexes of a process.
//
// Any orderable column can be indexed: int64, uint64, float64 and string
// keys, and int32, int16, date32, timestamp[us] and boolean (mapped into
// the int64 domain), float32 (into float64's) and decimal128 (a 16-byte
// order-preserving string). A composite index (TrainKeys) keys entries by
// several such columns, each ASC or DESC with NULLs first or last, as one
// order-preserving byte string (composite.go), and answers equality on a
// prefix of its columns with a range on the next (SearchPrefix). `_rowid` is just a uint64 column the fragment reader serves, so an
// index on it is built with TrainFrom like any other and needs no special
// code; LookupUint64 is only a fast path that skips the Arrow array.
//
// # Searches
//
// SearchEqual, SearchRange, SearchIn and SearchIsNull return sets of
// addresses (roaring64 bitmaps). Lookup is the ordered probe a take-by-key
// needs: for each input key, in input order and with duplicates kept, its
// address and a found flag, plus the positions whose key has more than one
// entry (the caller's uniqueness check). The keys are radix-sorted, each
// needed page is read once (adjacent cache misses in one range read), and
// the answers are scattered back to input order.
//
//	ix, err := btree.TrainFrom(ctx, st, "_indices/6f1c.../", table, "_rowid", btree.Options{})
//	res, err := ix.LookupUint64(ctx, []uint64{42, 7, 42})
//	// res.Addrs[i], res.Found[i] per input position; res.Multi lists duplicates in the index
//
// # Building and maintenance
//
// Train reads (key, address) batches. It checks whether they arrive in
// (key, address) order and sorts only if they do not: trusting an unsorted
// row-id sequence would silently produce wrong page bounds. Files are
// immutable; Update (add the rows of new fragments, merging with the old
// entries) and Remap (addresses through a translation, dead rows dropped,
// pages and lookup rebuilt) write a new index under a new prefix. Each index
// records the fragments it covers and the dataset version (Meta).
//
// # Encodings
//
// Numeric keys are mapped to order-preserving uint64s (int64: sign bit
// flipped; float64: the usual sign-magnitude flip, -0 folded into +0).
// Integer key sequences and both halves of the addresses (fragment id and
// offset) are stored frame-of-reference bit-packed, or as runs of
// consecutive values (or of equal ones) when that is smaller, so an
// append-only `_rowid` index is a few bytes per page and a shuffled one is
// about ceil(log2 fragments) + ceil(log2 rows per fragment) bits per row
// (both halves then share one bit-packed word stream, so an address costs
// one memory access). Decoded pages keep that packed form and are searched
// in place; the cache holds about the on-disk bytes. String keys are front coded. Null keys
// sort first, in pages of their own. format.go and page.go describe the
// bytes; every page and the lookup carry a CRC32C and every decode failure
// wraps ErrCorrupt (ErrFormat for a bad magic or version).
package btree
