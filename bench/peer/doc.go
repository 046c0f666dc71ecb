// Package peer holds the engine-neutral half of the stablerow-vs-DuckDB
// benchmark (issue 7): the deterministic data set, the id and key lists, the
// answers both engines must agree on, the differential checker, the timing
// loop and the report writers (markdown and a PNG plot).
//
// An engine is anything that implements Engine: package duck drives DuckDB
// through its C API, package srow drives stablerow through package engine.
// The benchmark loads the same rows into both, runs every Query once per
// engine and compares the answers (Answer.Compare) before it times anything:
// a mismatch stops the run with ErrMismatch, so a figure in the report is
// always a figure for identical results.
//
// The table is t(k BIGINT, payload DOUBLE). Row i of the generator has
//
//	k       = K(i)        a bijection of i onto [0, 2^63), so keys are unique
//	payload = Payload(i)  uniform in [0, 1), so "payload < 0.1" deletes ~10%
//
// and stablerow adds _rowid and _rowaddr; DuckDB gets the same four columns
// read back from stablerow's scan, so row addresses agree by construction.
package peer
