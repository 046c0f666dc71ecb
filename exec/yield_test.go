package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/priority"
)

// TestSortParksInsideItsSort: a sort of one buffered input (no scan left
// to pass between batches: the input is already in memory) parks inside
// its long sort call while a light ticket is out, for string keys (the
// comparison sort) and integer keys (the radix passes) alike, and gives
// the order it gives without a gate once the ticket is done.
func TestSortParksInsideItsSort(t *testing.T) {
	const n = 50_000
	for _, typ := range []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64} {
		t.Run(typ.String(), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: typ}}, nil)
			batch := func() arrow.RecordBatch {
				b := array.NewRecordBuilder(mem, schema)
				defer b.Release()
				for i := range n {
					v := (i * 7919) % n
					switch bb := b.Field(0).(type) {
					case *array.StringBuilder:
						bb.Append(fmt.Sprintf("row-%07d", v))
					case *array.Int64Builder:
						bb.Append(int64(v) << 20)
					}
				}
				return b.NewRecordBatch()
			}
			keys := []SortKey{{Column: 0, Name: "k"}}
			want, err := sortBatches(context.Background(), mem, schema, keys, []arrow.RecordBatch{batch()}, nil)
			require.NoError(t, err)
			defer want.Release()

			g := priority.NewGate(priority.Options{MaxLight: time.Hour, MaxPark: time.Hour})
			tc := &TaskContext{Mem: mem, Priority: g.Heavy()}
			in := batch()
			light := g.Light()
			type res struct {
				b   arrow.RecordBatch
				err error
			}
			done := make(chan res, 1)
			go func() {
				b, err := sortBatches(context.Background(), mem, schema, keys, []arrow.RecordBatch{in}, tc.passer(context.Background()))
				done <- res{b, err}
			}()
			require.Eventually(t, func() bool { return g.Stats().Parked == 1 }, time.Minute, time.Millisecond, "the sort parks mid-sort")
			light.Done()
			r := <-done
			require.NoError(t, r.err)
			defer r.b.Release()
			require.True(t, array.Equal(want.Column(0), r.b.Column(0)), "the same order as without a gate")
		})
	}
}

// TestHashAggParksInsideItsRehash: an aggregation over an input already
// in memory (no scan to pass between batches) parks inside the rehash
// of its group table while a light ticket is out, and counts every group
// once the ticket is done.
func TestHashAggParksInsideItsRehash(t *testing.T) {
	const n = 100_000
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewStringBuilder(mem)
	for i := range n {
		b.Append(fmt.Sprintf("a-long-group-key-%07d", i)) // past the packed keys' length
	}
	col := b.NewArray()
	b.Release()
	batch := array.NewRecordBatch(schema, []arrow.Array{col}, n)
	col.Release()
	values, err := NewValuesExec(schema, []arrow.RecordBatch{batch})
	batch.Release()
	require.NoError(t, err)
	defer values.Release()
	agg, err := NewHashAggregateExec(values, []int{0}, []Aggregate{{Func: AggCountStar, Name: "n"}})
	require.NoError(t, err)

	g := priority.NewGate(priority.Options{MaxLight: time.Hour, MaxPark: time.Hour})
	light := g.Light()
	st, err := agg.Execute(context.Background(), &TaskContext{Mem: mem, BatchSize: n, Priority: g.Heavy()})
	require.NoError(t, err)
	defer st.Close()
	done := make(chan error, 1)
	var groups int64
	go func() {
		for {
			b, err := st.Next(context.Background())
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				done <- err
				return
			}
			groups += b.NumRows()
			b.Release()
		}
	}()
	require.Eventually(t, func() bool { return g.Stats().Parked == 1 }, time.Minute, time.Millisecond, "the aggregation parks mid-rehash")
	light.Done()
	require.NoError(t, <-done)
	require.EqualValues(t, n, groups)
}
