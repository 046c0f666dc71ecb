package rowmap

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
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

// FuzzRoundTrip writes a map from fuzzed labels and deletions and checks
// that every read path translates it as the reference does (offset =
// earlier live rows with the same label), with each kernel. The input
// picks the destination count (b[0]: 1–255, or 65,536), the block size
// (b[1]: 1–255, or 64K), the fragment count (b[2]), then two bytes per row:
// a row is deleted when the pair is a multiple of 8, else its label is the
// pair over 8 modulo the destination count.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{2, 3, 1, 1, 0, 9, 0, 8, 0, 17, 0, 25, 0})
	f.Add([]byte{255, 0, 2, 0xff, 0xff, 1, 2, 3, 4, 0, 0, 7, 7})
	f.Add(append([]byte{15, 63, 3}, make([]byte, 300)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 3 {
			return
		}
		m := int(b[0]) + 1
		if b[0] == 255 {
			m = MaxDestinations
		}
		bs := int(b[1])
		if bs == 0 {
			bs = BlockSize
		}
		body := b[3:]
		nrows := len(body) / 2
		var ref []Translation
		var live []uint16
		totals := make([]uint32, m)
		nfrag := int(b[2])%3 + 1
		var srcs []SourceFragment
		for fi := range nfrag {
			lo, hi := nrows*fi/nfrag, nrows*(fi+1)/nfrag
			del := roaring.New()
			for i := lo; i < hi; i++ {
				x := binary.LittleEndian.Uint16(body[2*i:])
				if x%8 == 0 {
					del.Add(uint32(i - lo))
					ref = append(ref, Translation{Deleted: true})
					continue
				}
				l := uint16(int(x/8) % m)
				live = append(live, l)
				ref = append(ref, Translation{Dest: l, Offset: totals[l]})
				totals[l]++
			}
			srcs = append(srcs, SourceFragment{PhysicalRows: uint64(hi - lo), Deleted: del})
		}
		dests := make([]uint32, m)
		for i := range dests {
			dests[i] = uint32(i)
		}
		rd, err := Open(BytesSource(writeMap(t, dests, srcs, WriterOptions{BlockSize: bs, ExpectedTotals: totals}, live)))
		if err != nil {
			t.Fatal(err)
		}
		defer func(e, c bool) { useExpand, useAVX2Count = e, c }(useExpand, useAVX2Count)
		for _, simd := range []bool{false, haveAVX2} {
			useExpand, useAVX2Count = simd, simd
			next := uint64(0)
			err := rd.SweepBlocks(0, func(first uint64, labels, offsets []uint32) error {
				for j, l := range labels {
					got := translationOf(l, offsets[j])
					if want := ref[first+uint64(j)]; got != want {
						t.Fatalf("simd %v: sweep row %d: %+v, want %+v", simd, first+uint64(j), got, want)
					}
				}
				next += uint64(len(labels))
				return nil
			})
			if err != nil || next != uint64(len(ref)) {
				t.Fatalf("simd %v: sweep to %d of %d: %v", simd, next, len(ref), err)
			}
			for g := range ref {
				d, o, del, err := rd.Translate(uint64(g))
				if err != nil {
					t.Fatal(err)
				}
				if got := (Translation{d, o, del}); got != ref[g] {
					t.Fatalf("simd %v: point row %d: %+v, want %+v", simd, g, got, ref[g])
				}
			}
			rows := make([]uint64, len(ref))
			for i := range rows {
				rows[i] = uint64(len(rows) - 1 - i)
			}
			out := make([]Translation, len(rows))
			if err := rd.TranslateMany(rows, out); err != nil {
				t.Fatal(err)
			}
			for i, g := range rows {
				if out[i] != ref[g] {
					t.Fatalf("simd %v: batch row %d: %+v, want %+v", simd, g, out[i], ref[g])
				}
			}
			// TranslateBatch on each of its paths: every row descending
			// (a keyed sweep once dense enough), ascending (a sorted
			// sweep), and every 97th (point lookups).
			asc := slices.Clone(rows)
			slices.Reverse(asc)
			var sparse []uint64
			for g := uint64(0); g < uint64(len(ref)); g += 97 {
				sparse = append(sparse, g)
			}
			for _, rs := range [][]uint64{rows, asc, sparse} {
				var st BatchStats
				if err := rd.TranslateBatch(rs, out, &st); err != nil {
					t.Fatal(err)
				}
				if st.Swept+st.Point != int64(len(rs)) {
					t.Fatalf("simd %v: stats %+v for %d rows", simd, st, len(rs))
				}
				for i, g := range rs {
					if out[i] != ref[g] {
						t.Fatalf("simd %v: TranslateBatch row %d: %+v, want %+v", simd, g, out[i], ref[g])
					}
				}
			}
		}
	})
}
