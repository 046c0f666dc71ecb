// Package rowmap implements the stable-partition row map: the arithmetic that
// translates a source physical row of a reordered rewrite into its
// destination fragment and offset.
//
// # Ordering contract
//
// The map represents stable partitions only:
//   - labels are recorded in source physical-row order (sources concatenated
//     in scan order, deleted rows included as NULL);
//   - each destination receives its rows in that same order and is never
//     re-sorted;
//   - the destination list is fixed for the whole rewrite.
//
// A rewrite that routes rows through parallel writers must restore
// per-destination source order before recording the map. A rewrite that sorts
// rows within a destination is not representable here.
//
// # Arithmetic
//
// Rows are cut into blocks of BlockSize (65,536) rows. CountsMatrix stores,
// after every block, the cumulative per-destination row count. The offset of
// a live row g with label l is
//
//	counts.Base(g/BlockSize)[l] + #{rows before g in its block labelled l}
//
// which TranslateInBlock computes, and a SweepTranslator computes for every
// row from any block boundary with offset = counter[label]++.
//
// Example:
//
//	b := rowmap.NewCountsBuilder(2, 4)
//	for _, l := range []int{0, 1, -1, 0, 0, 1, 0, 1} { // -1 = deleted
//		if l < 0 { b.AddNull() } else { b.Add(uint16(l)) }
//	}
//	cm, _ := b.Finish()
//	cm.Totals() // [4 3]
//
// # File
//
// Writer takes the labels of live rows only and interleaves NULLs from the
// source deletion vectors; Reader opens a file with one tail read and a full
// consistency check:
//
//	w, _ := rowmap.NewWriter([]uint32{10, 11}, []rowmap.SourceFragment{
//		{PhysicalRows: 5, Deleted: roaring.BitmapOf(2)}, {PhysicalRows: 3}}, rowmap.WriterOptions{})
//	_ = w.Append([]uint16{0, 1, 0, 0, 1, 0, 1})
//	file, _ := w.Finish()
//	rd, _ := rowmap.Open(rowmap.BytesSource(file))
//	dest, off, deleted, _ := rd.Translate(6) // 0 (F10), 3, false
//
// The physical encoding (block.go, counts.go, writer.go) is our own: per
// block a deletion bitmap (omitted when empty) and the live labels
// bit-packed either plainly at ceil(log2 m) bits or through a local
// dictionary at ceil(log2 k) bits, whichever is smaller, each block CRC32C
// checked; counts are stored as per-block bit-packed deltas (dense or sparse
// per block) when smaller than the dense u32 grid.
package rowmap
