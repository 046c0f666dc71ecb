package exec_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/memlimit"
)

// spillSchema: a key with NULLs and many duplicates, a string key, and the
// row's input position (to check the merged sort is still stable).
var spillSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "pos", Type: arrow.PrimitiveTypes.Int64},
}, nil)

type spillRow struct {
	k   *int64
	s   *string
	pos int64
}

func spillInput(t testing.TB, mem memory.Allocator, seed uint64, nb, per int) ([]spillRow, []arrow.RecordBatch) {
	r := rand.New(rand.NewPCG(seed, 7))
	var rows []spillRow
	var bs []arrow.RecordBatch
	for b := 0; b < nb; b++ {
		bld := array.NewRecordBuilder(mem, spillSchema)
		for i := 0; i < per; i++ {
			row := spillRow{pos: int64(len(rows))}
			if r.IntN(9) != 0 {
				k := int64(r.IntN(50)) - 25
				row.k = &k
				bld.Field(0).(*array.Int64Builder).Append(k)
			} else {
				bld.Field(0).AppendNull()
			}
			if r.IntN(7) != 0 {
				s := string(rune('a'+r.IntN(20))) + string(rune('a'+r.IntN(3)))
				row.s = &s
				bld.Field(1).(*array.StringBuilder).Append(s)
			} else {
				bld.Field(1).AppendNull()
			}
			bld.Field(2).(*array.Int64Builder).Append(row.pos)
			rows = append(rows, row)
		}
		bs = append(bs, bld.NewRecordBatch())
		bld.Release()
	}
	return rows, bs
}

// refSort is the reference model: Go's stable sort over plain rows.
func refSort(rows []spillRow, keys []exec.SortKey) []int64 {
	want := append([]spillRow{}, rows...)
	val := func(r spillRow, col int) any {
		switch {
		case col == 0 && r.k != nil:
			return *r.k
		case col == 1 && r.s != nil:
			return *r.s
		}
		return nil
	}
	sort.SliceStable(want, func(i, j int) bool {
		for _, k := range keys {
			if c := refCompare(val(want[i], k.Column), val(want[j], k.Column), k.Descending, k.NullsFirst); c != 0 {
				return c < 0
			}
		}
		return false
	})
	pos := make([]int64, len(want))
	for i, r := range want {
		pos[i] = r.pos
	}
	return pos
}

func collectPos(t *testing.T, ctx context.Context, s exec.Stream) ([]int64, error) {
	var pos []int64
	for {
		b, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			return pos, nil
		}
		if err != nil {
			return pos, err
		}
		pos = append(pos, b.Column(2).(*array.Int64).Int64Values()...)
		b.Release()
	}
}

func assertNoSpillFiles(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("spill left behind: %s", filepath.Join(dir, e.Name()))
	}
}

// TestSortSpill: under a limit far below the input's size the sort spills
// runs and merges them; the answer is the reference model's, row for row
// (ties in input order), the spill directory is gone afterwards and every
// byte is released.
func TestSortSpill(t *testing.T) {
	keySets := [][]exec.SortKey{
		{{Column: 0}},
		{{Column: 0, Descending: true, NullsFirst: true}},
		{{Column: 1, NullsFirst: true}, {Column: 0, Descending: true}},
		{{Column: 1, Descending: true}, {Column: 0, NullsFirst: true}},
	}
	for ki, keys := range keySets {
		for _, limit := range []int64{0, 64 << 10, 200 << 10} {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			rows, bs := spillInput(t, mem, uint64(ki), 40, 500)
			v, _ := exec.NewValuesExec(spillSchema, bs)
			defer v.Release()
			for _, b := range bs {
				b.Release()
			}
			n, err := exec.NewSortExec(v, keys)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			pool := memlimit.NewPool(limit)
			s, err := n.Execute(context.Background(), &exec.TaskContext{Mem: mem, BatchSize: 333, Pool: pool, SpillDir: dir})
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
			spills := n.Metrics().Snapshot()["spill_count"]
			if (limit > 0) != (spills > 1) {
				t.Fatalf("limit %d: %d spills", limit, spills)
			}
			assertNoSpillFiles(t, dir) // removed at EOF, before Close
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

// failAfter yields its child's batches, then fails instead of ending.
type failAfter struct{ exec.Node }

type failAfterStream struct{ exec.Stream }

var errInput = errors.New("input broke")

func (f failAfter) Execute(ctx context.Context, tc *exec.TaskContext) (exec.Stream, error) {
	s, err := f.Node.Execute(ctx, tc)
	return failAfterStream{s}, err
}

func (f failAfterStream) Next(ctx context.Context) (arrow.RecordBatch, error) {
	b, err := f.Stream.Next(ctx)
	if errors.Is(err, io.EOF) {
		return nil, errInput
	}
	return b, err
}

// TestSortSpillCleanup: spill files go on an input error, on cancellation
// in the middle of the merge, and on Close in the middle of the merge.
func TestSortSpillCleanup(t *testing.T) {
	for _, how := range []string{"input error", "cancel", "close"} {
		t.Run(how, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			_, bs := spillInput(t, mem, 9, 30, 500)
			v, _ := exec.NewValuesExec(spillSchema, bs)
			defer v.Release()
			for _, b := range bs {
				b.Release()
			}
			var in exec.Node = v
			if how == "input error" {
				in = failAfter{v}
			}
			n, _ := exec.NewSortExec(in, []exec.SortKey{{Column: 1}, {Column: 0}})
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := n.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 256, Pool: memlimit.NewPool(64 << 10), SpillDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			b, err := s.Next(ctx)
			if how == "input error" {
				if !errors.Is(err, errInput) {
					t.Fatalf("got %v, want the input's error", err)
				}
				if n.Metrics().Snapshot()["spill_count"] == 0 {
					t.Fatal("the input error came before any spill: the test checks nothing")
				}
				assertNoSpillFiles(t, dir)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b.Release()
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Fatalf("merging without a spill directory: %d entries", len(ents))
			}
			if how == "cancel" {
				cancel()
				if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
					t.Fatalf("after cancel: %v", err)
				}
			} else if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			assertNoSpillFiles(t, dir)
		})
	}
}

// TestSortRowOverLimit: under a limit smaller than one row's reservation
// (its bytes, their sorted copy and the sort's scratch) there is nothing
// left to split: the sort fails with the typed error, naming itself,
// instead of panicking.
func TestSortRowOverLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, bs := spillInput(t, mem, 3, 2, 2000)
	v, _ := exec.NewValuesExec(spillSchema, bs)
	defer v.Release()
	for _, b := range bs {
		b.Release()
	}
	n, _ := exec.NewSortExec(v, []exec.SortKey{{Column: 0}})
	pool := memlimit.NewPool(40)
	s, _ := n.Execute(context.Background(), &exec.TaskContext{Mem: mem, Pool: pool, SpillDir: t.TempDir()})
	_, err := s.Next(context.Background())
	if !errors.Is(err, memlimit.ErrResourceExhausted) || !errors.Is(err, errkind.OutOfRange) {
		t.Fatalf("got %v, want ErrResourceExhausted", err)
	}
	if !strings.Contains(err.Error(), "SortExec") || !strings.Contains(err.Error(), "one row") {
		t.Fatalf("the error does not name the sort and the row: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if pool.Reserved() != 0 {
		t.Fatalf("reservation left: %d", pool.Reserved())
	}
}
