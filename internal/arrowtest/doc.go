// Package arrowtest holds the Arrow test helpers every layer's tests use,
// one copy each:
//
//   - mem.go, peak.go: the leak-checking allocator (Mem) and an allocator
//     that records the most bytes outstanding at once (PeakAllocator);
//   - build.go: batches built from, and read back into, Go values (Batch,
//     Rows);
//   - decimal.go: the decimal operands fuzz targets derive from their
//     bytes and the reference division (numeric_div) the decimal kernels
//     of exec/physexpr and the sum and avg of exec are checked against;
//   - kv.go: the two-column fixture (KVSchema, RandRows) exec's operator
//     tests and exec/physexpr's expression tests share.
//
// It imports no package of the module, so the internal tests of packages
// below exec (access, index/btree) can use it without an import cycle;
// exec/exectest re-exports Mem, Batch and Rows beside the operator
// harness.
package arrowtest
