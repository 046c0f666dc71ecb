package physexpr_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/stablerow/stablerow/value"
)

// TestCaseShortCircuit: CASE WHEN x = 0 THEN 0 ELSE 1 / x END must not
// divide by zero for the x = 0 rows (PostgreSQL's documented evaluation
// rule), and each arm's value comes from its own rows.
func TestCaseShortCircuit(t *testing.T) {
	mem := exectestMem(t)
	e := physexpr.Case{
		Whens: []physexpr.When{{Cond: physexpr.Binary{Op: physexpr.OpEq, L: colX, R: i64of(0)}, Then: i64of(0)}},
		Else:  physexpr.Binary{Op: physexpr.OpDiv, L: i64of(100), R: colX},
	}
	got, err := evalOver(t, mem, i64, []any{int64(0), int64(5), nil, int64(-3), int64(0)}, e)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(0), int64(20), nil, int64(-33), int64(0)}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: got %v, want %v (all %v)", i, got[i], want[i], got)
		}
	}
	// A later condition runs only over the rows earlier ones left: the
	// division in the second WHEN never sees x = 0.
	e2 := physexpr.Case{
		Whens: []physexpr.When{
			{Cond: physexpr.Binary{Op: physexpr.OpEq, L: colX, R: i64of(0)}, Then: physexpr.Lit{Value: "zero"}},
			{Cond: physexpr.Binary{Op: physexpr.OpGt, L: physexpr.Binary{Op: physexpr.OpDiv, L: i64of(10), R: colX}, R: i64of(2)}, Then: physexpr.Lit{Value: "small"}},
		},
	}
	got, err = evalOver(t, mem, i64, []any{int64(0), int64(1), int64(10), nil}, e2)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != "zero" || got[1] != "small" || got[2] != nil || got[3] != nil {
		t.Fatalf("got %v", got)
	}
	// The division is still an error where a row reaches it.
	if _, err := evalOver(t, mem, i64, []any{int64(1), int64(0)}, physexpr.Case{
		Whens: []physexpr.When{{Cond: physexpr.Binary{Op: physexpr.OpEq, L: colX, R: i64of(1)}, Then: i64of(1)}},
		Else:  physexpr.Binary{Op: physexpr.OpDiv, L: i64of(1), R: colX},
	}); !errors.Is(err, physexpr.ErrDivisionByZero) {
		t.Fatalf("got %v", err)
	}
	// Type errors at bind.
	if _, err := evalOver(t, mem, i64, []any{int64(1)}, physexpr.Case{Whens: []physexpr.When{{Cond: colX, Then: colX}}}); !errors.Is(err, physexpr.ErrSchema) {
		t.Fatalf("non-boolean condition: %v", err)
	}
}

func TestCoalesceLazy(t *testing.T) {
	mem := exectestMem(t)
	// COALESCE(x, 100 / x, -1): the division runs only where x is NULL...
	e := physexpr.Coalesce{Args: []physexpr.Expr{colX, physexpr.Binary{Op: physexpr.OpDiv, L: i64of(100), R: physexpr.Binary{Op: physexpr.OpAdd, L: colX, R: i64of(1)}}, i64of(-1)}}
	got, err := evalOver(t, mem, i64, []any{int64(0), nil, int64(7), nil}, e)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != int64(0) || got[1] != int64(-1) || got[2] != int64(7) || got[3] != int64(-1) {
		t.Fatalf("got %v", got)
	}
	// ...and where it runs it raises.
	e = physexpr.Coalesce{Args: []physexpr.Expr{colX, physexpr.Binary{Op: physexpr.OpDiv, L: i64of(1), R: i64of(0)}}}
	if _, err := evalOver(t, mem, i64, []any{int64(1), nil}, e); !errors.Is(err, physexpr.ErrDivisionByZero) {
		t.Fatalf("got %v", err)
	}
	if got, err := evalOver(t, mem, i64, []any{int64(1), int64(2)}, e); err != nil || got[1] != int64(2) {
		t.Fatalf("got %v %v", got, err)
	}
	// All NULL stays NULL.
	got, err = evalOver(t, mem, i64, []any{nil}, physexpr.Coalesce{Args: []physexpr.Expr{colX, physexpr.Lit{Type: i64}}})
	if err != nil || got[0] != nil {
		t.Fatalf("got %v %v", got, err)
	}
}

func TestNullIfAndDistinct(t *testing.T) {
	mem := exectestMem(t)
	nan := math.NaN()
	got, err := evalOver(t, mem, f64, []any{1.0, 2.0, nil, nan, math.Copysign(0, -1)}, physexpr.NullIf{A: colX, B: f64of(1)})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != nil || got[1] != 2.0 || got[2] != nil || !math.IsNaN(got[3].(float64)) || got[4] != 0.0 {
		t.Fatalf("nullif: %v", got)
	}
	// NaN = NaN and -0 = 0 in PostgreSQL: NULLIF(NaN, NaN) is NULL.
	got, err = evalOver(t, mem, f64, []any{nan, math.Copysign(0, -1)}, physexpr.NullIf{A: colX, B: colX})
	if err != nil || got[0] != nil || got[1] != nil {
		t.Fatalf("nullif(x, x): %v %v", got, err)
	}
	vals := []any{int64(1), int64(2), nil}
	for _, c := range []struct {
		not  bool
		rhs  physexpr.Expr
		want []any
	}{
		{false, i64of(1), []any{false, true, true}},
		{true, i64of(1), []any{true, false, false}},
		{false, physexpr.Lit{Type: i64}, []any{true, true, false}},
		{true, physexpr.Lit{Type: i64}, []any{false, false, true}},
	} {
		got, err := evalOver(t, mem, i64, vals, physexpr.Distinct{A: colX, B: c.rhs, Not: c.not})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("%v: got %v, want %v", physexpr.Distinct{A: colX, B: c.rhs, Not: c.not}, got, c.want)
			}
		}
	}
}

func TestLike(t *testing.T) {
	cases := []struct {
		s, p  string
		ci    bool
		want  bool
		error bool
	}{
		{"abc", "a%", false, true, false},
		{"abc", "_b_", false, true, false},
		{"abc", "_b", false, false, false},
		{"a%", `a\%`, false, true, false},
		{"ab", `a\%`, false, false, false},
		{"a", `a\`, false, false, false}, // the matcher never reaches the escape
		{"ab", `a\`, false, false, true},
		{"ab", `%\`, false, false, true},
		{"héllo", "h_llo", false, true, false},
		{"héllo", "%é%", false, true, false},
		{"", "%", false, true, false},
		{"", "_", false, false, false},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "%a%a%a%a%a%a%a%a%a%a%c", false, false, false},
		{"É", "é", true, true, false},
		{"ǅ", "ǆ", true, true, false},
		{"ABC", "a_c", true, true, false},
		{"ABC", "a_c", false, false, false},
	}
	mem := exectestMem(t)
	for _, c := range cases {
		got, err := evalOver(t, mem, str, []any{c.s}, physexpr.Like{E: colX, Pattern: strL(c.p), CaseInsensitive: c.ci})
		if c.error {
			if !errors.Is(err, physexpr.ErrEscape) {
				t.Errorf("%q LIKE %q: got %v, %v; want an escape error", c.s, c.p, got, err)
			}
			continue
		}
		if err != nil || got[0] != c.want {
			t.Errorf("%q LIKE %q (ci %v): got %v, %v; want %v", c.s, c.p, c.ci, got, err, c.want)
		}
		// The same pattern as a column (not prepared at bind) agrees.
		got, err = evalOver(t, mem, str, []any{c.p}, physexpr.Like{E: strL(c.s), Pattern: colX, CaseInsensitive: c.ci, Not: true})
		if err != nil || got[0] != !c.want {
			t.Errorf("%q NOT LIKE column %q: got %v, %v", c.s, c.p, got, err)
		}
	}
	got, err := evalOver(t, mem, str, []any{nil, "x"}, physexpr.Like{E: colX, Pattern: physexpr.Lit{Type: str}})
	if err != nil || got[0] != nil || got[1] != nil {
		t.Fatalf("NULL LIKE: %v %v", got, err)
	}
}

// TestLikeEscapeMatches: a pattern value.LikeEscape rewrote matches as
// LIKE ... ESCAPE does: 'a%' LIKE 'a#%' ESCAPE '#' is true.
func TestLikeEscapeMatches(t *testing.T) {
	p, err := value.LikeEscape("a#%", "#")
	if err != nil {
		t.Fatal(err)
	}
	if m, err := physexpr.LikeMatch("a%", p); !m || err != nil {
		t.Fatal(m, err)
	}
}
