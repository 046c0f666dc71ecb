// Package sql lowers Postgres-dialect SQL to Substrait plans, so SQL text
// and outside Substrait producers reach the planner through one path.
//
// Parsing is the real Postgres grammar (pg_query_go), run in-process
// through cgo. Its C code recurses over the parse tree without a stack
// check, so a statement is first measured from the scanner's tokens
// (depth.go): one nesting deeper than MaxDepth levels fails with
// ErrTooDeep ("stack depth limit exceeded", an InvalidArgument) before
// the parser sees it, where it would overflow the thread's stack and kill
// the process. :name parameters are
// rewritten to $k first (Postgres has no named parameters); each statement
// numbers its own names from 1 in order of first appearance. Lowering
// follows the stablerow Substrait conventions (docs/substrait.md, cited
// here by section as "substrait.md §N"): tables are NamedTableReadRel
// with the full schema (user columns, _rowid, _rowaddr; §2), UNNEST,
// generate_series and read_parquet are extension-table reads (§4), $k is
// a DynamicParameter (§6).
//
// A SELECT lowers bottom-up as (§8)
//
//	Read/Join -> Filter(WHERE) -> [Aggregate -> Filter(HAVING)] -> Project
//	  -> [Aggregate(DISTINCT)] -> Sort -> Fetch
//
// GROUP BY items are expressions, SELECT-list positions or output names
// (groupby.go); over an Aggregate an expression equal to a group key refers
// to the key's column, and any other input column is an error, as in
// Postgres. GROUPING SETS, ROLLUP and CUBE expand to their sets and run
// as one Aggregate over the input crossed with the set ids, grouping by
// the keys (NULL in the sets without them) and the set id
// (groupingsets.go); FILTER (WHERE ...) is the Measure's filter.
// UNION/INTERSECT/EXCEPT [ALL] lower to a SetRel with ORDER BY,
// LIMIT and OFFSET over its result (setop.go).
//
// The projection sits under the sort whenever every ORDER BY key is an
// output column (by alias, ordinal or an equal expression), which is the
// shape the take-by-key rule matches for the seed query:
//
//	SELECT v.ord, t._rowaddr
//	FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
//	LEFT JOIN t ON t._rowid = v.rowid
//	ORDER BY v.ord
//
//	Sort(ord) <- Project[v.ord, t._rowaddr] <- Join(LEFT, unnest($1), t)
//	             on equal(v.rowid, t._rowid)
//
// Otherwise the sort goes under the projection, over the FROM record.
// With ORDER BY and LIMIT the select list is evaluated where PostgreSQL
// evaluates it (postpone.go): an item that is not a sort key and costs
// more than 10 operator calls goes over the sort, the others under it,
// so an item that raises on a row the LIMIT discards raises as in
// PostgreSQL.
// Join equalities are written left-input column first.
//
// Joins: [INNER], LEFT, RIGHT, FULL JOIN ... ON and CROSS JOIN (FROM a, b
// too) lower to JoinRel and CrossRel. JOIN ... USING (...) [AS alias] and
// NATURAL JOIN (using.go) are a JoinRel on the USING columns' equalities
// under a projection that puts the merged columns first, as PostgreSQL's
// transformFromClauseItem and buildMergedJoinVar build them. WITH queries (non-recursive, over a
// SELECT or a set operation) and subqueries in FROM are lowered at each
// reference (cte.go); the planner runs a repeated one once. Every
// subquery used as an expression lowers to a Substrait subquery
// expression (subquery.go): [NOT] EXISTS and [NOT] IN as WHERE conjuncts
// to SetPredicate and InPredicate, under not(); a scalar subquery in the
// SELECT list, ORDER BY or WHERE to ScalarSubquery. A plain
// SELECT-FROM-WHERE subquery's names of the enclosing query, and a scalar
// subquery's over an ungrouped aggregate, are outer references; any other
// correlation is refused with its position. The logical optimizer
// decorrelates them all into joins (plan/optimize, Decorrelate: semi and
// anti joins, LEFT SINGLE joins, a correlated aggregate grouped by its
// keys and LEFT joined, its input restricted to the outer keys), for
// every producer; the front end builds no join for a subquery.
// FROM a, b, ... WHERE is lowered as the items' cross products
// under a filter of the WHERE's conjuncts over several items
// (joinorder.go); the logical optimizer (plan/optimize) orders the joins.
//
// Untyped values take the type their context asks for, as in Postgres:
// '5' = id compares as bigint, name = $1 makes $1 text, a bare $1 is
// bigint and UNNEST($1) is a bigint list (UNNEST($1::text[]) a text one;
// lists of other element types are refused here, with a position).
// UNNEST of an integer[] or smallint[] ($1::int4[], ARRAY[1, 2],
// '{1,2}'::int2[]) reads a bigint list narrowed by a checked cast, so its
// elements are integer or smallint as in PostgreSQL. In
// INSERT ... SELECT the SELECT list's untyped values (NULL, '5', $1) take
// the target columns' types, as in INSERT ... VALUES.
//
// An IN list of 64 or more plain constants (numbers, '...' strings, NULL,
// TRUE, FALSE) is cut out of the text before the scanner (constlist.go)
// and lowered as a SingularOrList whose only option is one list literal
// of the list's common type, typed and checked as the parsed list would
// be: the cost per value is a few allocations, not a node in every layer.
//
// A decimal or exponent constant is numeric, as in PostgreSQL: 1.50 is
// numeric(3,2), 1e3 is numeric 1000 (numconst.go); one of more than the 38
// digits a decimal128 holds keeps its exact text beside the nearest
// double. Its conversion out of a float's or an integer's range (1e400
// beside a double) is a cast left to the constant folder, which raises
// only where PostgreSQL's folding reaches it. Constants fold as PostgreSQL's planner folds them (constfold.go):
// a strict call with a NULL constant argument is NULL, NULL IN (...) is
// NULL, IS [NOT] NULL of a constant, NOT, AND/OR, CASE, COALESCE and
// NULLIF decided by constants are their answer, and a HAVING that folds to
// FALSE or NULL runs no aggregate and reads no row; so a / 0 = NULL never
// divides. Any other call over constants is evaluated while planning
// with the executor's kernels (plan.EvalConst) and is its value; one that
// raises raises while planning, wherever it is in the plan, as in
// PostgreSQL (SELECT 1/0 FROM t WHERE false raises), unless the folding
// dropped it first. A WHERE with a constant FALSE conjunct drops the
// subqueries PostgreSQL never plans there (all but an uncorrelated IN and
// a correlated [NOT] EXISTS, which it has made joins before), after
// lowering them for their other errors.
//
// information_schema.tables and information_schema.columns, SHOW TABLES
// and DESCRIBE t (DuckDB's; rewritten to SHOW describe.t before the
// parser, which has no DESCRIBE) lower to VirtualTables of literal rows
// built from the catalog (infoschema.go): TableLister's names and each
// table's declared column types, spelled as PostgreSQL's views spell
// them; the TableNamer is told every table, so one snapshot answers.
//
// now(), CURRENT_TIMESTAMP, LOCALTIMESTAMP and CURRENT_DATE are
// constants of the one time a statement sees (now.go): the Catalog's
// StatementClock (the engine: the BEGIN of a transaction block, else the
// statement's start), asked once per statement, as PostgreSQL's stable
// functions of the transaction start. SELECT DISTINCT ON lowers to a
// row_number() window partitioned by its keys and a filter of the 1s
// (distinct_on.go), with transformDistinctOnClause's ORDER BY rule.
//
// CREATE [OR REPLACE] VIEW lowers its SELECT once to check it and keeps
// its deparsed text, columns, types and relations (view.go); a reference
// to a view (a Catalog that is a ViewCatalog) parses and lowers that
// SELECT in its place, as PostgreSQL's rewriter expands a view, and its
// tables are told to the TableNamer with the statement's.
//
// Function calls are built by internal/substraitfn with the standard
// compound names and output types, without loading substrait-go's default
// extension collection. Scalar expressions (expr_funcs.go): CASE lowers to
// IfThen; COALESCE, NULLIF, IS [NOT] DISTINCT FROM, LIKE/ILIKE (an ESCAPE
// clause with literals is folded into the pattern), || and the string and
// math functions to the standard functions, with PostgreSQL's argument
// types (substr's positions are integers, i32; floor/round/sqrt/power
// convert bigint to double precision).
//
// Usage:
//
//	stmts, err := sql.Parse("SELECT id FROM t WHERE score > :min", catalog)
//	q := stmts[0].(*sql.Query) // q.Plan, q.ParamNames == ["min"]
package sql
