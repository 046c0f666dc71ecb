// Package access is the index access layer: the one owner of "which index
// address is valid now". It sits between engine (and the planner's
// providers) and exec / index:
//
//	engine ──> access ──> exec (KeyIndex: Probe, Valid, Uncovered)
//	              │──────> index/btree      (open, probe, train, remap)
//	              └──────> index/fragreuse  (history: translate addresses)
//	                           └──> table (manifest, coverage primitives, row id sequences)
//
// It discovers indexes (Layer.Find), opens them once (Layer.Open), keeps the
// fragment reuse histories they need in a cache bounded in entries and
// evicted by version, and answers for a snapshot and an index with a
// Resolver, which exec's TakeByKeyExec and IndexScanExec see as a narrow
// interface (probe, validity of an answered address, fragments to fall
// back on). CREATE INDEX and OPTIMIZE INDEX go through it too.
//
// # Coverage states
//
// Against snapshot t, an index built at version v answers for a fragment
// in one of three ways, and an address it answers is in one of four
// states:
//
//		                    fragment in the index's fragment_bitmap?
//		                      │ yes                          │ no
//		                      v                              v
//		               ┌────────────┐        destination of rewrites whose
//		               │  Covered   │        sources the index covered
//		               └────────────┘        (fragment reuse history)?
//		                                       │ yes              │ no
//		                                       v                  v
//		                               ┌────────────┐     ┌──────────────┐
//		                               │  Derived   │     │  NotCovered  │
//		                               └────────────┘     └──────────────┘
//		  an address answered in a Covered or Derived fragment (translated
//		  through the history for Derived ones) whose row is not live ──> Deleted
//
//	  - Covered: the index's address is current; valid if the row is live.
//	  - Derived: the index's address predates rewrites; translated through
//	    the history (RowAddrRemapExec) it lands in a destination fragment,
//	    valid if the row is live there.
//	  - Deleted: the answered row is gone (deleted, updated away, or
//	    dropped by a rewrite). The index cannot tell where the key lives now
//	    (an update moves rows to a fragment it does not cover), so the key
//	    goes to the fallback like a key the index does not hold.
//	  - NotCovered: fragments appended or written by updates after the
//	    build. The index holds nothing there; UnindexedFallbackScan searches
//	    them (for _rowid through their row id sequences, with no data read).
package access
