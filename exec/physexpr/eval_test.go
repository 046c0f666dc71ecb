package physexpr_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec/exectest"
)

// evalOver evaluates e (bound once) over a batch whose column 0 ("x", of
// type typ) holds vals, and returns the result as Go values.
func evalOver(t *testing.T, mem memory.Allocator, typ arrow.DataType, vals []any, e physexpr.Expr) ([]any, error) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ, Nullable: true}}, nil)
	rows := make([][]any, len(vals))
	for i, v := range vals {
		rows[i] = []any{v}
	}
	b, err := exectest.Batch(mem, schema, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	bd, err := physexpr.Bind(e, schema)
	if err != nil {
		return nil, err
	}
	a, err := physexpr.EvalArray(t.Context(), mem, bd, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	out := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "r", Type: a.DataType(), Nullable: true}}, nil), []arrow.Array{a}, int64(a.Len()))
	defer out.Release()
	got, err := exectest.Rows(out)
	if err != nil {
		t.Fatal(err)
	}
	res := make([]any, len(got))
	for i, r := range got {
		res[i] = r[0]
	}
	return res, nil
}

var (
	colX  = physexpr.Col{Index: 0, Name: "x"}
	i64   = arrow.PrimitiveTypes.Int64
	f64   = arrow.PrimitiveTypes.Float64
	minI  = int64(math.MinInt64)
	maxI  = int64(math.MaxInt64)
	i64of = func(v int64) physexpr.Lit { return physexpr.Lit{Value: v} }
	f64of = func(v float64) physexpr.Lit { return physexpr.Lit{Value: v} }
)

// sameValue compares results, with NaN equal to NaN and -0 distinct from 0.
func sameValue(a, b any) bool {
	fa, okA := a.(float64)
	fb, okB := b.(float64)
	if okA && okB {
		if math.IsNaN(fa) || math.IsNaN(fb) {
			return math.IsNaN(fa) && math.IsNaN(fb)
		}
		return fa == fb && math.Signbit(fa) == math.Signbit(fb)
	}
	return a == b
}

type evalCase struct {
	name string
	typ  arrow.DataType
	x    any
	e    physexpr.Expr
	want any   // the value, when err is nil
	err  error // the sentinel the error must match
}

func runEvalCases(t *testing.T, cases []evalCase) {
	t.Helper()
	mem := exectest.Mem(t)
	for _, c := range cases {
		got, err := evalOver(t, mem, c.typ, []any{c.x}, c.e)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%s: got %v, %v; want error %v", c.name, got, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: got error %v; want %v", c.name, err, c.want)
		} else if !sameValue(got[0], c.want) {
			t.Errorf("%s: got %v (%T); want %v (%T)", c.name, got[0], got[0], c.want, c.want)
		}
	}
}

func exectestMem(t *testing.T) *memory.CheckedAllocator { return exectest.Mem(t) }

func errkindIs(err error, k error) bool { return errors.Is(err, k) }

// arrowBatch wraps one array as a one-column batch.
func arrowBatch(a arrow.Array) arrow.RecordBatch {
	return array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "r", Type: a.DataType(), Nullable: true}}, nil), []arrow.Array{a}, int64(a.Len()))
}
