// Package server is stablerow's Arrow Flight SQL server (`stablerow
// serve`): any Flight SQL client (ADBC, JDBC, Python's
// adbc_driver_flightsql) runs SQL or Substrait plans against an
// engine.DB and reads the results as Arrow record batches.
//
// What a client can call:
//   - statements: CommandStatementQuery (GetFlightInfo, then DoGet of its
//     ticket), CommandStatementUpdate and CommandStatementSubstraitPlan
//     through DoPut for DML and DDL, CommandStatementSubstraitPlan through
//     GetFlightInfo for queries;
//   - prepared statements of SQL or of a Substrait plan, with parameters
//     bound from Arrow batches (engine.ParamsFromArrow): the seed query's
//     ids as a list<int64> of one row or as a column, so a client takes rows
//     by id without building SQL text. Preparing plans the statement and
//     runs nothing (engine.DB.Describe): its answer carries the parameter
//     schema and the dataset schema, the one GetFlightInfo then answers
//     (no fields, and is_update, for a statement without rows);
//   - GetSchema of a statement, a plan or a prepared statement: the same
//     dataset schema, nothing run (schemas.go);
//   - the catalog calls clients make on connect: GetSqlInfo, GetCatalogs,
//     GetDbSchemas, GetTables (with schemas), GetTableTypes,
//     GetPrimaryKeys (the table's PRIMARY KEY columns), GetImportedKeys,
//     GetExportedKeys and GetCrossReference (always empty: no foreign
//     keys);
//   - CancelFlightInfo;
//   - BeginTransaction / EndTransaction (transactions.go): an
//     engine.Session's REPEATABLE READ block, its id bound to the user who
//     began it; statements, plans and prepared statements carrying the id
//     run in it, one call at a time (a busy transaction is
//     FailedPrecondition at once: a query's result holds it until read);
//     a conflicting COMMIT is Aborted and publishes nothing. An idle one
//     is rolled back after Options.TransactionTTL, every open one at
//     Shutdown.
//
// A query's result lives in the server between GetFlightInfo and DoGet
// (see results.go):
//
//	GetFlightInfo: plan, start       DoGet of its ticket
//	  ----------------------> started ---------------> streaming --end, error, client gone--> closed
//	                             |                        |
//	                             | Cancel, TTL expiry     | Cancel: the stream stops with Canceled
//	                             v                        v
//	                           closed                   closed
//
// GetFlightInfo starts the query (so bad SQL, an unknown table or a bad
// parameter fail the call that the client's "execute" makes) and returns
// one endpoint (or a split take's several, below); DoGet streams
// the rows batch by batch as the plan produces them, one batch in flight,
// so memory is bounded by the batch size, not by the result. A result nobody reads is closed after Options.ResultTTL.
// Every result runs on a context of its own, cancelled by CancelFlightInfo,
// by the expiry or by the DoGet client going away; closing it releases
// every batch and the plan's state.
//
// A prepared statement lives until the client closes it or it goes unused
// for Options.PreparedTTL. Shutdown gives running calls
// Options.ShutdownGrace, then cancels them, and rolls back every open
// transaction.
//
// Takes split into endpoints (takesplit.go): a take by row id with bound
// ids, the seed query's shape without ORDER BY (plan.MatchTake), of at
// least Options.SplitMinIDs ids whose rows sit in more than one fragment,
// returns one endpoint per group of fragments (at most
// Options.MaxEndpoints). The ids are resolved through the index access
// layer the engine owns (engine.DB.PlanTake: one cache of each index per
// database) when GetFlightInfo is called; each endpoint's DoGet takes its
// group's rows, in fragment order, in the statement's own output schema,
// and every row carries the statement's ord column, so a client reading
// the endpoints in parallel restores the driving order by sorting on it.
// Ids with no row (a LEFT JOIN's NULL rows) come with endpoint 0. Tickets
// are signed and name their take, endpoint and fragments (ticket.go); the
// take's plan lives in the server until its endpoints are read, it is
// cancelled, or Options.ResultTTL passes. ADBC's client API calls such
// endpoints partitions (ExecutePartitions, ReadPartition); the server
// does not, as "partition" is the executor's word for a plan's parallel
// streams (package exec) and the row map's for its stable partitions
// (package rowmap).
// Every other statement is one endpoint.
//
// Memory (budget.go, heapwatch.go, uploads.go): with Options.Memory set,
// every statement and every parameter upload draws from one budget.
// Planned statements are admitted through engine.WithAdmission: one whose
// plan holds memory that grows with its input (exec.HoldsMemory) reserves
// a grant from the heavy lane, waiting in a queue up to
// Options.AdmissionWait, else fails with ResourceExhausted; every other
// one takes a small grant from the light lane, so `SELECT 1` does not
// queue behind them. A statement's operators reserve from a child of its
// lane (memlimit.Pool.Child): past its share or the lane, sorts and
// aggregations spill and joins fail. The live heap no statement reserved
// is held in the heavy lane too, so the real heap, not only the
// operators' estimates, is what the budget bounds. Uploads are counted as
// they stream and refused past the budget; bound parameters stay counted
// until the statement is rebound, closed or expires. An upload of one id
// column to a statement that uses $1 only as UNNEST's list is not held
// whole: a prepared update reads it as it runs (uploadstream.go), a
// prepared query spills it past a quarter of the statement limit to a file
// its runs read back (uploadspill.go). A value bound to no
// parameter is InvalidArgument (engine.ErrExtraParam). The
// MemoryStatusAction action returns the accounting.
//
// CPU (priority.go, package priority): admission bounds how many heavy
// statements run, but even a few of them keep every core busy, and a
// `SELECT 1` waited behind them for each goroutine hand-off of its calls.
// So every call holds a light ticket of a server-wide priority gate
// while it runs, and a heavy statement's goroutines (engine.WithPriority)
// park at their batch boundaries while any ticket is out; a statement
// planned as heavy gives its call's ticket up. Tickets count for a bounded
// time, and a park is bounded, so heavy statements are slowed by light
// work, never stopped by it. The hops of a call before its handler holds
// a ticket are covered too: at most Options.HeavyRunning heavy goroutines
// (one a core) run at once, each under a lease of the gate, and the CLI
// sets GOMAXPROCS above the cores (-light-procs), so a P is idle for
// light work. Options.NoPriority turns it off.
//
// Errors are gRPC statuses made in one place (status.go) from the error's
// errkind: InvalidArgument (bad SQL with its line and column, bad
// parameters, a statement nested past sql.MaxDepth: "stack depth limit
// exceeded", refused before the in-process C parser could overflow its
// stack and take the server down), NotFound (unknown table, expired result), Aborted (a
// concurrent commit won: retry), DataLoss (corrupt data), OutOfRange,
// Unimplemented, Unavailable (the object store unreachable or failing
// after its retries), Internal (a bug; the details go to the server's log only),
// Unauthenticated from the authentication middleware (auth.go), and
// ResourceExhausted for a login, or a call with a bearer token, refused
// while its address or user is held back after failed ones (authlimit.go;
// both carry a RetryInfo).
package server
