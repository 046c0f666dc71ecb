package table

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/internal/fuzzseed"
)

// sketchOf is the sketch of the integers lo..hi-1.
func sketchOf(lo, hi uint64) *Sketch {
	s := &Sketch{}
	for x := lo; x < hi; x++ {
		s.addUint64(x)
	}
	return s
}

// TestSketchAccuracy: the estimate of n distinct values is within 3 %
// for every n from 1 to 1M (the relative standard error of 2^12
// registers is 1.6 %; the hash is fixed, so the result is too), exact
// for the empty sketch, and the same whatever the order and the
// repetitions of the values.
func TestSketchAccuracy(t *testing.T) {
	require.Equal(t, 0.0, (&Sketch{}).Estimate())
	ns := []uint64{1, 2, 10, 100, 1000, 5000, 10_000, 20_000, 50_000, 100_000, 1_000_000}
	if testing.Short() {
		ns = ns[:len(ns)-1]
	}
	for _, n := range ns {
		got := sketchOf(0, n).Estimate()
		require.InDelta(t, float64(n), got, 0.03*float64(n)+0.5, "n = %d", n)
	}
	// Strings: 1M distinct, each value added twice.
	s := &Sketch{}
	n := 200_000
	if !testing.Short() {
		n = 1_000_000
	}
	for i := range 2 * n {
		s.addString(fmt.Sprintf("key-%d", i%n))
	}
	require.InDelta(t, float64(n), s.Estimate(), 0.03*float64(n))
	// Order and repetition do not change the registers.
	r := rand.New(rand.NewPCG(1, 2))
	p := &Sketch{}
	for range 3 {
		for _, x := range r.Perm(5000) {
			p.addUint64(uint64(x))
		}
	}
	require.Equal(t, sketchOf(0, 5000).reg, p.reg)
}

// TestSketchMerge: merging the sketches of parts is the sketch of the
// whole, register for register, whether the parts overlap or not, and
// its estimate counts the union's distinct values.
func TestSketchMerge(t *testing.T) {
	whole := sketchOf(0, 300_000)
	a, b, c := sketchOf(0, 120_000), sketchOf(100_000, 250_000), sketchOf(200_000, 300_000)
	m := &Sketch{}
	m.Merge(a)
	m.Merge(b)
	m.Merge(c)
	require.Equal(t, whole.reg, m.reg)
	require.InDelta(t, 300_000, m.Estimate(), 0.03*300_000)
	// Merging a sketch into itself or an empty one changes nothing.
	before := m.reg
	m.Merge(m)
	m.Merge(&Sketch{})
	require.Equal(t, before, m.reg)
}

// TestSketchRoundTrip: both encodings decode to the registers encoded,
// the sparse one chosen while few registers are set.
func TestSketchRoundTrip(t *testing.T) {
	for _, n := range []uint64{0, 1, 50, 1000, 100_000} {
		s := sketchOf(0, n)
		b := s.encode()
		wantEnc := byte(sketchDense)
		if n <= 1000 {
			wantEnc = sketchSparse
		}
		require.Equal(t, wantEnc, b[7], "n = %d", n)
		got, err := DecodeSketch(b)
		require.NoError(t, err)
		require.Equal(t, s.reg, got.reg, "n = %d", n)
	}
}

// TestSketchCorrupt: every single-byte change of a stored sketch (each
// byte's bit 0 and bit 7 flipped), every truncation and every trailing
// byte is ErrCorrupt, in both encodings; so are well-checksummed bodies
// that break a rule (a register above 53, sparse indices not ascending
// or out of range, an unknown precision or encoding).
func TestSketchCorrupt(t *testing.T) {
	for _, s := range []*Sketch{sketchOf(0, 40), sketchOf(0, 50_000)} {
		b := s.encode()
		for i := range b {
			for _, bit := range []byte{1, 0x80} {
				c := append([]byte(nil), b...)
				c[i] ^= bit
				_, err := DecodeSketch(c)
				require.ErrorIs(t, err, ErrCorrupt, "byte %d bit %#x", i, bit)
			}
		}
		for i := range b {
			_, err := DecodeSketch(b[:i])
			require.ErrorIs(t, err, ErrCorrupt, "cut at %d", i)
		}
		_, err := DecodeSketch(sketchCRC(append(append([]byte(nil), b[:len(b)-4]...), 0, 0, 0, 0, 0)))
		require.ErrorIs(t, err, ErrCorrupt, "a trailing byte")
	}
	dense := sketchOf(0, 50_000).encode()
	bad := append([]byte(nil), dense...)
	bad[sketchHeader+7] = sketchQ + 2
	_, err := DecodeSketch(sketchCRC(bad))
	require.ErrorIs(t, err, ErrCorrupt, "a register above its largest value")
	bad = append([]byte(nil), dense...)
	bad[6] = 14
	_, err = DecodeSketch(sketchCRC(bad))
	require.ErrorIs(t, err, ErrCorrupt, "another precision")
	bad[6], bad[7] = sketchP, 2
	_, err = DecodeSketch(sketchCRC(bad))
	require.ErrorIs(t, err, ErrCorrupt, "an unknown encoding")
	// Sparse: entries (delta 0) repeat an index; a delta past the last
	// register.
	for _, body := range [][]byte{{2, 1, 3, 0, 3}, {1, 0x81, 0x20, 3}, {1, 1, 0}} {
		b := append([]byte(sketchMagic), 1, 0, sketchP, sketchSparse)
		_, err := DecodeSketch(sketchCRC(append(append(b, body...), 0, 0, 0, 0)))
		require.ErrorIs(t, err, ErrCorrupt, "sparse body %v", body)
	}
}

// sketchCRC is b (its last 4 bytes the CRC) with the CRC recomputed.
func sketchCRC(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(c[len(c)-4:], crc32.Checksum(c[:len(c)-4], castagnoli))
	return c
}

// sketchSeeds are stored sketches of both encodings, for the fuzz
// target's committed corpus.
func sketchSeeds() [][]byte {
	var out [][]byte
	for _, n := range []uint64{0, 3, 2000, 100_000} {
		out = append(out, sketchOf(0, n).encode())
	}
	return out
}

// TestSketchCorpus rewrites testdata/fuzz/FuzzDecodeSketch on request
// (internal/fuzzseed).
func TestSketchCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzDecodeSketch", sketchSeeds())
}

// FuzzDecodeSketch: whatever the bytes, DecodeSketch returns a sketch or
// ErrCorrupt, never panics; what it accepts re-encodes to a sketch with
// the same registers and a finite, non-negative estimate.
func FuzzDecodeSketch(f *testing.F) {
	for _, b := range sketchSeeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, in := range [][]byte{b, sketchCRC(b)} {
			s, err := DecodeSketch(in)
			if err != nil {
				require.ErrorIs(t, err, ErrCorrupt)
				continue
			}
			e := s.Estimate()
			require.False(t, math.IsNaN(e) || math.IsInf(e, 0) || e < 0, "estimate %v", e)
			again, err := DecodeSketch(s.encode())
			require.NoError(t, err)
			require.Equal(t, s.reg, again.reg)
		}
	})
}
