package exec

import (
	"context"
	"errors"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var fuzzGraceSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "pos", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// fuzzGraceBatch decodes rows from data, two bytes a row: the int key
// (0xff: NULL) and the string key (its low 3 bits a length 0..6, 7: NULL),
// with pos the row's number; rev: the rows in reverse order.
func fuzzGraceBatch(mem memory.Allocator, data []byte, rev bool) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, fuzzGraceSchema)
	defer b.Release()
	n := len(data) / 2
	for i := range n {
		r := i
		if rev {
			r = n - 1 - i
		}
		k, s := data[2*r], data[2*r+1]
		if k == 0xff {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(k) - 128)
		}
		if s&7 == 7 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(string(make([]byte, s&7)) + string(rune('a'+s>>3)))
		}
		b.Field(2).(*array.Int64Builder).Append(int64(r))
	}
	return b.NewRecordBatch()
}

// FuzzGracePartition checks the grace join's partitioning, which the
// serial and the parallel spilling joins share (join_spill.go,
// join_spill_shared.go): every row with a NULL key goes nowhere unless
// kept, every other row to a partition in [0, fan-out); a row's partition
// does not depend on the batch it comes in (the build and the probe are
// routed batch by batch: rows equal on the keys must meet), nor on its
// place in it; and each partition's rows written to a spill file and read
// back are the rows routed there, in order.
func FuzzGracePartition(f *testing.F) {
	f.Add(uint64(1), uint8(0), []byte{1, 2, 3, 4, 0xff, 0, 1, 2, 5, 7})
	f.Add(uint64(7), uint8(2), []byte{0, 0, 0, 0, 0, 0, 0xff, 7})
	f.Add(uint64(0), uint8(1), []byte{200, 9, 13, 17, 200, 9, 128, 255})
	f.Fuzz(func(t *testing.T, seed uint64, fan uint8, data []byte) {
		if len(data) < 2 || len(data) > 512 {
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		n := graceMinFanout << (fan % 3) // 16, 32, 64
		g := &graceJoin{seed: mix(seed ^ 0x9e3779b97f4a7c15), shift: uint(64 - bits.TrailingZeros(uint(n))), parts: make([]gracePart, n),
			s: &joinStream{tc: &TaskContext{Mem: mem, BatchSize: 64}}}
		fwd := fuzzGraceBatch(mem, data, false)
		defer fwd.Release()
		back := fuzzGraceBatch(mem, data, true)
		defer back.Release()
		for _, keys := range [][]int{{0}, {0, 1}, {1}} {
			for _, keep := range []bool{false, true} {
				pf := g.route(fwd, keys, keep)
				var other graceRoute
				pb := g.routeIn(&other, back, keys, keep)
				rows := len(pf)
				for r, p := range pf {
					null := false
					for _, k := range keys {
						null = null || fwd.Column(k).IsNull(r)
					}
					switch {
					case null && !keep && p != -1:
						t.Fatalf("keys %v row %d: a NULL key routed to %d", keys, r, p)
					case (!null || keep) && (p < 0 || int(p) >= n):
						t.Fatalf("keys %v keep %v row %d: partition %d of %d", keys, keep, r, p, n)
					case pb[rows-1-r] != p:
						t.Fatalf("keys %v row %d: partition %d, %d in another batch", keys, r, p, pb[rows-1-r])
					}
				}
				// Rows equal on the keys share their partition.
				for r := range rows {
					for q := r + 1; q < rows; q++ {
						if pf[r] >= 0 && pf[q] >= 0 && rowKeysEqual(fwd, keys, r, q) && pf[r] != pf[q] {
							t.Fatalf("keys %v: rows %d and %d are equal, partitions %d and %d", keys, r, q, pf[r], pf[q])
						}
					}
				}
				if keys[0] == 0 && len(keys) == 2 && !keep {
					graceRoundTrip(t, g, mem, fwd, pf)
				}
			}
		}
	})
}

// rowKeysEqual: rows r and q of b are equal, not NULL, on keys.
func rowKeysEqual(b arrow.RecordBatch, keys []int, r, q int) bool {
	for _, k := range keys {
		c := b.Column(k)
		if c.IsNull(r) || c.IsNull(q) || c.ValueStr(r) != c.ValueStr(q) {
			return false
		}
	}
	return true
}

// graceRoundTrip splits b by part and writes each partition's rows to a
// spill file, as addBuild and the probe feed do, then reads every file
// back: the rows (pos) of each partition, in order.
func graceRoundTrip(t *testing.T, g *graceJoin, mem memory.Allocator, b arrow.RecordBatch, part []int32) {
	ctx := context.Background()
	dir := t.TempDir()
	want := make(map[int][]int64)
	for r, p := range part {
		if p >= 0 {
			want[int(p)] = append(want[int(p)], b.Column(2).(*array.Int64).Value(r))
		}
	}
	ws := make(map[int]*SpillWriter)
	paths := make(map[int]string)
	err := g.split(ctx, b, part, func(_ context.Context, p int, piece arrow.RecordBatch) error {
		if ws[p] == nil {
			f, err := os.Create(filepath.Join(dir, "p"+string(rune('a'+p))))
			if err != nil {
				return err
			}
			ws[p], paths[p] = newSpillWriterBuffered(f, f, fuzzGraceSchema, mem, graceBuffer), f.Name()
		}
		return ws[p].Write(piece)
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, w := range ws {
		if _, err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		in, err := openRunStream(paths[p], fuzzGraceSchema, mem)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for {
			rb, err := in.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rb.Column(2).(*array.Int64).Int64Values()...)
			rb.Release()
		}
		in.Close()
		if len(got) != len(want[p]) {
			t.Fatalf("partition %d: read back %v, wrote %v", p, got, want[p])
		}
		for i := range got {
			if got[i] != want[p][i] {
				t.Fatalf("partition %d: read back %v, wrote %v", p, got, want[p])
			}
		}
		delete(want, p)
	}
	if len(want) > 0 {
		t.Fatalf("partitions never written: %v", want)
	}
}
