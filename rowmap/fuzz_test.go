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
		n := uint64(0)
		err = rd.Sweep(0, func(g uint64, d uint16, o uint32, del bool) error {
			n++
			if !del && int(d) >= len(rd.Destinations()) {
				t.Fatalf("dest %d out of range", d)
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
		if n > 0 {
			if _, _, _, err := rd.Translate(n - 1); err != nil {
				t.Fatal(err)
			}
		}
	})
}
