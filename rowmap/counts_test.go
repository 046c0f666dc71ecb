package rowmap

import (
	"encoding/binary"
	"errors"
	"github.com/stablerow/stablerow/internal/fuzzseed"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

func TestCountsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b := NewCountsBuilder(4, 8)
	ref := make([]uint32, 4)
	for i := range 61 {
		if r.IntN(5) == 0 {
			b.AddNull()
		} else {
			l := r.IntN(4)
			ref[l]++
			b.Add(uint16(l))
		}
		_ = i
	}
	cm, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if cm.NumBlocks() != 8 || cm.BlockLen(7) != 5 {
		t.Fatalf("blocks %d last %d", cm.NumBlocks(), cm.BlockLen(7))
	}
	enc, _ := cm.MarshalBinary()
	dec, err := DecodeCounts(enc)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range dec.Totals() {
		if v != ref[j] {
			t.Fatalf("totals %v want %v", dec.Totals(), ref)
		}
	}
	if _, err := DecodeCounts(enc[:len(enc)-1]); !errors.Is(err, ErrCorrupt) {
		t.Fatal("truncation accepted")
	}
	bad := append([]byte(nil), enc...)
	bad[0] = 'X'
	if _, err := DecodeCounts(bad); !errors.Is(err, ErrCorrupt) {
		t.Fatal("bad magic accepted")
	}
	bad = append([]byte(nil), enc...)
	binary.LittleEndian.PutUint16(bad[6:], 9)
	if _, err := DecodeCounts(bad); !errors.Is(err, ErrUnknownRepresentation) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("unknown tag: %v", err)
	}
}

// reseal rewrites a counts encoding's cells and checksum.
func reseal(enc []byte, cell int, v uint32) []byte {
	b := append([]byte(nil), enc...)
	binary.LittleEndian.PutUint32(b[countsHeaderSize+4*cell:], v)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	return b
}

func TestCountsValidate(t *testing.T) {
	// m=2, block 4, 8 rows: after block0 [2 1], after block1 [4 3]
	if _, err := NewCountsMatrix(2, 4, 8, []uint32{2, 1, 4, 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCountsMatrix(2, 4, 8, []uint32{2, 1, 1, 3}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("non-monotone: %v", err)
	}
	if _, err := NewCountsMatrix(2, 4, 8, []uint32{4, 1, 4, 3}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("over budget: %v", err)
	}
	if _, err := NewCountsMatrix(2, 4, 6, []uint32{2, 1, 4, 3}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("short block over budget: %v", err)
	}
	cm, _ := NewCountsMatrix(2, 4, 8, []uint32{2, 1, 4, 3})
	enc, _ := cm.MarshalBinary()
	if _, err := DecodeCounts(reseal(enc, 2, 1)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("decode non-monotone: %v", err)
	}
}

func TestTranslateInBlock(t *testing.T) {
	labels := []uint32{0, 1, NullLabel, 0, 0, 1, 0, 1}
	want := []uint32{0, 0, 0, 1, 2, 1, 3, 2}
	for p := range labels {
		l, rank, del := TranslateInBlock(labels, p)
		if del != (labels[p] == NullLabel) || (!del && (l != labels[p] || rank != want[p])) {
			t.Fatalf("pos %d: %d %d %v", p, l, rank, del)
		}
	}
}

// TestWriteFuzzCorpus regenerates the committed seed corpora when
// STABLEROW_WRITE_CORPUS=1.
func TestWriteFuzzCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzDecodeCounts", countsSeeds())
	fuzzseed.Write(t, "FuzzOpen", fileSeeds(t))
}

func countsSeeds() [][]byte {
	var out [][]byte
	for _, c := range []struct {
		m, bs uint32
		rows  uint64
		data  []uint32
	}{{2, 4, 8, []uint32{2, 1, 4, 3}}, {1, 3, 2, []uint32{1}}, {0, 4, 0, nil}, {3, 2, 5, []uint32{1, 0, 1, 1, 1, 2, 1, 2, 2}}} {
		cm, err := NewCountsMatrix(c.m, c.bs, c.rows, c.data)
		if err != nil {
			panic(err)
		}
		b, _ := cm.MarshalBinary()
		out = append(out, b)
	}
	return out
}

func fileSeeds(t testing.TB) [][]byte {
	return [][]byte{
		genFixture(t, 1, []uint64{20, 3}, 3, 0.2, 0, 8).file,
		genFixture(t, 2, []uint64{40}, 40, 0, 2, 16).file,
		genFixture(t, 3, []uint64{0}, 1, 0, 0, 8).file,
		genFixture(t, 4, []uint64{9}, 2, 1, 0, 4).file,
	}
}

func TestCountsPackedAndDense(t *testing.T) {
	// A wide sparse matrix picks packed deltas; a tiny one may pick dense.
	r := rand.New(rand.NewPCG(5, 5))
	b := NewCountsBuilder(300, 64)
	for range 64 * 9 {
		b.Add(uint16(r.IntN(300)))
	}
	cm, _ := b.Finish()
	if cm.Tag() != TagPackedDeltas {
		t.Fatalf("tag %d", cm.Tag())
	}
	enc, _ := cm.MarshalBinary()
	if len(enc) != cm.EncodedSize() {
		t.Fatalf("size %d want %d", len(enc), cm.EncodedSize())
	}
	dec, err := DecodeCounts(enc)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range cm.data {
		if dec.data[i] != v {
			t.Fatalf("cell %d", i)
		}
	}
	for n := range len(enc) {
		if _, err := DecodeCounts(enc[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated %d: %v", n, err)
		}
	}
}

func TestCountsSparseBlocks(t *testing.T) {
	b := NewCountsBuilder(1000, 256)
	r := rand.New(rand.NewPCG(8, 8))
	for blk := range 5 {
		pool := []int{r.IntN(1000), r.IntN(1000), 999}
		for range 256 - blk {
			b.Add(uint16(pool[r.IntN(3)]))
		}
		for range blk {
			b.AddNull()
		}
	}
	cm, _ := b.Finish()
	enc, _ := cm.MarshalBinary()
	if enc[countsHeaderSize]&sparseFlag == 0 {
		t.Fatal("expected a sparse block")
	}
	dec, err := DecodeCounts(enc)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range cm.data {
		if dec.data[i] != v {
			t.Fatalf("cell %d", i)
		}
	}
}
