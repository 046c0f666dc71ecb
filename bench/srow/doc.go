// Package srow runs the peer benchmark's queries on stablerow, through
// package engine: the same SQL a user would write (the seed take with :ids
// bound to a []uint64), a table built with CreateTable + Append in fragments
// of FragmentRows rows, and BTree indexes made with CREATE INDEX.
//
// Answers are read from the engine's Arrow batches into peer's Go types;
// that copy is inside the timing, as the copy out of DuckDB's chunks is on
// the other side.
package srow
