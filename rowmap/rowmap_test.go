package rowmap

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func checkAll(t *testing.T, f *fixture, seed uint64) {
	t.Helper()
	rd, err := Open(BytesSource(f.file))
	if err != nil {
		t.Fatal(err)
	}
	if rd.NumRows() != uint64(len(f.ref)) {
		t.Fatalf("rows %d want %d", rd.NumRows(), len(f.ref))
	}
	// point
	r := rand.New(rand.NewPCG(seed, 1))
	for range 300 {
		if len(f.ref) == 0 {
			break
		}
		g := r.Uint64N(uint64(len(f.ref)))
		d, o, del, err := rd.Translate(g)
		if err != nil {
			t.Fatal(err)
		}
		if got := (Translation{d, o, del}); got != f.ref[g] {
			t.Fatalf("row %d: got %+v want %+v", g, got, f.ref[g])
		}
	}
	// batch (with duplicates): 2000 rows make most blocks dense (swept),
	// 12 rows leave most sparse (ranked per row)
	for _, size := range []int{2000, 12} {
		var rows []uint64
		for range size {
			if len(f.ref) == 0 {
				break
			}
			rows = append(rows, r.Uint64N(uint64(len(f.ref))))
		}
		out := make([]Translation, len(rows))
		if err := rd.TranslateMany(rows, out); err != nil {
			t.Fatal(err)
		}
		for i, g := range rows {
			if out[i] != f.ref[g] {
				t.Fatalf("batch of %d, row %d: got %+v want %+v", size, g, out[i], f.ref[g])
			}
		}
	}
	// sweeps of ranges that start and end mid-block (and empty ones)
	for range 12 {
		n := uint64(len(f.ref))
		from := r.Uint64N(n + 1)
		to := from + r.Uint64N(n-from+1)
		next := from
		err := rd.SweepRange(from, to, func(first uint64, labels, offsets []uint32) error {
			if first != next || len(labels) != len(offsets) || len(labels) == 0 {
				t.Fatalf("range [%d, %d): part at %d of %d rows, want it at %d", from, to, first, len(labels), next)
			}
			for j, l := range labels {
				got := translationOf(l, offsets[j])
				if want := f.ref[first+uint64(j)]; got != want {
					t.Fatalf("range [%d, %d) row %d: got %+v want %+v", from, to, first+uint64(j), got, want)
				}
			}
			next += uint64(len(labels))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if next != to {
			t.Fatalf("range [%d, %d) ended at %d", from, to, next)
		}
	}
	if err := rd.SweepRange(1, 0, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("reversed range: %v", err)
	}
	if err := rd.SweepRange(0, uint64(len(f.ref))+1, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("range past the end: %v", err)
	}
	// sweep from every block boundary
	for b := 0; b <= rd.Counts().NumBlocks(); b++ {
		next := uint64(b) * uint64(rd.Counts().BlockSize())
		err := rd.Sweep(b, func(g uint64, d uint16, o uint32, del bool) error {
			if g != next {
				t.Fatalf("sweep row %d want %d", g, next)
			}
			next++
			if got := (Translation{d, o, del}); got != f.ref[g] {
				t.Fatalf("sweep from %d row %d: got %+v want %+v", b, g, got, f.ref[g])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if b < rd.Counts().NumBlocks() && next != uint64(len(f.ref)) {
			t.Fatalf("sweep ended at %d", next)
		}
	}
	if got := rd.Destinations(); len(got) != len(f.dests) || (len(got) > 0 && got[0] != f.dests[0]) {
		t.Fatalf("destinations %v", got)
	}
}

func TestProperty(t *testing.T) {
	cases := []struct {
		name  string
		frags []uint64
		m     int
		del   float64
		local int
		bs    int
	}{
		{"small-blocks", []uint64{37, 0, 100, 5}, 3, 0.2, 0, 16},
		{"one-dest", []uint64{500}, 1, 0.3, 0, 64},
		{"locality", []uint64{1000, 777}, 50, 0.125, 4, 128},
		{"no-deletes", []uint64{999}, 7, 0, 0, 100},
		{"wide", []uint64{3000}, 1000, 0.125, 0, 1024},
		{"max-dests", []uint64{2000}, 65536, 0.1, 0, 512},
		{"real-block", []uint64{70000, 65536, 1234}, 1000, 0.125, 0, 0},
		// blocks longer than the sweep's 64K-row segment
		{"long-blocks", []uint64{140000, 21000}, 700, 0.125, 0, 150000},
		{"long-blocks-wide", []uint64{131073}, 40000, 0.2, 0, 131072},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := genFixture(t, uint64(i), c.frags, c.m, c.del, c.local, c.bs)
			forEachKernel(t, func(t *testing.T) { checkAll(t, f, uint64(i)) })
		})
	}
}

func TestWorkedExample(t *testing.T) {
	del := roaring.BitmapOf(2)
	w, err := NewWriter([]uint32{10, 11}, []SourceFragment{{5, del}, {3, nil}}, WriterOptions{BlockSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append([]uint16{0, 1, 0, 0, 1, 0, 1}); err != nil {
		t.Fatal(err)
	}
	file, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	rd, err := Open(BytesSource(file))
	if err != nil {
		t.Fatal(err)
	}
	if got := rd.Counts().After(0); got[0] != 2 || got[1] != 1 {
		t.Fatalf("after block 0: %v", got)
	}
	d, o, dl, err := rd.Translate(6)
	if err != nil || d != 0 || o != 3 || dl {
		t.Fatalf("row 6: %d %d %v %v", d, o, dl, err)
	}
	if _, _, dl, _ := rd.Translate(2); !dl {
		t.Fatal("row 2 should be deleted")
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	arr, err := rd.Labels(0, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	if arr.Len() != 4 || !arr.IsNull(2) || arr.Value(1) != 1 || arr.NullN() != 1 {
		t.Fatalf("labels %v", arr)
	}
	var buf bytes.Buffer
	if err := rd.Describe(&buf); err != nil {
		t.Fatal(err)
	}
	// The golden file was checked by hand against the example: 8 rows in 2
	// blocks of 4; destinations 10 and 11 get 4 and 3 rows; block 0 holds
	// the deleted row 2 (a bitmap) and labels 0 1 _ 0, block 1 labels
	// 0 1 0 1; both pack plainly at 1 bit.
	golden, err := os.ReadFile(filepath.Join("testdata", "describe_worked_example.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if buf.String() != string(golden) {
		t.Fatalf("describe:\n%s\nwant:\n%s", buf.String(), golden)
	}
}

func TestEdgeShapes(t *testing.T) {
	full := roaring.New()
	full.AddRange(0, 10)
	for _, src := range [][]SourceFragment{
		{{10, full}},           // fully deleted
		{{0, nil}},             // zero rows
		{},                     // no sources
		{{3, nil}, {10, full}}, // deleted tail drained by Finish
	} {
		w, err := NewWriter([]uint32{1}, src, WriterOptions{BlockSize: 4})
		if err != nil {
			t.Fatal(err)
		}
		var live int
		for _, s := range src {
			live += int(s.PhysicalRows)
			if s.Deleted != nil {
				live -= int(s.Deleted.GetCardinality())
			}
		}
		if err := w.Append(make([]uint16, live)); err != nil {
			t.Fatal(err)
		}
		file, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		rd, err := Open(BytesSource(file))
		if err != nil {
			t.Fatal(err)
		}
		if err := rd.TranslateMany(nil, nil); err != nil {
			t.Fatal(err)
		}
		n := 0
		if err := rd.Sweep(0, func(g uint64, d uint16, o uint32, del bool) error {
			if del != (g >= uint64(live)) || (!del && o != uint32(g)) {
				t.Fatalf("row %d: %d %d %v", g, d, o, del)
			}
			n++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if uint64(n) != rd.NumRows() {
			t.Fatalf("swept %d of %d", n, rd.NumRows())
		}
		if err := rd.Sweep(rd.Counts().NumBlocks(), func(uint64, uint16, uint32, bool) error {
			t.Fatal("empty sweep called back")
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, at := range []uint64{0, rd.NumRows()} {
			if err := rd.SweepRange(at, at, func(uint64, []uint32, []uint32) error {
				t.Fatal("empty range called back")
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestConservation(t *testing.T) {
	mk := func(opts WriterOptions) *Writer {
		w, err := NewWriter([]uint32{1, 2}, []SourceFragment{{4, roaring.BitmapOf(1)}}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	if err := mk(WriterOptions{}).Append([]uint16{0, 1, 0, 1}); !errors.Is(err, ErrConservation) {
		t.Fatalf("too many: %v", err)
	}
	w := mk(WriterOptions{})
	_ = w.Append([]uint16{0, 1})
	if _, err := w.Finish(); !errors.Is(err, ErrConservation) {
		t.Fatalf("too few: %v", err)
	}
	w = mk(WriterOptions{ExpectedTotals: []uint32{2, 1}})
	_ = w.Append([]uint16{0, 1, 1})
	if _, err := w.Finish(); !errors.Is(err, ErrConservation) {
		t.Fatalf("totals: %v", err)
	}
	w = mk(WriterOptions{ExpectedTotals: []uint32{1, 2}})
	_ = w.Append([]uint16{0, 1, 1})
	if _, err := w.Finish(); err != nil {
		t.Fatalf("good totals: %v", err)
	}
	if err := mk(WriterOptions{}).Append([]uint16{2}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("bad label: %v", err)
	}
	if _, err := NewWriter([]uint32{1}, []SourceFragment{{4, roaring.BitmapOf(4)}}, WriterOptions{}); !errors.Is(err, ErrConservation) {
		t.Fatalf("deleted offset outside: %v", err)
	}
}

func TestCorrupt(t *testing.T) {
	f := genFixture(t, 9, []uint64{300, 200}, 5, 0.2, 0, 64)
	if _, err := Open(BytesSource(f.file)); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < len(f.file)*8; i += 1 + r.IntN(7) {
		b := bytes.Clone(f.file)
		b[i/8] ^= 1 << (i % 8)
		rd, err := Open(BytesSource(b))
		if err == nil {
			// block corruption is detected when the block is read
			err = rd.Sweep(0, func(uint64, uint16, uint32, bool) error { return nil })
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("bit %d flipped: %v", i, err)
		}
	}
	for n := 0; n < len(f.file); n += 1 + r.IntN(20) {
		if _, err := Open(BytesSource(f.file[:n])); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
	for _, foreign := range [][]byte{[]byte("PAR1 hello world this is not a row map at all PAR1"), bytes.Repeat([]byte{0xff}, 200), make([]byte, 100)} {
		if _, err := Open(BytesSource(foreign)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("foreign: %v", err)
		}
	}
}

func TestFileSource(t *testing.T) {
	f := genFixture(t, 4, []uint64{5000}, 10, 0.1, 0, 256)
	rd, err := Open(fileSourceOf(t, f.file))
	if err != nil {
		t.Fatal(err)
	}
	d, o, del, err := rd.Translate(4999)
	if err != nil || (Translation{d, o, del}) != f.ref[4999] {
		t.Fatalf("%v %v", err, f.ref[4999])
	}
}

// TestCorruptionNamesFile: a flipped bit anywhere in a row map opened with
// its path is reported naming the path, whether the tail finds it at Open
// or a block read finds it later (sweep, point and batch translation,
// block decode), as data file and manifest errors do (issue 26).
func TestCorruptionNamesFile(t *testing.T) {
	const name = "_rowmaps/0123.rowmap"
	f := genFixture(t, 9, []uint64{300, 200}, 5, 0.2, 0, 64)
	rows := make([]uint64, 500)
	for i := range rows {
		rows[i] = uint64(i)
	}
	uses := map[string]func(rd *Reader) error{
		"sweep": func(rd *Reader) error { return rd.Sweep(0, func(uint64, uint16, uint32, bool) error { return nil }) },
		"translate many": func(rd *Reader) error {
			return rd.TranslateMany(rows, make([]Translation, len(rows)))
		},
		"translate": func(rd *Reader) error {
			for _, g := range rows {
				if _, _, _, err := rd.Translate(g); err != nil {
					return err
				}
			}
			return nil
		},
		"decode block": func(rd *Reader) error {
			for b := range rd.Counts().NumBlocks() {
				if _, err := rd.DecodeBlock(b); err != nil {
					return err
				}
			}
			return nil
		},
	}
	r := rand.New(rand.NewPCG(4, 4))
	for use, run := range uses {
		for i := 0; i < len(f.file)*8; i += 1 + r.IntN(29) {
			b := bytes.Clone(f.file)
			b[i/8] ^= 1 << (i % 8)
			rd, err := OpenNamed(BytesSource(b), name)
			if err == nil {
				err = run(rd)
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), name) {
				t.Fatalf("%s: bit %d flipped: %v (want ErrCorrupt naming %s)", use, i, err, name)
			}
		}
	}
}
