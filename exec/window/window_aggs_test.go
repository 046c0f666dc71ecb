package window_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/exec/window"
)

// aggSchema: partition p, order key o, then the aggregates' arguments: an
// integer x, a float f, a boolean b, a string s with its delimiter d, a
// smallint y.
var aggSchema = arrow.NewSchema([]arrow.Field{
	{Name: "p", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "o", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "d", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "y", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
}, nil)

// aggExprs are every aggregate this file tests, over frame fr.
func aggExprs(fr window.Frame) []window.Expr {
	return []window.Expr{
		{Func: window.StdDevSamp, Args: []int{2}, Frame: fr, Name: "sds_x"},
		{Func: window.VarPop, Args: []int{2}, Frame: fr, Name: "vp_x"},
		{Func: window.StdDevPop, Args: []int{3}, Frame: fr, Name: "sdp_f"},
		{Func: window.VarSamp, Args: []int{3}, Frame: fr, Name: "vs_f"},
		{Func: window.BoolAnd, Args: []int{4}, Frame: fr, Name: "band"},
		{Func: window.BoolOr, Args: []int{4}, Frame: fr, Name: "bor"},
		{Func: window.BitAnd, Args: []int{7}, Frame: fr, Name: "bitand"},
		{Func: window.BitOr, Args: []int{2}, Frame: fr, Name: "bitor"},
		{Func: window.StringAgg, Args: []int{5, 6}, Frame: fr, Name: "sa"},
	}
}

// groupedOver is GROUP BY's f over the values vals of type typ (one
// group, in order): the window's answer over a frame must be this one
// (the grouped float8_accum adds in order, as PostgreSQL's window does).
func groupedOver(t *testing.T, mem memory.Allocator, f exec.AggregateFunc, typ arrow.DataType, vals []any) any {
	t.Helper()
	if len(vals) == 0 {
		return nil // a frame without rows: the aggregate's NULL
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "v", Type: typ, Nullable: true}}, nil)
	rows := make([][]any, len(vals))
	for i, v := range vals {
		rows[i] = []any{v}
	}
	b, err := exectest.Batch(mem, sc, rows)
	if err != nil {
		t.Fatal(err)
	}
	v, err := exec.NewValuesExec(sc, []arrow.RecordBatch{b})
	b.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	a, err := exec.NewHashAggregateExec(v, nil, []exec.Aggregate{{Func: f, Args: []int{0}, Name: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := a.Execute(ctx, &exec.TaskContext{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Collect(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	got := cells(out)
	for _, o := range out {
		o.Release()
	}
	if len(got) != 1 {
		t.Fatalf("grouped %s: rows %v", f, got)
	}
	return got[0][0]
}

// cells are the batches' rows as Go values (exectest.Rows with decimals,
// which it lacks, as their text).
func cells(bs []arrow.RecordBatch) [][]any {
	var rows [][]any
	for _, b := range bs {
		for i := range int(b.NumRows()) {
			row := make([]any, b.NumCols())
			for c, col := range b.Columns() {
				if col.IsNull(i) {
					continue
				}
				switch a := col.(type) {
				case *array.Int64:
					row[c] = a.Value(i)
				case *array.Int32:
					row[c] = a.Value(i)
				case *array.Float64:
					row[c] = a.Value(i)
				case *array.Boolean:
					row[c] = a.Value(i)
				case *array.String:
					row[c] = a.Value(i)
				default:
					row[c] = col.ValueStr(i)
				}
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// naiveAggs is the model of aggExprs for each sorted row: the statistics
// are GROUP BY's over the frame's rows, the others loops over them.
func naiveAggs(t *testing.T, mem memory.Allocator, rows [][]any, key exec.SortKey, fr window.Frame) [][]any {
	var out [][]any
	for _, nr := range naiveFrames(rows, key, fr) {
		col := func(c int) []any {
			var vs []any
			for _, j := range nr.frame {
				vs = append(vs, nr.part[j][c])
			}
			return vs
		}
		var band, bor, bitand, bitor, sa any
		var sb strings.Builder
		for _, j := range nr.frame {
			r := nr.part[j]
			if b, ok := r[4].(bool); ok {
				if band == nil {
					band, bor = b, b
				}
				band, bor = band.(bool) && b, bor.(bool) || b
			}
			if y, ok := r[7].(int32); ok {
				if bitand == nil {
					bitand = y
				}
				bitand = bitand.(int32) & y
			}
			if x, ok := r[2].(int64); ok {
				if bitor == nil {
					bitor = x
				}
				bitor = bitor.(int64) | x
			}
			if s, ok := r[5].(string); ok {
				if d, ok := r[6].(string); ok && sa != nil {
					sb.WriteString(d)
				}
				sb.WriteString(s)
				sa = sb.String()
			}
		}
		row := append([]any(nil), nr.part[nr.i]...)
		row = append(row,
			groupedOver(t, mem, exec.AggStdDevSamp, arrow.PrimitiveTypes.Int64, col(2)),
			groupedOver(t, mem, exec.AggVarPop, arrow.PrimitiveTypes.Int64, col(2)),
			groupedOver(t, mem, exec.AggStdDevPop, arrow.PrimitiveTypes.Float64, col(3)),
			groupedOver(t, mem, exec.AggVarSamp, arrow.PrimitiveTypes.Float64, col(3)),
			band, bor, bitand, bitor, sa)
		out = append(out, row)
	}
	return out
}

// randomAggRows: n rows in up to 3 partitions, keys 0..5 (ties: peers),
// about one value in six NULL.
func randomAggRows(rng *rand.Rand, n int) [][]any {
	null := func(v any) any {
		if rng.IntN(6) == 0 {
			return nil
		}
		return v
	}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{null(int64(rng.IntN(3))), null(int64(rng.IntN(6))), null(int64(rng.IntN(41) - 20)),
			null(float64(rng.IntN(4001)-2000) / 16), null(rng.IntN(4) != 0), null(fmt.Sprintf("v%d", rng.IntN(100))),
			null([]string{",", "", "--"}[rng.IntN(3)]), null(int32(rng.IntN(1 << 12)))}
	}
	return rows
}

func randomFrame(rng *rand.Rand) window.Frame {
	starts := []window.BoundKind{window.UnboundedPreceding, window.OffsetPreceding, window.CurrentRow, window.OffsetFollowing}
	ends := []window.BoundKind{window.OffsetPreceding, window.CurrentRow, window.OffsetFollowing, window.UnboundedFollowing}
	return window.Frame{
		Unit:  []window.FrameUnit{window.FrameRange, window.FrameRows, window.FrameGroups}[rng.IntN(3)],
		Start: window.FrameBound{Kind: starts[rng.IntN(4)], Offset: int64(rng.IntN(4))},
		End:   window.FrameBound{Kind: ends[rng.IntN(4)], Offset: int64(rng.IntN(4))},
	}
}

// runAggWindow runs exprs over rows (sorted by p, then o by key) in
// batches of batch rows and returns the output rows.
func runAggWindow(t *testing.T, mem memory.Allocator, rows [][]any, key exec.SortKey, batch int, exprs []window.Expr) ([][]any, error) {
	t.Helper()
	v := chunkedValues(t, mem, aggSchema, rows, batch)
	defer v.Release()
	w, err := windowOver(v, []exec.SortKey{key}, exprs...)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	s, err := w.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: batch})
	if err != nil {
		return nil, err
	}
	out, err := exec.Collect(ctx, s)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, b := range out {
			b.Release()
		}
	}()
	return cells(out), nil
}

// TestWindowAggregatesAgainstModel: the statistics, bool_and, bool_or,
// bit_and, bit_or and string_agg over random frames (ROWS, RANGE, GROUPS;
// offsets that leave frames empty), NULLs and batchings equal the model:
// GROUP BY's answer over each frame's rows, or a loop over them.
func TestWindowAggregatesAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	for iter := range 150 {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rows := randomAggRows(rng, 1+rng.IntN(40))
		fr := randomFrame(rng)
		key := exec.SortKey{Column: 1, Descending: rng.IntN(2) == 0, NullsFirst: rng.IntN(2) == 0}
		got, err := runAggWindow(t, mem, rows, key, 1+rng.IntN(9), aggExprs(fr))
		if err != nil {
			if !errors.Is(err, physexpr.ErrInvalidArgument) {
				t.Fatalf("frame %s: untyped error %v", fr, err)
			}
			continue // a frame PostgreSQL refuses
		}
		want := naiveAggs(t, mem, rows, key, fr)
		if len(got) != len(want) {
			t.Fatalf("iteration %d: %d rows, want %d", iter, len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("iteration %d frame %s key %s row %d:\n got %v\nwant %v", iter, fr, key, i, got[i], want[i])
			}
		}
		mem.AssertSize(t, 0)
	}
}

// TestWindowStatsLongMovingFrames: a frame that moves and is longer than
// the rows recomputed one by one takes the segment tree of float8_accum
// states (float8_combine); its answers are GROUP BY's over the frame to
// within a few ulps (PostgreSQL adds the frame's rows in order), and
// exactly GROUP BY's for integers (exact sums) and where a NaN or an
// infinity makes the merged state unusable (recomputed in order).
func TestWindowStatsLongMovingFrames(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 900
	rows := make([][]any, n)
	for i := range rows {
		var f any = rng.NormFloat64()*1e3 + 1e6
		switch {
		case i%97 == 5:
			f = nil
		case i == 700:
			f = math.NaN()
		case i == 810:
			f = math.Inf(1)
		}
		rows[i] = []any{int64(0), int64(i), int64(rng.IntN(1 << 20)), f, true, "s", ",", int32(1)}
	}
	fr := window.Frame{Unit: window.FrameRows, Start: window.FrameBound{Kind: window.OffsetPreceding, Offset: int64(400)},
		End: window.FrameBound{Kind: window.OffsetFollowing, Offset: int64(3)}}
	key := exec.SortKey{Column: 1}
	exprs := []window.Expr{
		{Func: window.VarSamp, Args: []int{3}, Frame: fr, Name: "vs_f"},
		{Func: window.StdDevPop, Args: []int{3}, Frame: fr, Name: "sdp_f"},
		{Func: window.VarPop, Args: []int{2}, Frame: fr, Name: "vp_x"},
	}
	got, err := runAggWindow(t, mem, rows, key, 128, exprs)
	if err != nil {
		t.Fatal(err)
	}
	funcs := []exec.AggregateFunc{exec.AggVarSamp, exec.AggStdDevPop, exec.AggVarPop}
	cols := []int{3, 3, 2}
	types := []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64}
	tree := 0
	for _, nr := range naiveFrames(rows, key, fr) {
		i := nr.i
		for k, f := range funcs {
			var vals []any
			for _, j := range nr.frame {
				vals = append(vals, nr.part[j][cols[k]])
			}
			want := groupedOver(t, mem, f, types[k], vals)
			g := got[i][len(aggSchema.Fields())+k]
			wf, isFloat := want.(float64)
			if !isFloat {
				if !reflect.DeepEqual(g, want) {
					t.Fatalf("row %d %s: got %v, want %v", i, f, g, want)
				}
				continue
			}
			gf := g.(float64)
			if math.IsNaN(wf) || math.IsInf(wf, 0) {
				if !(math.IsNaN(gf) && math.IsNaN(wf)) && gf != wf {
					t.Fatalf("row %d %s: got %v, want %v", i, f, gf, wf)
				}
				continue
			}
			if i > 400 && len(nr.frame) > 256 {
				tree++
			}
			if math.Abs(gf-wf) > 1e-12*math.Abs(wf) {
				t.Fatalf("row %d %s: got %v, want %v (relative error %g)", i, f, gf, wf, math.Abs(gf-wf)/math.Abs(wf))
			}
		}
	}
	if tree == 0 {
		t.Fatal("no row took the segment tree")
	}
}

// TestWindowStringAggReserves: string_agg's results (here about rows ×
// frame bytes) are reserved before they are built: under a limit that
// holds the partition but not the results, the window fails with
// memlimit.ErrResourceExhausted, and with no limit it returns them.
func TestWindowStringAggReserves(t *testing.T) {
	const n = 2000
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(0), int64(i), nil, nil, nil, strings.Repeat("x", 50), ",", nil}
	}
	fr := window.Frame{Unit: window.FrameRows, Start: window.FrameBound{Kind: window.UnboundedPreceding},
		End: window.FrameBound{Kind: window.CurrentRow}}
	sa := window.Expr{Func: window.StringAgg, Args: []int{5, 6}, Frame: fr, Name: "sa"}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	bs, err := exectest.Chunk(mem, aggSchema, rows, 512, false)
	if err != nil {
		t.Fatal(err)
	}
	v, err := exec.NewValuesExec(aggSchema, bs)
	for _, b := range bs {
		b.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	w, err := windowOver(v, []exec.SortKey{{Column: 1}}, sa)
	if err != nil {
		t.Fatal(err)
	}
	// The results: sum over rows of 51*(i+1)-1 bytes, about 100 MB.
	if _, err := exectest.RunUnder(t, mem, w, 8<<20); !errors.Is(err, memlimit.ErrResourceExhausted) {
		t.Fatalf("under 8 MB: %v, want ErrResourceExhausted", err)
	}
	got, err := runAggWindow(t, mem, rows[:50], exec.SortKey{Column: 1}, 7, []window.Expr{sa})
	if err != nil {
		t.Fatal(err)
	}
	last := got[49][len(aggSchema.Fields())].(string)
	if want := strings.TrimSuffix(strings.Repeat(strings.Repeat("x", 50)+",", 50), ","); last != want {
		t.Fatalf("last row's string_agg is %d bytes, want %d", len(last), len(want))
	}
}
