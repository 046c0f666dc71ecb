// Package table is stablerow's versioned table format with stable row ids.
//
// A table is a prefix in a store.Store:
//
//	_versions/<n>.manifest   one immutable manifest per version (put-if-absent)
//	data/<uuid>.arrow        fragment data, Arrow IPC files of user columns
//	_indices/<uuid>/...      index files (written by index packages)
//	_rowmaps/<uuid>.rowmap   row maps of reordered rewrites
//	_intents/<uuid>.intent   write intents: the files a running writer stores
//	                         before its commit, kept from Cleanup (intent.go)
//
// A manifest lists fragments. Each fragment has a data file, a physical row
// count, a row id sequence aligned with its physical offsets (row id of
// offset i = RowIDs.Get(i)) and a deletion vector of dead offsets. Deleting
// never rewrites data or the row id sequence; it only grows the deletion
// vector, so a row address (fragment<<32 | offset) stays valid for a row
// until a rewrite moves it.
//
// Every data file is bound to its manifest entry (DataFileInfo): its size,
// a random content id (also in the file's schema metadata) and CRC32C
// checksums of the footer and of each IPC record batch, taken at write
// time: per batch, of its head (message metadata) and of each column's part
// of its body (FormatColumns; files of manifest format version 2 have one
// CRC per batch, FormatSpans, and still read). Readers check the size and
// footer before arrow-go parses the file and, before a batch is decoded,
// its head and the parts of the columns they read, so a flipped, truncated
// or swapped file is ErrCorrupt naming the file, never wrong rows or a
// decoder panic. A scan of 4 of 16 columns hashes those 4 columns' bytes, a
// point take only the batches it touches, and the parts verified are
// remembered with the store's mapping of the file (so by every later
// snapshot and query reading those bytes; new bytes start unverified).
//
// `_rowid` and `_rowaddr` are real schema fields (field ids -3 and -2, type
// uint64) appended after the user columns. Scans and fragment takes serve
// them like any other column, which is what lets index training and the
// unindexed fallback stay generic.
//
// Writes go through transactions: a transaction records what it read (its
// base version) and what it does as deltas (fragments added, offsets
// deleted, index metadata added). Commit applies the deltas to the newest
// manifest, checks conservation (live rows out = live rows in + added -
// deleted, row ids unique and below NextRowID) and writes the next manifest
// with put-if-absent. When another writer got there first, the transaction
// is rebased when the two commute (appends with anything; deletes of
// different or even the same fragments) and refused with ErrConflict when
// they do not (an update or rewrite touching fragments the other changed).
// A failed commit never leaves a manifest behind, so readers always see the
// last good version.
//
// A multi-statement transaction (engine.Session's BEGIN ... COMMIT) stages
// its writes on one table (Stage, staged.go): each statement's deltas are
// applied to a private manifest in memory, its files held by one write
// intent for the whole transaction, and Commit publishes base-to-view as
// one txn through the same rebase rules, refusing a row another writer
// changed meanwhile (ErrConflict). Nothing is published before; a
// rollback or a crash leaves orphans for Cleanup.
//
// Table values are immutable snapshots of one version; every write returns
// the new snapshot.
//
// # Maintenance as plan / task / commit (API note for drivers)
//
// The heavy rewrites are split so that any scheduler (local goroutines
// here; a distributed runner elsewhere) can execute them. Every kind has
// the same shape, with JSON-encodable exported structs (format TaskFormat,
// strict Decode* functions that refuse unknown fields, other formats and
// inconsistent content with ErrTask):
//
//	plan, _ := t.PlanX(...)              // reads one version, writes nothing
//	for each plan.Tasks[i] (any worker, any process, retries allowed):
//	    r, _ := w.ExecuteX(ctx, &task, mem) // w: any snapshot of the table; writes files only
//	nt, _ := t.CommitX(ctx, plan, results)  // one atomic commit; ErrConflict per the commit rules
//
//	Compaction: PlanCompaction / ExecuteCompaction / CommitCompaction
//	  (CompactPlan, CompactTask, CompactResult; runs whose tasks all have
//	  results commit, the others are skipped).
//	Recluster:  PlanRecluster / ExecuteRecluster / CommitRecluster
//	  (ReclusterPlan, ReclusterTask, ReclusterResult; every task needs a
//	  result, else ErrTask and nothing commits).
//
// A task may run any number of times: the commit uses the first result per
// task; files of unused results, of crashed drivers and of refused
// commits are orphans no manifest names, which Cleanup (VACUUM) removes.
// An Execute run on its own holds a write intent only while it runs:
// between it and the driver's commit its files are kept by Cleanup's age
// guard alone, and a commit whose file was removed meanwhile fails with
// ErrMissingFile (the in-process Compact and Recluster hold one intent
// from their first task to their commit).
// Compact and Recluster are these paths run in-process on
// Options.Workers goroutines.
package table
