// Package physexpr holds stablerow's scalar expressions and their column
// kernels, below the operators of package exec (DataFusion's physical-expr
// beside its physical-plan): exec's filter, projection and join residuals
// bind its expressions, and exec's filter, joins and sort copy rows with
// its Gather; it never imports exec.
//
// Usage:
//
//	e := physexpr.Binary{Op: physexpr.OpGt, L: physexpr.Col{Index: 0, Name: "k"}, R: physexpr.Lit{Value: int64(4)}}
//	bd, _ := physexpr.Bind(e, schema)                 // once per input schema
//	col, _ := physexpr.EvalArray(ctx, mem, bd, batch) // per batch; the caller releases col
//
// Expressions (Expr: Col, Lit, Binary, Unary, In, InValues, Cast,
// CharCast, CharPad, DateArith, DecimalArith, DecimalRound, and the scalar
// expressions Case, Coalesce, NullIf, Distinct, Like, MinMax, Extract and
// Func, whose functions are registered by name in func.go) are plan-side
// trees. exec.FilterExec and exec.ProjectExec Bind them to their input
// schema once (bind.go); the Bound tree evaluates a batch to a
// compute.Datum, an array or a scalar standing for every row, so literals
// and parameters are never copied per row. A Bound type holds what it
// shares with the others by embedding it (bind.go): exprOf, its String
// (the Expr it was bound from, kept for its kernels); ofType, a result
// type settled at Bind; predicate, a boolean result. A Memo (memo.go) keeps a
// node's Bound, so a planner that builds a tree bottom-up and asks each
// node its type binds each node once. Arithmetic and casts follow
// PostgreSQL (arith.go, cast.go): overflow is ErrOutOfRange, a zero
// divisor ErrDivisionByZero, never a wrapped value. A failing row's error
// names the expression and the row (exprerror.go). A comparison's planner
// may drop a widening numeric cast on a column compared with a constant
// (UnwrapWidening, castwiden.go): the same rows, on the word kernels.
//
// A single value's parse, format and conversion (numeric_in and
// numeric_out, date and timestamp text, float8out, boolin, extract's
// fields, char(n)'s length coercion) are package value's; the kernels here
// apply them a column at a time. physexpr keeps a few of value's
// names (valuenames.go, errors.go) because plan and many callers match or
// call them through it; they are the same objects.
//
// Predicates run as typed loops over the values slices, 64 rows to a
// result word, NULLs by ANDing validity bitmaps: comparisons of a column
// with a constant or another column (cmp_kernels.go), IN lists (in.go),
// LIKE patterns of literal runs and '%' on raw bytes (like_fast.go).
// Rows are copied by index in one place, gather.go (Gather: a typed loop
// per column where there is one, else compute.TakeArray), for the
// filter's kept rows, the join's output and the sort's permutation.
//
// Decimal + - * / % run in lanes chosen at Bind (decarith.go); a tree of
// + - * whose leaves fit int64 is evaluated at its root in int64, one
// output column for the tree (decfused.go).
//
// CASE and COALESCE evaluate an arm only over the rows that reach it
// (case.go, selection.go), so an arm's error is raised only where
// PostgreSQL would raise it.
package physexpr
