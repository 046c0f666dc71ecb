// Package plan turns a Substrait plan into a stablerow physical plan
// (an exec.Node tree). Build runs the phases in order: the Substrait
// ingest (plan/ingest: depth, producer normalization, validation), the
// subquery flattening (subquery*.go, given the relation widths ingest
// records; ingest.go is the seam), substrait-go's reading (ingest.Read),
// the logical optimizer (plan/optimize) and the physical build, applying
// the planner rules on the way:
//
//   - take by key: `[Sort(keys on driving columns)] <- [Project] <- Join(LEFT,
//     D, T) ON D.k = T.c`, T a named table, becomes the table provider's
//     TakeByKey node when the provider has a unique index on c; that node keeps
//     D's order, so a sort on D's ordering (the unnest's `ord`) is elided.
//     The shape has one matcher (takeshape.go), which MatchTake also serves:
//     the Flight SQL server asks it which statements it may split into
//     partitions;
//   - column pruning: every scan and every take reads only the columns the
//     plan above it references;
//   - row id typing: `_rowid`/`_rowaddr` travel as i64 in Substrait but are
//     uint64 in Arrow; in expressions they are bigint (a checked, zero-copy
//     conversion: a - b of two ids is negative, not wrapped), and as join
//     keys against int64 values a negative key simply misses;
//   - subqueries: Substrait subquery expressions (IN, EXISTS, ANY/ALL,
//     scalar; correlated through outer references) are rewritten into
//     semi, anti, single and left joins before substrait-go reads the plan
//     by the logical optimizer's first pass, optimize.Decorrelate, over
//     the relation widths validate records (Build: validate, decorrelate,
//     validate again, fromProto, optimize.Joins, compile);
//   - shared subplans: a relation with a join, an aggregation or a set
//     operation that occurs more than once, byte for byte (a WITH query
//     the SQL front end lowered at each reference, a scalar subquery that
//     repeats the outer FROM and WHERE), is compiled once, for the union of
//     the columns its occurrences need, into an exec.SharedPlan that runs
//     once per execution and is read by an exec.SharedExec at each
//     occurrence, under an exec.SharedScopeExec at the root (shared.go);
//     Options.DisableSharing compiles every occurrence;
//   - long IN lists: a SingularOrList whose only option is a packed list
//     literal (packedlist.go: stablerow's user-defined type, the values
//     in one byte payload; the SQL front end's form of a long list of
//     constants) or a standard list literal of i32, i64, fp64 or string
//     elements (and NULLs) is `x IN (the elements)`; it plans as one
//     physexpr.InValues, a typed slice and set (invalues.go), and the checks
//     that walk the plan skip the list's elements. ExpandPackedLists
//     turns the packed form into the standard one for outside readers.
//   - a projection under a LIMIT: `Fetch(offset, count) <- Project` with a
//     count plans as `LimitExec <- ProjectExec <- LimitExec(0, offset +
//     count)`, so the projection's expressions run on the rows the limit
//     reads only, as PostgreSQL's Limit pulls (and projects) one row at a
//     time: an expression that raises on a discarded row does not raise
//     (filter.go fetch; not for a shared subplan).
//
// Everything else plans generically (hash join, sort, ...), and the
// DisableIndexes option forces the generic plan, so the two can be checked
// against each other. Usage:
//
//	node, err := plan.Build(ctx, pb, catalog, plan.Options{})
//	s, err := node.Execute(ctx, &exec.TaskContext{Mem: mem, Params: map[int]any{1: ids}})
//	fmt.Print(exec.Explain(node, false))
//
// The Substrait conventions a plan follows (system columns, types, the
// stablerow.* extension-table relations, function URNs, parameters, the
// take shape, errors and limits) are stated in docs/substrait.md, which
// the code cites by section ("substrait.md §4") and whose example plans
// TestSubstraitDoc runs.
//
// Plans are read against internal/substraitfn's collection, which
// declares the standard extension URNs without parsing their YAML: a fresh
// process plans its first query without substrait-go's 130-280 ms default
// collection load (an outside plan that needs a real declaration still
// gets it, read once).
//
// EvalConst evaluates one expression over constants with the same
// compilation and kernels, for the SQL front end's plan-time folding
// (constexpr.go).
//
// Build never panics on a bad plan: malformed input gives an error wrapping
// ErrInvalidPlan (ingest's sentinels, re-exported here) (a plan nested deeper than MaxPlanDepth messages too,
// before anything recursive reads it), a valid construct the engine lacks gives ErrUnsupported
// naming it, and a bug (a recovered panic) gives ErrInternal
// (errkind.Internal) with the panic only in the debug log (log/slog,
// level Debug). Errors from the catalog and table providers are wrapped,
// never flattened, so their kinds (errkind.Corrupt, ...) survive.
package plan
