package optimize

import (
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// name is a function's name without its signature ("equal" of
// "equal:any_any"), "" when substrait-go left it without a declaration
// (its Name then panics) or the SQL front end's placeholder is cut at '@'.
func name(f *expr.ScalarFunction) (n string) {
	defer func() {
		if recover() != nil {
			n = ""
		}
	}()
	n, _, _ = strings.Cut(f.Name(), "@")
	n, _, _ = strings.Cut(n, ":")
	return n
}

// conjuncts splits an AND tree; the literal true (substrait-go's builder
// sets it as every join's post-join filter, ON TRUE) has none.
func conjuncts(e expr.Expression) []expr.Expression {
	if e == nil || isTrue(e) {
		return nil
	}
	if f, ok := e.(*expr.ScalarFunction); ok && name(f) == "and" {
		var out []expr.Expression
		for i := 0; i < f.NArgs(); i++ {
			a, ok := f.Arg(i).(expr.Expression)
			if !ok {
				return []expr.Expression{e}
			}
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []expr.Expression{e}
}

// isTrue reports whether e is the literal true.
func isTrue(e expr.Expression) bool {
	l, ok := e.(expr.Literal)
	if !ok {
		return false
	}
	b, ok := l.ToProtoLiteral().GetLiteralType().(*substraitpb.Expression_Literal_Boolean)
	return ok && b.Boolean
}

// columns calls f with each column of the input e reads. ok is false when
// e reads something a join graph cannot place: an outer query's column
// (a correlated reference), a subquery, a reference rooted in an
// expression.
func columns(e expr.Expression, f func(int)) (ok bool) {
	switch e := e.(type) {
	case *expr.FieldReference:
		s, isStruct := e.Reference.(*expr.StructFieldRef)
		if e.Root != expr.RootReference || !isStruct || s == nil {
			return false
		}
		f(int(s.Field))
		return true
	case *splan.ScalarSubquery, *splan.InPredicateSubquery, *splan.SetPredicateSubquery, *splan.SetComparisonSubquery:
		return false
	case nil:
		return true
	}
	ok = true
	e.Visit(func(c expr.Expression) expr.Expression {
		if ok {
			ok = columns(c, f)
		}
		return c
	})
	return ok
}

// remap is e with each column i it reads replaced by column to(i) (a
// nested field reference keeps its path below the column).
func remap(e expr.Expression, to func(int) int) expr.Expression {
	if fr, ok := e.(*expr.FieldReference); ok {
		s, isStruct := fr.Reference.(*expr.StructFieldRef)
		if fr.Root != expr.RootReference || !isStruct || s == nil {
			return fr
		}
		n, err := expr.NewRootFieldRefFromType(&expr.StructFieldRef{Field: int32(to(int(s.Field))), Child: s.Child}, fr.GetType())
		if err != nil {
			return fr // cannot happen: a root struct reference is always built
		}
		return n
	}
	return e.Visit(func(c expr.Expression) expr.Expression { return remap(c, to) })
}

// isEquiBetween reports whether e is equal(a, b) with one side reading
// only columns below nl and the other only columns from nl on: a hash
// join key of a join whose left input is nl columns wide.
func isEquiBetween(e expr.Expression, nl int) bool {
	f, ok := e.(*expr.ScalarFunction)
	if !ok || name(f) != "equal" || f.NArgs() != 2 {
		return false
	}
	side := func(i int) int {
		a, ok := f.Arg(i).(expr.Expression)
		if !ok {
			return 0
		}
		s := 0
		if !columns(a, func(c int) {
			t := 1
			if c >= nl {
				t = 2
			}
			if s == 0 {
				s = t
			} else if s != t {
				s = 3
			}
		}) {
			return 0
		}
		return s
	}
	a, b := side(0), side(1)
	return (a == 1 && b == 2) || (a == 2 && b == 1)
}
