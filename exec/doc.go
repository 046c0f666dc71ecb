// Package exec holds the engine core of stablerow: immutable physical plan
// nodes (Node) that produce pull-based Arrow streams (Stream).
//
// Usage:
//
//	vals, _ := exec.NewValuesExec(schema, batches)
//	lim := exec.NewLimitExec(vals, 0, 10)
//	s, _ := lim.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 1024})
//	out, err := exec.Collect(ctx, s) // caller releases every batch in out
//	fmt.Println(exec.Explain(lim, true))
//
// Scalar expressions (Expr, Bind, Bound, the column kernels) are package
// physexpr's, below exec: FilterExec, ProjectExec and the joins' residual
// predicates bind a physexpr.Expr to their input schema once and evaluate
// the Bound per batch. Rows are
// copied by index in one place, physexpr.Gather, for the filter's kept
// rows, the join's output and the sort's permutation. The expression and
// value errors (ErrSchema, ErrInvalidArgument, ErrOutOfRange, ...) are
// physexpr's too; exec's own are ErrClosed and ErrNotUnique (errors.go).
//
// Joins (joins.go, joinstream.go): HashJoinExec (equi-join, optional
// residual predicate) and NestedLoopJoinExec (any predicate, or none) share
// one stream state machine and every JoinType: INNER, LEFT, RIGHT, FULL,
// SEMI, ANTI, NOT IN's NULL-aware ANTI and SINGLE (a scalar subquery). The
// right input is materialized, the left streamed in order; candidate pairs
// are tested batchSize at a time. The build side's key index is a hash
// table (hashtable.go), or, for an integer key over a narrow range, a
// bitmap with ranks (denseindex.go: no hashing, a missing probe row costs
// one cached load); a key of several integer columns that fit a word
// together is packed into one first (packedkey.go). CrossExec
// (crossjoin.go) is a cross product (or RIGHT join ON TRUE) with a small
// right input, the set ids a grouping set's expansion crosses with: each
// left batch once per right row, its columns shared, not gathered.
//
// Aggregation: HashAggregateExec (hashagg.go) and, for input ordered on the
// group columns, the streaming OrderedAggregateExec (orderedagg.go) share
// one group table (grouptable.go: NULL a group of its own, NaN one value,
// -0 = 0; keys of short strings or small integers grouped by a packed
// code, grouptable_packed.go) and one accumulator per measure (acc_*.go). SetOpExec (setop.go)
// is INTERSECT/EXCEPT [ALL] over the same group table; UNION ALL is
// UnionExec, UNION and DISTINCT are aggregations without measures.
//
// Operator families outside exec: WindowExec is package exec/window,
// built on what exec exports for operators (Node, Stream, TaskContext's
// Allocator/RowsPerBatch/MemoryPool, Metrics.Emit, Comparator and
// KeyComparators, ConcatBatches, BatchBytes, PartitionsFor, WantChildren,
// AggregateType and FloatSum for framed aggregates that must equal GROUP
// BY's).
//
// Memory: TaskContext.Pool (package memlimit) is the statement's budget.
// The operators whose state grows with their input reserve from it before
// they buffer: SortExec spills sorted runs to Arrow IPC files in
// TaskContext.SpillDir and merges them k ways (spill.go, spillmerge.go;
// spillfile.go is the one writer and reader of spill files, the server's
// spilled uploads' too);
// HashAggregateExec, once its groups fill the budget, passes the rows of
// new groups through a spill file to another pass (hashagg.go); a hash
// join whose build side overflows partitions its build and probe by key
// hash to spill files (join_spill.go), a parallel join's shared build too
// (join_spill_shared.go); the joins that cannot (order-keeping, mark, NOT
// IN's) fail with memlimit.ErrResourceExhausted over the limit, as
// exec/window's WindowExec does for a partition larger than the limit.
//
// Priority: TaskContext.Priority is a heavy statement's pass through a
// server's priority gate (package priority). The leaf operators pass it
// before each batch (yield.go), so every operator that pulls its input
// batch by batch parks there while the server runs light statements; the
// long calls with no batch boundary in them (a sort's comparisons and
// radix passes, a group table's rehash) pass it every 16K iterations.
// Under a bound of running heavy goroutines each partition worker holds
// a lease of its own (priority.WithRunner, partition.go), and a consumer
// that waits for its workers' batches (a merge, a repartition's output)
// gives its lease up while it waits (TaskContext.idle).
//
// Shared subplans (shared.go): a SharedPlan is a subplan read by several
// SharedExec consumers (a WITH query referenced twice); the first consumer
// to need rows runs it once into a buffer reserved from the Pool (over the
// limit: memlimit.ErrResourceExhausted, it does not spill) and every
// consumer replays the buffer, in any goroutine. A SharedScopeExec at the
// root gives each execution its own runs and frees them at its Close.
//
// Partitioned execution (partition.go): a node may produce its output in
// partitions that run in parallel, DataFusion's model. A PartitionedNode
// declares OutputPartitions and starts all of them at once with
// ExecutePartitions (one stream each, sharing the execution's state);
// Execute stays the whole output as one stream, so every caller that does
// not know partitions keeps working. The plan pass that inserts the
// operators below is plan/parallel.go, at SET threads = N:
//
//	          CoalescePartitionsExec / SortPreservingMergeExec   1 stream
//	                        ▲  ▲  ▲
//	HashAggregateExec(final) per partition          N streams
//	                        ▲  ▲  ▲
//	RepartitionExec: hash of the group keys, bounded channels
//	                        ▲  ▲  ▲
//	HashAggregateExec(partial) per partition        N streams
//	                        ▲  ▲  ▲
//	FilterExec / ProjectExec per partition          N streams
//	                        ▲  ▲  ▲
//	ScanExec: fragments cut into N contiguous runs  N streams
//
// A SortExec over partitions sorts each (PerPartition) and a
// SortPreservingMergeExec merges them, ties to the lower partition, so the
// result is the serial stable sort's. A HashJoinExec over left partitions
// probes each against one shared build of the right input
// (partition_join.go). Two-phase aggregation is partition_agg.go.
//
// Parallelism comes from the goroutines of the operators that consume
// partitions (the coalesce's and the merge's drivers, the repartition's
// producers): each pulls one partition's pipeline. Their channels hold a
// batch or two per partition, so memory stays batch size × partitions;
// an error in any goroutine cancels the others and reaches the consumer;
// Close stops and waits for every goroutine, so none outlives its stream.
package exec
