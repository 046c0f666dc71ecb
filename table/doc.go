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
//	_intents/<uuid>.revoked  Cleanup's mark on an intent it found expired,
//	                         read by its writer after each renewal
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
// Data files are written in FormatEncoded (datafile_encoded.go): the same
// IPC framing, spans and column parts, but each column of each batch is
// one chunk in a light-weight encoding chosen by its encoded size
// (table/encoding: frame of reference with bit-packing or run-length for
// integers, dates, timestamps and decimals, dictionaries for repetitive
// strings, LZ4 blocks for other strings, plain otherwise), decoded a whole
// chunk at a time into Arrow arrays, only for the columns read (a take
// decodes only the rows it takes: encoding.DecodeRows). Files in
// FormatColumns (Arrow buffers as they are, still the default: encoded files
// are written with Options.EncodedDataFiles, as decoding costs more than
// reading in place today) and FormatSpans are read too.
//
// Each DataFileInfo (manifest format 5) also carries the file's zone map
// (zonemap.go): per batch and column the null count and bounds of the
// values, so a scan given simple predicates skips the batches no row of
// which can match before it reads a byte of them (zonescan.go). Files
// written before have none and are always read. Since zone map format 2
// it also holds a distinct-count sketch (HyperLogLog, sketch.go) per
// column of the file, merged over a version's fragments into the
// optimizer's distinct counts (Manifest.DistinctCounts).
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
// A multi-statement transaction (engine.Session's BEGIN ... COMMIT)
// stages its writes on each table it writes (Stage, staged.go): each
// statement's deltas are applied to a private manifest in memory, its
// files held by one write intent for the whole transaction, and Commit
// publishes base-to-view as
// one txn through the same rebase rules, refusing a row another writer
// changed meanwhile (ErrConflict); CommitTxn does so for several tables
// at once (below). Nothing is published before; a rollback or a crash
// leaves orphans for Cleanup.
//
// # Transactions over several tables
//
// A transaction that writes several tables must publish them all or none,
// with put-if-absent as the only atomic primitive (local disk and S3) and
// every table a separate log of manifests. The record is txnrecord.go,
// claims and their resolution txnclaim.go, the commit CommitTxn
// (txncommit.go), a snapshot of several tables OpenTables
// (txnsnapshot.go). Not built: removing records no claim names any more
// (they are small; the database's VACUUM is where it belongs).
//
// Stores. The database has one transaction store besides its tables' (a
// local database's <dir>, an S3 database's prefix, an in-memory
// database's own store.Memory), handed to every table of the database in
// Options.Txns. Records live in it at .txn/<id>.txn: the dot keeps the
// directory out of the table namespace, as the engine's .dropped-
// directories are.
//
// Record (txnrecord.go), framed by the envelope it shares with the write
// intents (envelope.go): "SRTX" | u16 format 1 | u16 flags 0 | u32 body
// length | body | u32 CRC32C of all before it; body: str id | uv state
// (1 committed, 2 aborted) | i64 decided ns | str by | uv n, n x (str
// table name | uv claimed version), tables sorted and unique. Readers
// check the magic, format, flags, body length, CRC, every length against
// the bytes left, trailing bytes and the content, and that the path names
// the id; a damaged record is ErrCorrupt, never "pending". Written once,
// with put-if-absent (DecideTxn): whoever decides first wins, and every
// later DecideTxn returns that decision. No record means pending.
//
// Claim. The transaction's next version of each table it writes is an
// ordinary manifest with a claim (TxnSummary.Claim): the transaction id,
// the table's name, and Prev, the visible version it was applied on
// (manifest format 4: str id | str name | uv prev after the extra
// section, checked like the rest by the manifest's CRC; written only
// for claims, so ordinary versions stay format 3 and an older binary
// refuses a claim rather than reading it as a version). A claim is
// visible iff its record says committed and lists this table at this
// version (a committed record that does not is ErrCorrupt). An aborted or
// pending claim is skipped: the table reads at Prev. A writer never
// builds on, nor claims above, a pending claim: it waits for its decision
// for Options.ClaimGrace (10 s; measured on the writer's own clock from
// when it met the claim), then aborts it with DecideTxn (and if
// that returns committed, builds on it); above an aborted claim it writes
// past, the next version number applied on the claim's Prev. So every
// version between a claim's Prev and the claim is an aborted claim, and
// the newest visible version is found from the newest version number by
// following Prev through invisible claims (usually no step). Version
// numbers are never reused, so a version number cached by a reader keeps
// its meaning.
//
// Commit of transaction X writing tables t1 < t2 < ... (by name):
//  1. For each table in name order, claim: take the newest version L
//     and the newest visible V (resolving, waiting on a pending claim as
//     above); check that X commutes with the visible versions in
//     (base, V] (invisible claims never happened) and apply it to V, as
//     a one-table commit does; check its new files; put-if-absent
//     version L+1 naming X with Prev = V. A lost race repeats the claim
//     (rebase); a conflict aborts X.
//  2. Commit point: DecideTxn(X committed, the tables and claimed
//     versions). If it returns an abort (a writer gave up waiting on
//     X), X failed with ErrConflict and nothing of it is visible.
//  3. On any failure before 2: DecideTxn(X aborted), so writers waiting
//     on X's claims proceed at once.
//
// Taking claims in name order keeps two transactions from each holding a
// claim the other waits on, and makes committed transactions' claims
// appear in the same order in every table they share.
//
// Crash points (TestCommitTxnCrashAtEveryStep injects a crash at each
// store operation of the commit, before it lands and after):
// before any claim, X is nothing but files held by its intents (orphans
// once they expire); after k of n claims, the claims are pending, every
// reader reads those tables at Prev, and the next writer to one of them
// waits at most ClaimGrace, aborts X and writes past; the record's put is
// atomic, so readers find either no record (nothing visible) or the
// commit (every claim visible: they are already in place, there is no
// roll-forward step); after the commit point only intent records remain,
// which expire. No state needs a repair step: readers resolve each one.
//
// Readers of several tables. A snapshot must show a committed X in all
// the tables it pins that X wrote, or in none. OpenTables pins every
// table at once (the engine: a transaction's first read, an autocommit
// statement's first table): it reads each
// table's newest visible version p1, then again p2, and pins p1; while
// some table t holds, in (pin(t), p2(t)], a committed claim of an X that
// another pinned table u shows (pin(u) >= X's version in u), t's pin
// moves forward to X's version in t. This ends (pins only move forward,
// up to p2) and suffices: every X a pin shows committed before the first
// pass ended (it was shown at a first read, or its claim lies below the
// claim of such an X), so before every second read, so its claim in each
// table t lies at or below p2(t).
//
// Cleanup. A pending claim's files are kept (the transaction may
// commit) and so is the claim; an aborted claim's files are orphans
// unless another version names them; its manifest stays until it
// expires with the versions around it (its number must not be reused,
// and a rebase reads the versions after its base); KeepVersions
// counts visible versions, so the version under a claim never expires
// while the claim is the newest. Records are kept (see above).
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
