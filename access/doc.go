// Package access is the index access layer: the one owner of "which index
// address is valid now" and of resolving keys to live addresses. It sits
// below exec, whose take operators drive it, and above the index and the
// table:
//
//	engine ──> exec (TakeByKeyExec, IndexProbeExec, UnindexedFallbackScan)
//	  │          │ drive Resolution, RowIDSearch; see KeyIndex, Remapper
//	  └────────> access ──> index/btree      (open, probe, train, remap)
//	                │─────> table/fragreuse  (history: translate addresses)
//	                └─────> table (manifest, coverage primitives, row id sequences)
//
// It discovers indexes (Layer.Find), opens them once (Layer.Open), keeps the
// fragment reuse histories they need in a cache bounded in entries and
// evicted by version, and answers for a snapshot and an index with a
// Resolver, which exec's TakeByKeyExec and IndexScanExec see as a narrow
// interface (KeyIndex: probe, validity of an answered address, fragments
// to fall back on). CREATE INDEX and OPTIMIZE INDEX go through it too.
//
// # One resolution from ids to live addresses
//
// Resolving keys (probe ──> fragment reuse history ──> coverage ──>
// unindexed fallback) is written once, in Resolution (resolve.go: what
// an answer means, which keys the fallback searches, the uniqueness
// assertion) and RowIDSearch (rowidsearch.go: the fallback for _rowid
// through row id sequences). The streaming take runs the steps as exec
// operators, so EXPLAIN shows them and each reports its metrics, and
// feeds their (probe row, address) pairs to a Resolution; the bulk take
// (PlanTake, BulkTake) runs the same steps as plain calls (ResolveIDs).
//
// # Index builds as plan / task / commit (API note for drivers)
//
// The same shape as table's compaction and recluster tasks
// (index_tasks.go), JSON-encodable with strict decoders (format
// IndexTaskFormat; table.ErrTask for anything malformed or foreign):
//
//	plan, _ := l.PlanIndexBuild(t, tableName, name, column, IndexBuildOptions{Tasks: n})
//	plan, _ := l.PlanIndexOptimize(ctx, t, name, IndexBuildOptions{Tasks: n}) // remap task + scan tasks
//	r, _ := anyLayer.ExecuteIndexBuild(ctx, anySnapshot, &plan.Tasks[i])      // writes one run (a BTree)
//	nt, _ := l.CommitIndexBuild(ctx, latest, plan, results)                    // merge runs, one commit
//
// Every task needs a result (else table.ErrTask, nothing commits); the
// index records plan.Version, so fragments appended since are left
// uncovered, while covered fragments rewritten since are
// table.ErrConflict. CreateIndex and OptimizeIndex run this path on
// SetWorkers goroutines (the engine sets its Options.Workers).
//
// # Building blocks it composes, and nothing else may
//
// Validity is decided here from lower-level pieces that know nothing of
// each other; no other package composes them into an answer:
//
//   - table.IndexMeta.Fragments and DatasetVersion: what the index was
//     built over, and when (Covered);
//   - table.DerivedCoverage over table.Table.History: the fragments a
//     rewrite filled only with rows the index covered (Derived). Outside
//     package table only this package calls it (TestLayering checks the
//     whole module);
//   - fragreuse.Open: the translation of the index's addresses through
//     those rewrites, which says nothing of coverage;
//   - the snapshot's deletion vectors: liveness (Deleted).
//
// Coverage and Resolver are the composition: exec sees Valid and
// Uncovered, never the pieces.
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
