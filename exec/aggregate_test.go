package exec_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// aggSchema: a small group key, an integer, a string, a float and a bool,
// all nullable.
var aggSchema = arrow.NewSchema([]arrow.Field{
	{Name: "g", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

func aggRows(r *rand.Rand, n int) [][]any {
	rows := make([][]any, n)
	maybe := func(v any) any {
		if r.IntN(4) == 0 {
			return nil
		}
		return v
	}
	for i := range rows {
		rows[i] = []any{
			maybe(int64(r.IntN(5))),
			maybe(int64(r.IntN(7) - 3)),
			maybe(string(rune('a' + r.IntN(4)))),
			maybe(float64(r.IntN(9)) / 4),
			maybe(r.IntN(3) > 0),
		}
	}
	return rows
}

var allMeasures = []exec.Aggregate{
	{Func: exec.AggCountStar, Name: "n"},
	{Func: exec.AggCount, Args: []int{2}, Name: "cs"},
	{Func: exec.AggSum, Args: []int{1}, Name: "sx"},
	{Func: exec.AggAvg, Args: []int{1}, Name: "ax"},
	{Func: exec.AggMin, Args: []int{2}, Name: "mins"},
	{Func: exec.AggMax, Args: []int{3}, Name: "maxf"},
	{Func: exec.AggSum, Args: []int{3}, Name: "sf"},
	{Func: exec.AggBoolAnd, Args: []int{4}, Name: "band"},
	{Func: exec.AggBoolOr, Args: []int{4}, Name: "bor"},
	{Func: exec.AggStringAgg, Args: []int{2, 2}, Name: "sa"},
	{Func: exec.AggCount, Args: []int{2}, Distinct: true, Name: "cds"},
	{Func: exec.AggSum, Args: []int{1}, Distinct: true, Name: "sdx"},
}

// refAggregate is the reference model: groups of rows by the value of
// column g (nil a group of its own), each measure computed by a plain loop
// in input order, in order of first appearance.
func refAggregate(rows [][]any, grouped bool) [][]any {
	type grp struct{ rows [][]any }
	var order []any
	groups := map[any]*grp{}
	for _, row := range rows {
		var k any = "all"
		if grouped {
			k = row[0]
		}
		g, ok := groups[k]
		if !ok {
			g = &grp{}
			groups[k] = g
			order = append(order, k)
		}
		g.rows = append(g.rows, row)
	}
	if !grouped && len(order) == 0 {
		order, groups["all"] = []any{"all"}, &grp{}
	}
	var out [][]any
	for _, k := range order {
		g := groups[k]
		var res []any
		if grouped {
			res = append(res, k)
		}
		nonNull := func(c int) []any {
			var vs []any
			for _, r := range g.rows {
				if r[c] != nil {
					vs = append(vs, r[c])
				}
			}
			return vs
		}
		distinct := func(vs []any) []any {
			var out []any
			for _, v := range vs {
				if !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
			return out
		}
		sumInt := func(vs []any) any {
			if len(vs) == 0 {
				return nil
			}
			var s int64
			for _, v := range vs {
				s += v.(int64)
			}
			return s
		}
		xs, ss, fs, bs := nonNull(1), nonNull(2), nonNull(3), nonNull(4)
		res = append(res, int64(len(g.rows)), int64(len(ss)), sumInt(xs))
		if len(xs) == 0 {
			res = append(res, nil)
		} else {
			f, _ := new(big.Rat).SetFrac64(sumInt(xs).(int64), int64(len(xs))).Float64()
			res = append(res, f)
		}
		if len(ss) == 0 {
			res = append(res, nil)
		} else {
			m := ss[0].(string)
			for _, v := range ss {
				m = min(m, v.(string))
			}
			res = append(res, m)
		}
		if len(fs) == 0 {
			res = append(res, nil, nil)
		} else {
			m, s := fs[0].(float64), 0.0
			for _, v := range fs {
				m, s = max(m, v.(float64)), s+v.(float64)
			}
			res = append(res, m, s)
		}
		if len(bs) == 0 {
			res = append(res, nil, nil)
		} else {
			and, or := true, false
			for _, v := range bs {
				and, or = and && v.(bool), or || v.(bool)
			}
			res = append(res, and, or)
		}
		if len(ss) == 0 {
			res = append(res, nil)
		} else {
			// string_agg(s, s): each value but the first preceded by itself.
			var b strings.Builder
			for i, v := range ss {
				if i > 0 {
					b.WriteString(v.(string))
				}
				b.WriteString(v.(string))
			}
			res = append(res, b.String())
		}
		res = append(res, int64(len(distinct(ss))), sumInt(distinct(xs)))
		out = append(out, res)
	}
	return out
}

func TestHashAggregateAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 17, 200} {
		rows := aggRows(r, n)
		for _, grouped := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/grouped=%v", n, grouped), func(t *testing.T) {
				var gby []int
				if grouped {
					gby = []int{0}
				}
				exectest.Run(t, exectest.Case{
					Inputs: []exectest.Input{{Schema: aggSchema, Rows: rows}},
					Build: func(in []exec.Node) (exec.Node, error) {
						return exec.NewHashAggregateExec(in[0], gby, allMeasures)
					},
					Want:    refAggregate(rows, grouped),
					Ordered: true, // order of first appearance
				})
			})
		}
	}
}

// TestOrderedAggregateAgainstModel: the streaming aggregation over input
// sorted on the key gives the model's groups in key order.
func TestOrderedAggregateAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{0, 1, 17, 200} {
		rows := aggRows(r, n)
		slices.SortStableFunc(rows, func(a, b []any) int {
			switch {
			case a[0] == nil && b[0] == nil:
				return 0
			case a[0] == nil:
				return 1
			case b[0] == nil:
				return -1
			}
			return int(a[0].(int64) - b[0].(int64))
		})
		exectest.Run(t, exectest.Case{
			Inputs: []exectest.Input{{Schema: aggSchema, Rows: rows}},
			Build: func(in []exec.Node) (exec.Node, error) {
				return exec.NewOrderedAggregateExec(in[0], []int{0}, allMeasures)
			},
			Want:    refAggregate(rows, true),
			Ordered: true,
		})
	}
}

// TestGroupKeysNullNaNZero: NULL is one group, every NaN one group, -0 and
// 0 one group (PostgreSQL's float equality), over two key columns.
func TestGroupKeysNullNaNZero(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	nan2 := math.Float64frombits(math.Float64bits(math.NaN()) | 1)
	rows := [][]any{
		{math.NaN(), "a"}, {nan2, "a"}, {0.0, nil}, {math.Copysign(0, -1), nil},
		{nil, nil}, {nil, nil}, {nil, "a"}, {1.0, "a"}, {1.0, "ab"},
	}
	got, err := runNode(t, schema, rows, func(v exec.Node) (exec.Node, error) {
		return exec.NewHashAggregateExec(v, []int{0, 1}, []exec.Aggregate{{Func: exec.AggCountStar, Name: "n"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	// NaN != NaN for DeepEqual: compare the printed rows.
	want := "[[NaN a 2] [0 <nil> 2] [<nil> <nil> 2] [<nil> a 1] [1 a 1] [1 ab 1]]"
	if fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}

// runNode runs build over one batch of rows and returns the output rows.
func runNode(t *testing.T, schema *arrow.Schema, rows [][]any, build func(exec.Node) (exec.Node, error)) ([][]any, error) {
	t.Helper()
	mem := exectest.Mem(t)
	b, err := exectest.Batch(mem, schema, rows)
	if err != nil {
		t.Fatal(err)
	}
	v, err := exec.NewValuesExec(schema, []arrow.RecordBatch{b})
	b.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	a, err := build(v)
	if err != nil {
		t.Fatal(err)
	}
	st, err := a.Execute(t.Context(), &exec.TaskContext{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Collect(t.Context(), st)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, b := range out {
			b.Release()
		}
	}()
	return exectest.Rows(out...)
}

func runAgg(t *testing.T, rows [][]any, aggs []exec.Aggregate) ([][]any, error) {
	t.Helper()
	return runNode(t, aggSchema, rows, func(v exec.Node) (exec.Node, error) { return exec.NewHashAggregateExec(v, nil, aggs) })
}

// TestSumBigintExact: sum(bigint) is exact in between (PostgreSQL sums
// bigint as numeric), and a total outside bigint is an OutOfRange error,
// never a wrapped value.
func TestSumBigintExact(t *testing.T) {
	row := func(x int64) []any { return []any{nil, x, nil, nil, nil} }
	sum := []exec.Aggregate{{Func: exec.AggSum, Args: []int{1}, Name: "s"}, {Func: exec.AggAvg, Args: []int{1}, Name: "a"}}
	got, err := runAgg(t, [][]any{row(math.MaxInt64), row(math.MaxInt64), row(-math.MaxInt64), row(-5)}, sum)
	if err != nil {
		t.Fatal(err)
	}
	// avg: (2^63-1 - 5) / 4, rounded once.
	if want := [][]any{{int64(math.MaxInt64 - 5), float64(math.MaxInt64-5) / 4}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	_, err = runAgg(t, [][]any{row(math.MaxInt64), row(1)}, sum[:1])
	if !errors.Is(err, errkind.OutOfRange) || !strings.Contains(err.Error(), "bigint out of range") {
		t.Fatalf("overflowing sum: %v", err)
	}
	// avg of a total beyond bigint is still exact: (2·(2^63-1)) / 2.
	got, err = runAgg(t, [][]any{row(math.MaxInt64), row(math.MaxInt64)}, sum[1:])
	if err != nil || got[0][0] != float64(math.MaxInt64) {
		t.Fatalf("avg beyond bigint: %v %v", got, err)
	}
}

// TestFloatSumOverflow: finite values reaching infinity raise as
// PostgreSQL's float8pl and float8_accum do; an infinite input does not.
func TestFloatSumOverflow(t *testing.T) {
	row := func(f float64) []any { return []any{nil, nil, nil, f, nil} }
	for _, f := range []exec.AggregateFunc{exec.AggSum, exec.AggAvg} {
		m := []exec.Aggregate{{Func: f, Args: []int{3}, Name: "s"}}
		if _, err := runAgg(t, [][]any{row(1e308), row(1e308)}, m); !errors.Is(err, errkind.OutOfRange) {
			t.Fatalf("%s: %v", f, err)
		}
		got, err := runAgg(t, [][]any{row(math.Inf(1)), row(1)}, m)
		if err != nil || !math.IsInf(got[0][0].(float64), 1) {
			t.Fatalf("%s of +Inf: %v %v", f, got, err)
		}
	}
}

func TestAggregateRefusals(t *testing.T) {
	v, _ := exec.NewValuesExec(aggSchema, nil)
	for _, c := range []struct {
		gby  []int
		aggs []exec.Aggregate
	}{
		{nil, []exec.Aggregate{{Func: exec.AggCount, Args: []int{5}}}},
		{nil, nil},
		{[]int{9}, nil},
		{nil, []exec.Aggregate{{Func: exec.AggSum, Args: []int{2}}}},
		{nil, []exec.Aggregate{{Func: exec.AggBoolAnd, Args: []int{1}}}},
		{nil, []exec.Aggregate{{Func: exec.AggStringAgg, Args: []int{2}}}},
		{nil, []exec.Aggregate{{Func: exec.AggregateFunc(99), Args: []int{2}}}},
	} {
		if _, err := exec.NewHashAggregateExec(v, c.gby, c.aggs); !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("%v %v: %v", c.gby, c.aggs, err)
		}
	}
	if _, err := exec.NewOrderedAggregateExec(v, nil, allMeasures); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("ordered without groups: %v", err)
	}
}

// TestMinMaxTieKeepsLater: on equal values PostgreSQL's float8larger and
// float8smaller return the later one, which shows for 0 and -0.
func TestMinMaxTieKeepsLater(t *testing.T) {
	row := func(f float64) []any { return []any{nil, nil, nil, f, nil} }
	negZero := math.Copysign(0, -1)
	m := []exec.Aggregate{{Func: exec.AggMin, Args: []int{3}, Name: "min"}, {Func: exec.AggMax, Args: []int{3}, Name: "max"}}
	for _, c := range []struct{ first, second float64 }{{0, negZero}, {negZero, 0}} {
		got, err := runAgg(t, [][]any{row(c.first), row(c.second)}, m)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got[0] {
			if math.Signbit(v.(float64)) != math.Signbit(c.second) {
				t.Errorf("%v then %v: aggregate %d gave %v", c.first, c.second, i, v)
			}
		}
	}
}

// TestAnyValue: Substrait's any_value keeps a group's first non-NULL value.
func TestAnyValue(t *testing.T) {
	rows := [][]any{{int64(1), nil, nil, nil, nil}, {int64(1), nil, "x", nil, nil}, {int64(1), nil, "a", nil, nil}, {int64(2), nil, nil, nil, nil}}
	got, err := runNode(t, aggSchema, rows, func(v exec.Node) (exec.Node, error) {
		return exec.NewHashAggregateExec(v, []int{0}, []exec.Aggregate{{Func: exec.AggAnyValue, Args: []int{2}, Name: "s"}})
	})
	if err != nil || fmt.Sprint(got) != "[[1 x] [2 <nil>]]" {
		t.Fatalf("%v %v", got, err)
	}
}

// TestHashAggregateErrorEndsStream: after an error (a sum out of range)
// the stream keeps returning it, never a clean EOF, and frees its state.
func TestHashAggregateErrorEndsStream(t *testing.T) {
	mem := exectest.Mem(t)
	b, err := exectest.Batch(mem, aggSchema, [][]any{{int64(1), int64(math.MaxInt64), nil, nil, nil}, {int64(1), int64(1), nil, nil, nil}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := exec.NewValuesExec(aggSchema, []arrow.RecordBatch{b})
	b.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	a, err := exec.NewHashAggregateExec(v, []int{0}, []exec.Aggregate{{Func: exec.AggSum, Args: []int{1}, Name: "s"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := a.Execute(t.Context(), &exec.TaskContext{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for range 2 {
		if _, err := st.Next(t.Context()); !errors.Is(err, errkind.OutOfRange) {
			t.Fatalf("Next: %v", err)
		}
	}
}
