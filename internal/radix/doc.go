// Package radix sorts uint64 keys by a range of their bits, stably, with an
// LSD radix sort: the shared kernel of the sorts that put positions in
// storage order (a take's addresses, a row map's requested rows).
//
// Callers pack what they sort into one key — the sort field compacted into
// only the bits it needs, above the original position — so that every pass
// reads and writes keys sequentially instead of loading the field through
// the position, and ties keep position order for free.
package radix
