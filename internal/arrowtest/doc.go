// Package arrowtest holds the Arrow test helpers every layer's tests use:
// the leak-checking allocator (Mem) and batches built from, and read back
// into, Go values (Batch, Rows). It imports no package of the module, so
// the internal tests of packages below exec (access, index/btree) can use
// it without an import cycle; exec/exectest re-exports it beside the
// operator harness.
package arrowtest
