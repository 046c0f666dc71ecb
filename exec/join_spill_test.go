package exec_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
	"github.com/stablerow/stablerow/exec/physexpr"
)

var graceSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "pos", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// graceInput is nb batches of per rows: keys from [0, keys), one key in
// ten NULL, and one in two hundred on the hot key 7 (skew); s, a second
// key column, is one of five strings or NULL.
func graceInput(t testing.TB, mem memory.Allocator, seed uint64, nb, per, keys int) *exec.ValuesExec {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	var bs []arrow.RecordBatch
	pos := int64(0)
	for range nb {
		bld := array.NewRecordBuilder(mem, graceSchema)
		for range per {
			switch x := r.IntN(10); {
			case x == 0:
				bld.Field(0).AppendNull()
			case x == 1 && r.IntN(20) == 0:
				bld.Field(0).(*array.Int64Builder).Append(7)
			default:
				bld.Field(0).(*array.Int64Builder).Append(int64(r.IntN(keys)))
			}
			if x := r.IntN(6); x == 0 {
				bld.Field(1).AppendNull()
			} else {
				bld.Field(1).(*array.StringBuilder).Append(strings.Repeat("v", x))
			}
			bld.Field(2).(*array.Int64Builder).Append(pos)
			pos++
		}
		bs = append(bs, bld.NewRecordBatch())
		bld.Release()
	}
	v, err := exec.NewValuesExec(graceSchema, bs)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		b.Release()
	}
	return v
}

// graceRows runs n under limit (0: none) and returns its rows as sorted
// strings; the spill directory must be empty after.
func graceRows(t *testing.T, mem memory.Allocator, n exec.Node, limit int64) ([]string, error) {
	t.Helper()
	dir := t.TempDir()
	defer assertNoSpillFiles(t, dir)
	ctx := context.Background()
	s, err := n.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 512, Pool: memlimit.NewPool(limit), SpillDir: dir})
	if err != nil {
		return nil, err
	}
	bs, err := exec.Collect(ctx, s)
	var rows []string
	for _, b := range bs {
		for r := range int(b.NumRows()) {
			var row []string
			for _, c := range b.Columns() {
				row = append(row, c.ValueStr(r))
			}
			rows = append(rows, strings.Join(row, "|"))
		}
		b.Release()
	}
	slices.Sort(rows)
	return rows, err
}

func spillMetric(n exec.Node, name string) int64 { return n.Metrics().Snapshot()[name] }

// TestHashJoinGraceSpill: under limits far below the build side's size
// every join type spills its build side to partitions and gives the rows
// the unlimited join gives (as a multiset: the spilled join's order is
// partition by partition); the smallest limit repartitions (partitions
// beyond one level's fan-out). No file and no byte is left behind.
func TestHashJoinGraceSpill(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	left := graceInput(t, mem, 1, 12, 500, 3000)
	defer left.Release()
	right := graceInput(t, mem, 2, 20, 500, 3000)
	defer right.Release()
	// pos(left) % 3 <> pos(right) % 3, over left ++ right.
	three := physexpr.Lit{Value: int64(3)}
	residual := physexpr.Binary{Op: physexpr.OpNe,
		L: physexpr.Binary{Op: physexpr.OpMod, L: physexpr.Col{Index: 2, Name: "pos"}, R: three},
		R: physexpr.Binary{Op: physexpr.OpMod, L: physexpr.Col{Index: 5, Name: "pos"}, R: three}}
	types := []exec.JoinType{exec.JoinInner, exec.JoinLeft, exec.JoinRight, exec.JoinFull, exec.JoinSemi, exec.JoinAnti, exec.JoinRightSemi, exec.JoinRightAnti}
	run := 0 // the (type, keys, residual) runs so far: -short's rotation
	for _, typ := range types {
		for _, keys := range [][]int{{0}, {0, 1}} {
			for _, res := range []physexpr.Expr{nil, residual} {
				if len(keys) > 1 && res != nil {
					continue // two keys without, one key with a residual
				}
				run++
				if testing.Short() && run%2 == 1 {
					// -short (make test, under the race detector)
					// runs every other combination: each type meets
					// one or two of them, each combination half the
					// types; CI's test-long step runs them all.
					continue
				}
				name := fmt.Sprintf("%s keys %v residual %v", typ, keys, res != nil)
				j, err := exec.NewHashJoinExecResidual(left, right, keys, keys, typ, res)
				if err != nil {
					t.Fatal(err)
				}
				want, err := graceRows(t, mem, j, 0)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if spillMetric(j, "spill_count") != 0 {
					t.Fatalf("%s: spilled without a limit", name)
				}
				limits := []int64{512 << 10, 64 << 10, 16 << 10}
				for li, limit := range limits {
					if testing.Short() && li != (run/2)%len(limits) {
						continue // one limit per run, in turn (CI's exec-long step runs all)
					}
					before := j.Metrics().Snapshot()
					got, err := graceRows(t, mem, j, limit)
					if err != nil {
						t.Fatalf("%s limit %d: %v", name, limit, err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("%s limit %d: %d rows, want %d", name, limit, len(got), len(want))
					}
					after := j.Metrics().Snapshot()
					if after["spill_count"] == before["spill_count"] || after["spilled_rows"] == before["spilled_rows"] || after["spilled_bytes"] == before["spilled_bytes"] {
						t.Fatalf("%s limit %d: no spill counted: %v", name, limit, after)
					}
					if parts := after["partitions"] - before["partitions"]; limit == 16<<10 && parts <= 64 {
						t.Fatalf("%s limit %d: %d partitions, want a second level", name, limit, parts)
					}
				}
			}
		}
	}
}

// TestHashJoinGraceSingle: a scalar subquery's single join spills too,
// and still raises on a left row with two matches.
func TestHashJoinGraceSingle(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	left := graceInput(t, mem, 3, 8, 500, 3000)
	defer left.Release()
	right := graceInput(t, mem, 4, 20, 500, 3000)
	defer right.Release()
	// The right key pos is unique: one match at most.
	j, err := exec.NewHashJoinExec(left, right, []int{2}, []int{2}, exec.JoinSingle)
	if err != nil {
		t.Fatal(err)
	}
	want, err := graceRows(t, mem, j, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := graceRows(t, mem, j, 128<<10)
	if err != nil || !slices.Equal(got, want) || spillMetric(j, "spill_count") == 0 {
		t.Fatalf("single join under the limit: %d rows (want %d), %v, metrics %v", len(got), len(want), err, j.Metrics().Snapshot())
	}
	dup, err := exec.NewHashJoinExec(left, right, []int{0}, []int{0}, exec.JoinSingle)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := graceRows(t, mem, dup, 128<<10); !errors.Is(err, exec.ErrSubqueryRows) {
		t.Fatalf("single join with two matches, spilled: %v", err)
	}
}

// TestHashJoinGraceSkew: a build side whose rows over the limit all have
// one key cannot be split: the typed error, not a loop, a panic or a
// partial answer.
func TestHashJoinGraceSkew(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	left := graceInput(t, mem, 5, 2, 500, 3000)
	defer left.Release()
	right := graceInput(t, mem, 6, 20, 500, 1) // keys: 0 (most), 7 and NULL
	defer right.Release()
	hot, err := exec.NewFilterExec(right, physexpr.Binary{Op: physexpr.OpEq, L: physexpr.Col{Index: 0, Name: "k"}, R: physexpr.Lit{Value: int64(0)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []exec.Node{hot, right} {
		j, err := exec.NewHashJoinExec(left, r, []int{0}, []int{0}, exec.JoinInner)
		if err != nil {
			t.Fatal(err)
		}
		_, err = graceRows(t, mem, j, 32<<10)
		if !errors.Is(err, exec.ErrJoinKeySkew) || !errors.Is(err, memlimit.ErrResourceExhausted) || !errors.Is(err, errkind.OutOfRange) {
			t.Fatalf("one key over the limit: %v", err)
		}
	}
}

// TestHashJoinGraceNoSpill: the joins that cannot be partitioned fail at
// the limit as before, typed (no panic): one the planner keeps in its
// outer order, a mark join and NOT IN's anti join. (A parallel join's
// shared build spills: join_spill_shared_test.go.)
func TestHashJoinGraceNoSpill(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	left := graceInput(t, mem, 7, 4, 500, 3000)
	defer left.Release()
	right := graceInput(t, mem, 8, 20, 500, 3000)
	defer right.Release()
	ordered, err := exec.NewHashJoinExec(left, right, []int{0}, []int{0}, exec.JoinLeft)
	if err != nil {
		t.Fatal(err)
	}
	ordered.KeepOuterOrder()
	mark, err := exec.NewHashJoinExec(left, right, []int{0}, []int{0}, exec.JoinMark)
	if err != nil {
		t.Fatal(err)
	}
	notIn, err := exec.NewHashJoinExec(left, right, []int{0}, []int{0}, exec.JoinAntiNullAware)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []*exec.HashJoinExec{ordered, mark, notIn} {
		if _, err := graceRows(t, mem, j, 64<<10); !errors.Is(err, memlimit.ErrResourceExhausted) {
			t.Fatalf("%s over the limit: %v", j, err)
		}
		if spillMetric(j, "spill_count") != 0 {
			t.Fatalf("%s spilled", j)
		}
	}
}

// TestHashJoinGraceCancel: closing a spilled join mid-stream, or
// cancelling its context, removes its files and releases every byte.
func TestHashJoinGraceCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	left := graceInput(t, mem, 9, 12, 500, 3000)
	defer left.Release()
	right := graceInput(t, mem, 10, 20, 500, 3000)
	defer right.Release()
	j, err := exec.NewHashJoinExec(left, right, []int{0}, []int{0}, exec.JoinFull)
	if err != nil {
		t.Fatal(err)
	}
	for _, cancel := range []bool{false, true} {
		dir := t.TempDir()
		ctx, stop := context.WithCancel(context.Background())
		s, err := j.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 512, Pool: memlimit.NewPool(128 << 10), SpillDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
		if spillMetric(j, "spill_count") == 0 {
			t.Fatal("no spill before the first batch")
		}
		if cancel {
			stop()
			if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("after cancel: %v", err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		stop()
		assertNoSpillFiles(t, dir)
	}
}
