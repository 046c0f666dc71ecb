package physexpr_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec/exectest"
)

// A value error names the innermost expression that raised it and the
// first input row it raised on (found by bisecting the batch), keeps its
// sentinel for errors.Is, and leaves no memory behind.
func TestExprErrorNamesExpressionAndRow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "g", Type: i64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: i64, Nullable: true},
	}, nil)
	const n, bad = 10000, 7777
	rows := make([][]any, n)
	for i := range rows {
		d := any(int64(i - bad)) // zero on row bad only
		if i%10 == 3 {
			d = nil // NULL rows never raise
		}
		rows[i] = []any{int64(i), "o'k", d}
	}
	b, err := exectest.Batch(mem, schema, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	g, d := physexpr.Col{Index: 0, Name: "g"}, physexpr.Col{Index: 2, Name: "d"}
	div := physexpr.Binary{Op: physexpr.OpDiv, L: g, R: d}
	for _, c := range []struct {
		name string
		e    physexpr.Expr
		is   error
		want string
	}{
		{"division", div, physexpr.ErrDivisionByZero, "exec: division by zero in g@0 / d@2 (row: g = 7777, d = 0)"},
		// The division raises inside the sum; the sum is not named.
		{"innermost", physexpr.Binary{Op: physexpr.OpAdd, L: physexpr.Lit{Value: int64(1)}, R: div}, physexpr.ErrDivisionByZero,
			"exec: division by zero in g@0 / d@2 (row: g = 7777, d = 0)"},
		// The multiplication itself overflows: it is the one named, with
		// parentheses where the text needs them.
		{"overflow", physexpr.Binary{Op: physexpr.OpMul, L: physexpr.Binary{Op: physexpr.OpAdd, L: g, R: physexpr.Lit{Value: int64(1)}},
			R: physexpr.Lit{Value: int64(1) << 62}}, physexpr.ErrOutOfRange,
			"exec: value out of range: bigint out of range in (g@0 + 1) * 4611686018427387904 (row: g = 1)"},
	} {
		bd, err := physexpr.Bind(c.e, schema)
		if err != nil {
			t.Fatal(err)
		}
		_, err = physexpr.EvalArray(context.Background(), mem, bd, b)
		var ee *physexpr.ExprError
		if !errors.Is(err, c.is) || !errors.As(err, &ee) || err.Error() != c.want {
			t.Errorf("%s: got %v\nwant %s", c.name, err, c.want)
		}
	}
}

// A string value in the named row is quoted as SQL quotes it, and a row
// of an expression that reads no column shows the input's columns.
func TestExprErrorRowText(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b, err := exectest.Batch(mem, schema, [][]any{{"12"}, {"it's"}, {"7"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	bd, err := physexpr.Bind(physexpr.Cast{E: physexpr.Col{Index: 0, Name: "s"}, To: i64}, schema)
	if err != nil {
		t.Fatal(err)
	}
	_, err = physexpr.EvalArray(context.Background(), mem, bd, b)
	var ee *physexpr.ExprError
	if !errors.As(err, &ee) || ee.Row != "s = 'it''s'" {
		t.Fatalf("got %v", err)
	}
}
