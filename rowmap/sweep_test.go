package rowmap

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestUnpackLive checks the sweep's decode, the generated constant-shift
// kernels (phase 0) and the unaligned loop (phases 1–7), against values set
// bit by bit at their LSB-first positions.
func TestUnpackLive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	tab := new(valueTables)
	for w := uint(0); w <= 16; w++ {
		for phase := uint(0); phase < 8; phase++ {
			for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 1000, segRows} {
				want := make([]uint16, n)
				var win [winSize]byte
				for i := range want {
					v := uint16(r.Uint32() & (1<<w - 1))
					want[i] = v
					for b := range w {
						if v>>b&1 != 0 {
							pos := phase + uint(i)*w + b
							win[pos/8] |= 1 << (pos % 8)
						}
					}
				}
				unpackLive(tab.vals[:], n, &win, phase, w)
				for i, v := range want {
					if got := binary.LittleEndian.Uint16(tab.vals[2*i:]); got != v {
						t.Fatalf("width %d phase %d n %d: value %d = %d, want %d", w, phase, n, i, got, v)
					}
				}
			}
		}
	}
}

// TestSweepSources sweeps maps several windows long through both read
// paths — blocks read in place from an in-memory file, and blocks copied
// out of an os.File — against the reference, from block boundaries at the
// start, the middle and the end (where the in-place path gives way to
// copies for lack of slack).
func TestSweepSources(t *testing.T) {
	for i, c := range []struct {
		name  string
		local int
	}{{"uniform", 0}, {"locality", 16}} {
		t.Run(c.name, func(t *testing.T) {
			f := genFixture(t, uint64(60+i), []uint64{700_000, 0, 333_333}, 1000, 0.125, c.local, BlockSize)
			fsrc := fileSourceOf(t, f.file)
			forEachKernel(t, func(t *testing.T) { checkSources(t, f, fsrc) })
		})
	}
}

func checkSources(t *testing.T, f *fixture, fsrc Source) {
	for name, src := range map[string]Source{"bytes": BytesSource(f.file), "file": fsrc} {
		rd, err := Open(src)
		if err != nil {
			t.Fatal(err)
		}
		nb := rd.Counts().NumBlocks()
		if name == "bytes" && (rd.mem == nil || rd.dir[1]+winSize > uint64(len(rd.mem))) {
			t.Fatalf("fixture too small to read blocks in place")
		}
		for _, b := range []int{0, nb / 2, nb - 1} {
			next := uint64(b) * BlockSize
			err := rd.SweepBlocks(b, func(first uint64, labels, offsets []uint32) error {
				if first != next {
					t.Fatalf("%s: block at row %d, want %d", name, first, next)
				}
				for j := range labels {
					want := f.ref[first+uint64(j)]
					got := translationOf(labels[j], offsets[j])
					if got != want {
						t.Fatalf("%s: sweep from block %d, row %d: got %+v want %+v", name, b, first+uint64(j), got, want)
					}
				}
				next += uint64(len(labels))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if next != uint64(len(f.ref)) {
				t.Fatalf("%s: sweep ended at %d of %d", name, next, len(f.ref))
			}
		}
	}
}

// forEachKernel runs fn with each sweep row loop this machine has: rankRows
// (everywhere) and the rank-then-expand pair (amd64 with AVX2).
func forEachKernel(t *testing.T, fn func(t *testing.T)) {
	defer func(u bool) { useExpand = u }(useExpand)
	useExpand = false
	t.Run("rank", fn)
	if !haveAVX2 {
		t.Log("no AVX2 here: the expand kernel is not run")
		return
	}
	useExpand = true
	t.Run("expand", fn)
}

// TestSweepChecksCounts: a map whose counts matrix disagrees with its
// blocks' labels (each block's live total still right, so the headers
// match) is ErrCorrupt for the sweep and for dense batches, with either
// kernel, rather than translated two different ways by sweep and point
// lookups. The counts are swapped in memory, past Open's checks, as a
// writer bug with valid checksums would leave them.
func TestSweepChecksCounts(t *testing.T) {
	f := genFixture(t, 77, []uint64{200_000}, 50, 0.125, 0, BlockSize)
	forEachKernel(t, func(t *testing.T) {
		rd, err := Open(BytesSource(f.file))
		if err != nil {
			t.Fatal(err)
		}
		c := rd.counts
		m := c.NumDestinations()
		data := slices.Clone(c.data)
		if data[1] == 0 {
			t.Fatal("fixture: destination 1 has no rows in block 0")
		}
		for b := range c.NumBlocks() {
			data[b*m]++ // one row of block 0 moves from destination 1 to 0
			data[b*m+1]--
		}
		if rd.counts, err = NewCountsMatrix(uint32(m), uint32(c.BlockSize()), c.TotalRows(), data); err != nil {
			t.Fatal(err)
		}
		if err := rd.counts.Validate(); err != nil {
			t.Fatalf("the tampered counts should pass Validate: %v", err)
		}
		if err := rd.SweepBlocks(0, func(uint64, []uint32, []uint32) error { return nil }); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("sweep: %v, want ErrCorrupt", err)
		}
		rows := make([]uint64, 1000)
		for i := range rows {
			rows[i] = uint64(i)
		}
		if err := rd.TranslateMany(rows, make([]Translation, len(rows))); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("dense batch: %v, want ErrCorrupt", err)
		}
	})
}
