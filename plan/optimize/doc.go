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
// FieldReference.outer_reference) into semi, anti, single and left joins
// the planner runs: an EXISTS or IN conjunct of a filter becomes a semi
// or anti join of the filter's input, a scalar subquery a single join
// (or, over an ungrouped aggregate, a left join of that aggregate grouped
// by the correlation's inner keys, as DuckDB flattens a correlated
// aggregate; PostgreSQL runs it as a SubPlan per outer row). The
// correlation (the conjuncts of the subquery's filters that reference the
// outer query) becomes the join's condition; the grouped aggregate's
// input is first semi joined with the keys the outer rows can have, taken
// from the one relation of the outer query that holds them and its own
// conjuncts (restrict.go; TPC-H Q17, Q20, Q2; DuckDB's delim join, and
// the SQL front end's sql/restrict.go for a base table). The restriction
// is made here, on the proto, rather than as a rule on substrait-go's
// relations after decorrelation, because here the correlation is still
// known as such: after Decorrelate it is only a LEFT join's condition,
// and which outer relation feeds the keys would have to be found again.
// For the same reason the IN/EXISTS push to one FROM item is made there
// too (semipush.go; TPC-H Q18; the front end's sql/semipush.go): an IN,
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
// The tree is also flattened into a join graph (graph.go): its relations,
// and the conjuncts, each naming the relations whose columns it reads;
// and rebuilt greedily (order.go), with the rules of the SQL front end's
// FROM-list ordering (sql/joinorder.go): the probe side is the largest
// estimated relation; then, while relations remain, one joined to the
// tree by an equality (a hash join key), else by another condition, else
// by nothing (a cross join); among those the most selective, then the
// smallest. A projection (an emit) puts the columns back in the original
// order, so every column reference above is unchanged; the conjuncts that
// cannot be placed filter its output. Row estimates (estimate.go) come
// from a Stats interface offering table row counts (the engine's catalog
// gives TableRows), a quarter kept per conjunct.
//
// The rebuilt tree replaces the producer's order (with its conjuncts
// pushed down) when it has fewer joins without a hash key (cross products
// and nested loops), or as many and it builds under a quarter of the rows
// in its hash joins (the margin of one conjunct's guess). A producer's
// order of key joins that builds about as much is kept: the SQL front
// end's FROM-list ordering already knows what this pass does not (OR
// factoring, semi-join pushes, bushy build sides), and an estimate a
// quarter per conjunct is no reason to overrule it.
//
// Only inner joins and cross products are reordered. Outer, semi, anti,
// single and mark joins are barriers: each is a relation of the graph
// above it, and its inputs are optimized on their own.
package optimize
