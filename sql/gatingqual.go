package sql

import (
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
)

// PostgreSQL turns a WHERE conjunct that reads no column and calls nothing
// volatile (a pseudoconstant) into a gating qual: the One-Time Filter of a
// Result node above the scan or join (create_gating_plan), evaluated once
// when the query starts, before any row is read. So it raises even over
// an empty table, stable calls included, which eval_const_expressions
// does not fold (CAST(CAST(TIMESTAMP '2023-12-31' AS TEXT) AS BIGINT) =
// -10 raises 22P02 with no row; the shrinker's shape of seed 20261214
// case 17367), and when it is FALSE or NULL no row is read, so the other
// conjuncts never raise on one (WHERE mod(k, k) < 4294967296 AND NULL
// over a row with k = 0, the NULL a constant HAVING moved into the WHERE;
// seed 20261214 case 2845).
//
// The top query's WHERE (not a subquery's, which PostgreSQL runs only as
// often as its outer query asks, maybe never) is always started, unless a
// LIMIT 0 over it never pulls a row (ExecLimit returns at once for an
// empty window: seed 20261222 case 57522; lowerer.unpulled), so its
// gating quals are evaluated here, while planning, with the executor's
// kernels: an error is the statement's, and FALSE or NULL makes the whole
// filter FALSE. The other conjuncts are still simplified first
// (simplify_and_arguments folds every operand when none is a constant
// FALSE), so a raising constant among them raises before (raisingConstant).

// gatingQuals is cond, the top query's WHERE condition, after its
// pseudoconstant conjuncts were evaluated: FALSE when one is FALSE or
// NULL, cond otherwise; err is the error one raised.
func gatingQuals(cond expr.Expression) (expr.Expression, error) {
	for _, c := range conjuncts(cond) {
		if readsColumn(c) {
			continue
		}
		lit, ok, err := c, true, error(nil)
		if _, isLit := literalOf(c); !isLit {
			lit, ok, err = evalConst(c)
		}
		if !ok {
			continue // a parameter, or nothing the executor evaluates here
		}
		if err != nil {
			if rerr := raisingConstant(cond); rerr != nil {
				return nil, rerr
			}
			return nil, err
		}
		if constFalse(lit) {
			if rerr := raisingConstant(cond); rerr != nil {
				return nil, rerr
			}
			return expr.NewPrimitiveLiteral(false, false), nil
		}
	}
	return cond, nil
}

// conjuncts are the operands of cond's AND tree (cond itself when it is
// no AND).
func conjuncts(cond expr.Expression) []expr.Expression {
	f, ok := cond.(*expr.ScalarFunction)
	if !ok {
		return []expr.Expression{cond}
	}
	// The name may carry its signature (and:bool, and@bool).
	if name, _, _ := strings.Cut(f.Name(), ":"); strings.Split(name, "@")[0] != "and" {
		return []expr.Expression{cond}
	}
	var out []expr.Expression
	for i := 0; i < f.NArgs(); i++ {
		a, ok := f.Arg(i).(expr.Expression)
		if !ok {
			return []expr.Expression{cond}
		}
		out = append(out, conjuncts(a)...)
	}
	return out
}

// readsColumn: e reads a field of its input (or of an outer query's).
func readsColumn(e expr.Expression) bool { return readsColumnOf(e, true) }

// readsOwnColumn is readsColumn of the query's own level: an outer
// reference (a column of an enclosing query, PostgreSQL's Var of
// varlevelsup > 0, a Param at run time) does not count, as
// transformAExprIn's contain_vars_of_level(rexpr, 0) does not count it
// when it sorts an IN list's options into the array.
func readsOwnColumn(e expr.Expression) bool { return readsColumnOf(e, false) }

func readsColumnOf(e expr.Expression, outer bool) bool {
	if f, ok := e.(*expr.FieldReference); ok {
		if _, up := f.Root.(expr.OuterReference); up && !outer {
			return false
		}
		return true
	}
	found := false
	e.Visit(func(c expr.Expression) expr.Expression {
		if !found && readsColumnOf(c, outer) {
			found = true
		}
		return c
	})
	return found
}
