package rowmap

import (
	"errors"
	"testing"
)

func FuzzDecodeCounts(f *testing.F) {
	for _, s := range countsSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cm, err := DecodeCounts(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not ErrCorrupt: %v", err)
			}
			return
		}
		re, _ := cm.MarshalBinary()
		back, err := DecodeCounts(re)
		if err != nil {
			t.Fatalf("re-encoding does not decode: %v", err)
		}
		if back.NumBlocks() != cm.NumBlocks() || back.TotalRows() != cm.TotalRows() {
			t.Fatal("round trip changed the shape")
		}
		for i, v := range back.data {
			if cm.data[i] != v {
				t.Fatal("round trip changed a cell")
			}
		}
	})
}

func FuzzOpen(f *testing.F) {
	for _, s := range fileSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rd, err := Open(BytesSource(b))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not ErrCorrupt: %v", err)
			}
			return
		}
		// A file that opens and sweeps cleanly must translate the same way
		// by every path: the sweep, point lookups (rank on the packed
		// block), and batches both sparse (ranked) and dense (swept).
		var swept []Translation
		n := uint64(0)
		err = rd.Sweep(0, func(g uint64, d uint16, o uint32, del bool) error {
			n++
			if !del && int(d) >= len(rd.Destinations()) {
				t.Fatalf("dest %d out of range", d)
			}
			if g < 1<<14 {
				tr := Translation{Deleted: del}
				if !del {
					tr.Dest, tr.Offset = d, o
				}
				swept = append(swept, tr)
			}
			return nil
		})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("sweep error not ErrCorrupt: %v", err)
			}
			return
		}
		if n != rd.NumRows() {
			t.Fatalf("swept %d of %d", n, rd.NumRows())
		}
		for g := range min(len(swept), 300) {
			d, o, del, err := rd.Translate(uint64(g))
			if err != nil {
				t.Fatalf("row %d swept but not translated: %v", g, err)
			}
			if got := (Translation{d, o, del}); got != swept[g] {
				t.Fatalf("row %d: point %+v, sweep %+v", g, got, swept[g])
			}
		}
		all := make([]uint64, len(swept))
		for g := range all {
			all[g] = uint64(len(all) - 1 - g) // reversed: TranslateMany sorts
		}
		sparse := []uint64{}
		if len(swept) > 0 {
			sparse = []uint64{0, uint64(len(swept) / 2), uint64(len(swept) - 1)}
		}
		for _, rows := range [][]uint64{all, sparse} {
			out := make([]Translation, len(rows))
			if err := rd.TranslateMany(rows, out); err != nil {
				t.Fatalf("batch of %d swept rows: %v", len(rows), err)
			}
			for i, g := range rows {
				if out[i] != swept[g] {
					t.Fatalf("row %d: batch %+v, sweep %+v", g, out[i], swept[g])
				}
			}
		}
	})
}
