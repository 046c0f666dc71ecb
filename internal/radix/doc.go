// Package radix is the module's one radix sort of uint64 keys: stable LSD
// sorts, the shared kernel of the sorts that put positions in storage
// order (a take's addresses, a row map's requested rows, a bulk take's
// fragments) and of the index's batched probe and build.
//
// Two entry points, for two ways of holding what is sorted:
//
//   - SortKeys sorts packed keys by a range of their bits. Callers pack
//     what they sort into one key — the sort field compacted into only the
//     bits it needs, above the original position — so that every pass
//     reads and writes keys sequentially instead of loading the field
//     through the position, and ties keep position order for free.
//   - SortKeyed sorts full 64-bit keys with a payload moved along (a
//     probe's keys with their input positions, an index's keys with their
//     addresses), where key and payload do not fit one word; SortPairs
//     orders (key, value) pairs with it.
package radix
