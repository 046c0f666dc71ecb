package exec_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// TestSortBelowOneBatch: under limits smaller than one input batch's
// reservation the sort splits batches into runs that fit, and under the
// smallest merges them in more than one pass; the answer is sort.SliceStable's
// (refSort) row for row, every byte and every reserved byte goes back, and
// no spill file is left.
func TestSortBelowOneBatch(t *testing.T) {
	keySets := [][]exec.SortKey{
		{{Column: 0}},
		{{Column: 1, NullsFirst: true}, {Column: 0, Descending: true}},
	}
	// One 1000-row batch reserves about 100 KB (its rows twice and 48
	// bytes a row of scratch); the limits hold a few hundred rows, and a
	// few dozen.
	for ki, keys := range keySets {
		for _, limit := range []int64{24 << 10, 4 << 10} {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			rows, bs := spillInput(t, mem, uint64(10+ki), 6, 1000)
			v, _ := exec.NewValuesExec(spillSchema, bs)
			for _, b := range bs {
				b.Release()
			}
			n, err := exec.NewSortExec(v, keys)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			pool := memlimit.NewPool(limit)
			s, err := n.Execute(context.Background(), &exec.TaskContext{Mem: mem, BatchSize: 1000, Pool: pool, SpillDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			got, err := collectPos(t, context.Background(), s)
			if err != nil {
				t.Fatalf("keys %v limit %d: %v", keys, limit, err)
			}
			want := refSort(rows, keys)
			if len(got) != len(want) {
				t.Fatalf("keys %v limit %d: %d rows, want %d", keys, limit, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("keys %v limit %d: row %d is input row %d, want %d", keys, limit, i, got[i], want[i])
				}
			}
			m := n.Metrics().Snapshot()
			if m["split_batches"] == 0 {
				t.Fatalf("limit %d: no batch was split: %v", limit, m)
			}
			if limit == 4<<10 && m["merge_passes"] == 0 {
				t.Fatalf("limit %d: the runs merged in one pass: %v", limit, m)
			}
			if pool.PeakReserved() > limit {
				t.Fatalf("peak reservation %d over the limit %d", pool.PeakReserved(), limit)
			}
			assertNoSpillFiles(t, dir)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if pool.Reserved() != 0 {
				t.Fatalf("reservation left: %d", pool.Reserved())
			}
			v.Release()
			mem.AssertSize(t, 0)
		}
	}
}

// TestSortReservesScratch: the sort reserves its per-row scratch (the
// normalized words, the radix copy, the index) beside the data, so a
// narrow input whose data fits the limit but whose scratch does not
// spills instead of holding the scratch unreserved.
func TestSortReservesScratch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	const batches, rows = 20, 1000
	var bs []arrow.RecordBatch
	for b := range batches {
		bld := array.NewInt64Builder(mem)
		for i := range rows {
			bld.Append(int64((b*rows + i) * 7919 % (batches * rows)))
		}
		col := bld.NewArray()
		bld.Release()
		bs = append(bs, array.NewRecordBatch(schema, []arrow.Array{col}, rows))
		col.Release()
	}
	v, _ := exec.NewValuesExec(schema, bs)
	defer v.Release()
	for _, b := range bs {
		b.Release()
	}
	n, err := exec.NewSortExec(v, []exec.SortKey{{Column: 0}})
	if err != nil {
		t.Fatal(err)
	}
	// Data twice (the batch and its sorted copy) is 320 KB and the index
	// alone 160 KB: 480 KB. With the scratch it is 1.28 MB.
	pool := memlimit.NewPool(700 << 10)
	s, err := n.Execute(context.Background(), &exec.TaskContext{Mem: mem, BatchSize: 1000, Pool: pool, SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Collect(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var prev int64 = -1
	total := 0
	for _, b := range out {
		for _, x := range b.Column(0).(*array.Int64).Int64Values() {
			if x <= prev {
				t.Fatalf("out of order: %d after %d", x, prev)
			}
			prev = x
			total++
		}
		b.Release()
	}
	if total != batches*rows {
		t.Fatalf("%d rows, want %d", total, batches*rows)
	}
	if spills := n.Metrics().Snapshot()["spill_count"]; spills == 0 {
		t.Fatal("no spill: the scratch was not reserved")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
