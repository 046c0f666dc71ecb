// Package optimize is the logical optimizer: the phase between the
// Substrait ingest (decode, migration, producer normalization, validation:
// package plan's validate and fromProto) and the physical build (plan's
// compile). It rewrites relations into relations that return the same
// rows and are cheaper to run; it never builds an operator, so it cannot
// import plan, and plan calls it for every producer's plan alike (the SQL
// front end's and Isthmus's, DuckDB's, DataFusion's). plan.Build runs its
// passes in this order: Decorrelate, then (after substrait-go reads the
// plan) Joins.
//
// Decorrelate (decorrelate*.go) is the first pass, and runs on the proto
// (substraitpb), not on substrait-go's relations: substrait-go v8 cannot
// read a subquery expression into anything a relation can evaluate. It
// rewrites every subquery expression (EXISTS, IN, op ANY/ALL, scalar;
// correlated ones reaching the enclosing query through
// FieldReference.outer_reference; the SQL front end writes all of its
// subqueries so, and builds no join for one) into semi, anti, single,
// mark and left joins the planner runs: an EXISTS or IN conjunct of a
// filter becomes a semi or anti join of the filter's input, one used as
// a value (under OR or NOT, in a project) a mark join whose mark column
// replaces it (decorrelate_mark.go), a scalar subquery
// (in a filter, a project or a sort key) a single join (or, over an
// ungrouped aggregate, a left join of that aggregate grouped by the
// correlation's inner keys, as DuckDB flattens a correlated aggregate;
// PostgreSQL runs it as a SubPlan per outer row). An inner join's
// condition is decorrelated as the filter over the joined inputs; a LEFT
// join's condition only where its subqueries read the right side alone,
// as columns of the right input (decorrelate_outerjoin.go); an
// uncorrelated EXISTS conjunct is a gate, a condition-free semi join
// over a one-row fetch of its subquery (exec's joingate.go). The correlation (the
// conjuncts of the subquery's filters that reference the outer query)
// becomes the join's condition; the grouped aggregate's input is first
// inner joined with the distinct keys the outer rows can have, taken
// from the one relation of the outer query that holds them and its own
// conjuncts (restrict.go; TPC-H Q17, Q20, Q2; DuckDB's delim join). The
// restriction is made here, on the proto, rather than as a rule on substrait-go's
// relations after decorrelation, because here the correlation is still
// known as such: after Decorrelate it is only a LEFT join's condition,
// and which outer relation feeds the keys would have to be found again.
// For the same reason the IN/EXISTS push to one FROM item is made there
// too (semipush.go; TPC-H Q18; the SQL front end's EXISTS and IN come
// here as subquery expressions in the filter over its cross products): an IN,
// EXISTS or NOT EXISTS conjunct of a filter over inner joins and cross
// products whose references all read one item, not the probe item (the
// largest by Stats), is applied to that item, after its own conjuncts,
// before the joins.
// Decorrelate needs each relation's output width, which the ingest's
// validation computes (plan's check) and passes in; a subquery it cannot
// rewrite is a *PathError naming it by its path in the plan, which plan
// reports as ErrUnsupported.
//
// Joins (joins.go) orders joins. The conjuncts of a tree of inner joins
// and cross products, with the filters above and inside it, are each
// moved to the lowest place that has every column they read (pushdown.go;
// PostgreSQL's distribute_qual_to_rels): a conjunct over one relation
// filters that relation before any join, one over several becomes a
// condition of the lowest join that has them all (a cross product becomes
// an inner join), and one that names an outer query's column, holds a
// subquery or names no column stays where it is.
//
// Before they are placed, the region's conjuncts are expanded by two
// rules. OR factoring (orfactor.go; PostgreSQL's canonicalize_qual,
// process_duplicate_ors) takes the conjuncts every branch of an OR
// shares out of it: (A ∧ B) ∨ (A ∧ C) is A ∧ (B ∨ C), so a join key
// written into each branch (TPC-H Q19) becomes a hash join key. Implied
// filters (implied.go; PostgreSQL's extract_restriction_or_clauses): an
// OR over several relations whose every branch restricts one of them
// also filters that relation by the OR of those restrictions (TPC-H Q7's
// nations), the OR itself staying as a join condition. A filter a
// relation already has is not added again.
//
// The tree is also flattened into a join graph (graph.go): its relations,
// and the conjuncts, each naming the relations whose columns it reads;
// and rebuilt (order.go). A region of up to dpLimit (12) relations is
// ordered by dynamic programming over the connected subgraphs of its
// graph (dpccp.go; DPccp, Moerkotte and Neumann 2006): the cheapest
// bushy tree by C_out, the sum of its joins' estimated rows (cost.go:
// per equivalence class of the equalities, so two foreign keys to one
// table meet as many-to-many), with cross products only where the
// equalities leave the graph disconnected; greedy's order (below) is
// kept unless DPccp's costs under a quarter of it (the margin of one
// restriction's guess; the 22 TPC-H plans keep greedy's order). A
// larger region, as PostgreSQL's
// geqo_threshold hands large FROM lists to a heuristic search, takes
// the greedy order alone: the probe side is the largest estimated
// relation; then, while relations remain, one joined to the
// tree by an equality (a hash join key), else by another condition, else
// by nothing (a cross join); among those the most selective, then the
// smallest. A relation joined by an equality comes with its arm (arm.go):
// the filtered relations hanging off it alone by equalities are joined
// into its build side first, a bushy tree (TPC-H Q11: supplier ⋈ nation
// WHERE n_name = 'GERMANY' is built before partsupp probes it); under
// DPccp the cost makes the same choice. A
// projection (an emit) puts the columns back in the original order, so
// every column reference above is unchanged; the conjuncts that cannot be
// placed filter its output. Row estimates (estimate.go) come from a Stats
// interface offering table row counts (the engine's catalog gives
// TableRows), a quarter kept per restriction: a conjunct, or a lower and
// an upper bound of one expression together (a range, as PostgreSQL's
// clauselist_selectivity pairs them). Where Stats is also a
// DistinctCounter (distinct.go: the tables' distinct-count sketches),
// an equality of a column with a constant keeps 1/ndistinct (eqsel) and
// an equivalence class joins with 1/max(ndistinct) of its columns
// (eqjoinsel, cost.go), both without most-common values.
//
// These are the planner's only row estimates: the physical planner's
// build-side choice (plan/buildside.go: a semi, anti or left join whose
// right input is estimated over twice its left builds the left, as the
// RIGHT form of its type) reads them through Estimated, which says
// whether an estimate rests on a guess (a table Stats does not count).
// The choice itself stays in the physical planner: what it trades is
// physical (exec's RIGHT forms run serial, where a left-build join probes
// its partitions in parallel; the swapped join loses its left input's
// order, which the operators' Properties track), and it must come after
// the physical rules that match the producer's join as written (the take
// rule's LEFT join of an UNNEST, plan/takeshape.go).
//
// Which tree is planned (joins.go, region): a region holding a cross
// product is a FROM list whose producer left the order open (the SQL
// front end lowers FROM a, b WHERE ... as cross products under the
// WHERE's filter, as Isthmus and DuckDB do; sql/joinorder.go): the
// rebuilt tree is planned, as PostgreSQL's join search plans a FROM list
// whatever order it was written in. A region of joins with conditions
// only was ordered by its producer (explicit JOIN ... ON, a decorrelated
// subquery's join): its conjuncts are pushed down in that order, and the
// rebuilt tree replaces it only when it has fewer joins without a hash
// key (cross products and nested loops), or as many and it builds under
// a quarter of the rows in its hash joins (the margin of one conjunct's
// guess): an estimate a quarter per conjunct is no reason to overrule a
// producer that chose its order.
//
// Only inner joins and cross products are reordered. Outer, semi, anti,
// single and mark joins are barriers: each is a relation of the graph
// above it, and its inputs are optimized on their own. A filter over an
// outer join (written over it, or the conjuncts a region places on it as
// one of its relations) is moved through it (outerjoin.go): a conjunct strict
// in a nullable side's column makes that side preserved (PostgreSQL's
// reduce_outer_joins: LEFT or RIGHT becomes INNER, FULL becomes LEFT,
// RIGHT or INNER), and a conjunct over the preserved side of a LEFT or
// RIGHT join filters that side below it (distribute_qual_to_rels), so
// the inner joins under a WHERE over outer joins (TPC-DS Q72) are a
// region with their filters. A filter over a project, an aggregate, a
// UNION ALL or a sort moves its conjuncts below it where that keeps the
// same rows (sink.go; PostgreSQL's subquery_push_qual): through column
// references and literals, into each arm, below a GROUP BY on keys whose
// equality is identity, so a view, a WITH query or a derived table is
// filtered where its rows are read (TPC-DS Q4, Q11, Q39). A constant a
// conjunct fixes on an outer join's preserved side filters the nullable
// side through the join's equality (outerjoin.go, transferred; TPC-DS
// Q78), and a LEFT JOIN node of a region whose nullable side the region
// never reads is joined above the region (liftouter.go; TPC-DS Q80).
// An OR that cannot move whole still moves what it implies: each
// disjunct's conjuncts that move, a disjunct FALSE over the arm's
// constants dropped (sink.go, relaxed); what moves has its comparisons
// of constants folded (sink.go, foldComparisons). Nodes of a region that are the
// same relation, a WITH query read twice (TPC-DS Q64's cross_sales),
// take the OR of their conjunct sets inside and keep their own above,
// so they stay equal and are computed once as one shared subplan
// (twins.go, DuckDB's CTE filter pushdown).
package optimize
