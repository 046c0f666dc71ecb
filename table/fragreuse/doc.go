// Package fragreuse translates row addresses recorded before rewrites
// (compactions, reclusters that deferred their index remap) into the
// addresses the same rows have now.
//
// A History is built from the table's transitions newer than an index's
// DatasetVersion and applied oldest first. Each transition translates the
// addresses that fall into its sources; every other address passes through
// unchanged:
//
//   - ordered (compaction): the destinations, concatenated, hold the live
//     source rows in source order, so a live row's destination position is
//     its source's live-row prefix plus its offset minus the deletions
//     before it (a rank over the source deletion vector). Memory is
//     O(fragments) plus the deletion vectors; there is no per-row map (the
//     per-row hash map of Lance's fragment reuse index reached tens of GB).
//   - stable partition (recluster): through the rowmap the rewrite
//     recorded (rowmap.Reader.TranslateBatch, which picks point lookups
//     for sparse rows or a block sweep for dense ones by itself).
//
// A row deleted before a transition translates to live=false (and the
// address DeletedAddr), never to a real address, and stays deleted through
// the rest of the chain. Rows deleted after a transition still translate to
// their destination address; liveness there is the table's business
// (Table.IsLive).
//
// A History only translates. Which translated addresses an index may
// answer for (its derived coverage: rows a rewrite mixed with rows the
// index never covered belong to the unindexed fallback) is decided by
// package access, the one owner of index address validity.
//
//	h, err := fragreuse.ForIndex(ctx, tbl, tbl.Index("ids"))
//	defer h.Close()
//	err = h.Translate(addrs, addrs, live) // in place
package fragreuse
