package plan_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/types"
)

const (
	urnString     = extensions.SubstraitDefaultURNPrefix + "functions_string"
	urnComparison = extensions.SubstraitDefaultURNPrefix + "functions_comparison"
	urnArith      = extensions.SubstraitDefaultURNPrefix + "functions_arithmetic"
	urnRounding   = extensions.SubstraitDefaultURNPrefix + "functions_rounding"
)

func opt(name, value string) []*types.FunctionOption {
	return []*types.FunctionOption{{Name: name, Preference: []string{value}}}
}

// TestSubstraitScalarExprs: plans as another producer writes them
// (substrait-go's builder over the standard YAML: compound names,
// options, IfThen) run with PostgreSQL's semantics. Expected rows worked
// out by hand from tRows.
func TestSubstraitScalarExprs(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	s := newSB(t)
	r := s.scan(c, "t")
	id, name, score := s.ref(r, 0), s.ref(r, 1), s.ref(r, 2)
	// CASE WHEN id = 12 THEN 0 ELSE 100 / (id - 12) END: no division by
	// zero for id 12.
	eq := s.fn(urnComparison, "equal", id, lit(int64(12)))
	div := s.fn(urnArith, "divide", lit(int64(100)), s.fn(urnArith, "subtract", id, lit(int64(12))))
	cs := must(expr.NewIfThen(expr.IfThenPair{If: eq, Then: expr.NewPrimitiveLiteral(int64(0), true)}, div))
	ilike := must(s.b.ScalarFn(urnString, "like", opt("case_sensitivity", "CASE_INSENSITIVE"), name, lit("B%")))
	coalesce := must(s.b.ScalarFn(urnComparison, "coalesce:any", nil, name, lit("none")))
	concat := must(s.b.ScalarFn(urnString, "concat:str", nil, name, lit("!")))
	round := must(s.b.ScalarFn(urnRounding, "round", opt("rounding", "TIE_TO_EVEN"), score, expr.NewPrimitiveLiteral(int32(0), false)))
	distinct := must(s.b.ScalarFn(urnComparison, "is_not_distinct_from", nil, score, expr.NewNullLiteral(&types.Float64Type{Nullability: types.NullabilityNullable})))
	pr := must(s.b.ProjectRemap(r, []int32{0, 5, 6, 7, 8, 9, 10}, cs, ilike, coalesce, concat, round, distinct))
	rows, explain, err := run(t, mem, c, s.plan(pr, "id", "case", "ilike", "coalesce", "concat", "round", "isnull"), plan.Options{}, nil, 2)
	if err != nil {
		t.Fatalf("%v\n%s", err, explain)
	}
	want := [][]any{
		{int64(10), int64(-50), false, "a", "a!", 2.0, false},
		{int64(11), int64(-100), true, "b", "b!", nil, true},
		{int64(12), int64(0), nil, "none", nil, 4.0, false},
		{nil, nil, false, "d", "d!", 4.0, false},
		{int64(14), int64(50), false, "e", "e!", -1.0, false},
		{int64(15), int64(33), true, "b", "b!", 2.0, false},
		{int64(16), int64(25), false, "g", "g!", 0.0, false},
	}
	equalRows(t, sortedRows(rows), sortedRows(want))
}

// TestSubstraitScalarOptions: an option value the engine does not
// implement is refused as unsupported, naming it, never run with other
// semantics.
func TestSubstraitScalarOptions(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	s := newSB(t)
	r := s.scan(c, "t")
	name := s.ref(r, 1)
	for _, f := range []*expr.ScalarFunction{
		must(s.b.ScalarFn(urnString, "like", opt("case_sensitivity", "CASE_INSENSITIVE_ASCII"), name, lit("b%"))),
		must(s.b.ScalarFn(urnString, "substring", opt("negative_start", "WRAP_FROM_END"), name, expr.NewPrimitiveLiteral(int32(-1), false))),
		must(s.b.ScalarFn(urnString, "concat:str", opt("null_handling", "IGNORE_NULLS"), name, lit("x"))),
		must(s.b.ScalarFn(urnRounding, "round", opt("rounding", "CEILING"), s.ref(r, 2), expr.NewPrimitiveLiteral(int32(0), false))),
		must(s.b.ScalarFn(urnRounding, "round", nil, s.ref(r, 2), expr.NewPrimitiveLiteral(int32(2), false))),
	} {
		pr := must(s.b.ProjectRemap(r, []int32{5}, f))
		_, _, err := run(t, mem, c, s.plan(pr, "x"), plan.Options{}, nil, 2)
		if !errors.Is(err, plan.ErrUnsupported) || !strings.Contains(err.Error(), funcNameOf(f)) {
			t.Errorf("%s: got %v, want an unsupported-function error naming it", f, err)
		}
	}
}

func funcNameOf(f *expr.ScalarFunction) string { return f.Name() }
