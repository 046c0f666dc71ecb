package optimize

import (
	"fmt"

	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// factorOr rewrites each conjunct (A ∧ B) ∨ (A ∧ C) of cs as A, (B ∨ C):
// the conjuncts every disjunct shares come out of the OR, so a join
// condition written into each branch (TPC-H Q19: p_partkey = l_partkey
// in each of three ANDs) becomes a join key and the cross product a hash
// join. This is PostgreSQL's canonicalize_qual (prepqual.c,
// process_duplicate_ors): (A ∧ B) ∨ (A ∧ C) = A ∧ (B ∨ C) holds in SQL's
// three-valued logic, so every row's value of the conjunction is kept.
// An OR with a branch left empty (A ∨ (A ∧ C)) is A: the OR is dropped
// (process_duplicate_ors' "winners" absorb it). cs itself when no OR has
// a common conjunct.
func (o *optimizer) factorOr(cs []expr.Expression) ([]expr.Expression, error) {
	var out []expr.Expression
	changed := false
	for _, c := range cs {
		arms := disjuncts(c)
		if len(arms) < 2 {
			out = append(out, c)
			continue
		}
		branches := make([][]expr.Expression, len(arms))
		for i, a := range arms {
			branches[i] = conjuncts(a)
		}
		var common []expr.Expression
		for _, x := range branches[0] {
			if containsExpr(common, x) {
				continue
			}
			all := true
			for _, br := range branches[1:] {
				if !containsExpr(br, x) {
					all = false
					break
				}
			}
			if all {
				common = append(common, x)
			}
		}
		if len(common) == 0 {
			out = append(out, c)
			continue
		}
		changed = true
		out = append(out, common...)
		var ors []expr.Expression
		empty := false
		for _, br := range branches {
			var left []expr.Expression
			for _, x := range br {
				if !containsExpr(common, x) {
					left = append(left, x)
				}
			}
			if len(left) == 0 {
				empty = true
				break
			}
			a, err := o.and(left)
			if err != nil {
				return nil, err
			}
			ors = append(ors, a)
		}
		if !empty {
			or, err := o.or(ors)
			if err != nil {
				return nil, err
			}
			out = append(out, or)
		}
	}
	if !changed {
		return cs, nil
	}
	return out, nil
}

// disjuncts splits an OR tree (a producer may nest binary ORs, as
// Isthmus does); e alone when it is not an OR.
func disjuncts(e expr.Expression) []expr.Expression {
	f, ok := e.(*expr.ScalarFunction)
	if !ok || name(f) != "or" {
		return []expr.Expression{e}
	}
	var out []expr.Expression
	for i := 0; i < f.NArgs(); i++ {
		a, ok := f.Arg(i).(expr.Expression)
		if !ok {
			return []expr.Expression{e}
		}
		out = append(out, disjuncts(a)...)
	}
	return out
}

// or is the disjunction of es (es itself when one), declared in the
// pass's own registry as and is.
func (o *optimizer) or(es []expr.Expression) (expr.Expression, error) {
	if len(es) == 1 {
		return es[0], nil
	}
	reg, err := ownRegistry()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInternal, err)
	}
	ownMu.Lock()
	f, err := substraitfn.Scalar(reg, substraitfn.URNBoolean, "or", es...)
	ownMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%w: or: %w", ErrInternal, err)
	}
	return f, nil
}

// containsExpr reports whether es holds an expression the same as x.
func containsExpr(es []expr.Expression, x expr.Expression) bool {
	for _, e := range es {
		if sameExpr(e, x) {
			return true
		}
	}
	return false
}

// sameExpr reports whether a and b compute the same value: equal
// expressions, where a function is compared by its name, output type and
// arguments, not its anchor (an AND or OR the pass declared has an
// anchor of its own registry, the plan's the same function under
// another).
func sameExpr(a, b expr.Expression) bool {
	fa, ok1 := a.(*expr.ScalarFunction)
	fb, ok2 := b.(*expr.ScalarFunction)
	if !ok1 || !ok2 {
		return !ok1 && !ok2 && a.Equals(b)
	}
	if fa.FuncRef() == fb.FuncRef() {
		return fa.NArgs() == fb.NArgs() && fa.Equals(fb)
	}
	na := name(fa)
	if na == "" || na != name(fb) || fa.NArgs() != fb.NArgs() || !fa.GetType().Equals(fb.GetType()) || len(fa.GetOptions()) > 0 || len(fb.GetOptions()) > 0 {
		return false
	}
	for i := 0; i < fa.NArgs(); i++ {
		x, ok1 := fa.Arg(i).(expr.Expression)
		y, ok2 := fb.Arg(i).(expr.Expression)
		if !ok1 || !ok2 || !sameExpr(x, y) {
			return false
		}
	}
	return true
}
