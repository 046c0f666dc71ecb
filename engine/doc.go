// Package engine ties stablerow together: a database is a set of tables
// (package table), each queried through one path — SQL (sql) lowers to
// Substrait, the planner (plan) builds exec nodes against this package's
// catalog, and the nodes run with the caller's allocator. Indexes are
// found, opened and built by package access (CREATE INDEX runs its index
// build); the catalog hands an indexed table to the planner as a provider
// whose TakeByKey builds the take operators. docs/architecture.md draws
// the paths a statement and a take follow.
//
// Every statement reads one snapshot per table it names, taken before it
// is lowered (the front end tells the catalog the names: sql.TableNamer):
// one table is opened alone, several are pinned together
// (DB.snapshotOf, table.OpenTables), so a query never mixes versions nor
// holds half of a transaction over several tables; a Substrait plan,
// which does not say what it reads, pins every table.
// Inside a transaction block of a Session (BEGIN ... COMMIT, session.go)
// the snapshots are the block's, pinned at its first read, plus its own
// staged writes (table.Staged), published at COMMIT as one version per
// written table, all tables at once (table.CommitTxn).
//
// Views (views.go) are a catalog of their own beside the tables: a
// sequence of versions, each the whole set of views, claimed with
// put-if-absent and checked on read (viewrecord.go); a statement reads
// one version.
//
// DB.Query runs a script and returns the last statement's Rows, a stream of
// Arrow batches read as the plan produces them (memory bounded by the batch
// size); INSERT ... SELECT and UPDATE feed their source stream to the table
// writer the same way. DB.Exec is Query read to the end, for small results.
// SplitStatements cuts a script by PostgreSQL's lexical rules, for callers
// that want every statement's result (the CLI). Errors keep their identity
// through every layer (errors.Is with the packages' sentinels and errkind);
// a panic anywhere below the API comes back as an *InternalError.
package engine
