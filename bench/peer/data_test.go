package peer

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestGeneratorDeterministic pins the generated data: the same rows every
// run (a golden digest of the first 10,000 rows, reviewed once), unique keys,
// payloads in [0, 1), and batches that agree with K and Payload.
func TestGeneratorDeterministic(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	require.Equal(t, int64(0), K(0))
	require.Equal(t, int64(0x1E3779B97F4A7C15), K(1), "K(1) is the multiplier with the top bit cleared")
	// splitmix64's published first output for state 0.
	require.Equal(t, float64(uint64(0xE220A8397B1DCDAF)>>11)/(1<<53), Payload(0))
	h := fnv.New64a()
	seen := map[int64]bool{}
	var buf [8]byte
	for i := range uint64(10_000) {
		k, p := K(i), Payload(i)
		require.False(t, seen[k], "K(%d) repeats", i)
		seen[k] = true
		require.GreaterOrEqual(t, k, int64(0))
		require.True(t, p >= 0 && p < 1, "Payload(%d) = %v", i, p)
		binary.LittleEndian.PutUint64(buf[:], uint64(k))
		h.Write(buf[:])
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(p))
		h.Write(buf[:])
	}
	require.Equal(t, uint64(0xcdb917b2d49f3c5f), h.Sum64(), "generated data changed: every published figure was measured on the old data")

	b1, err := GenBatch(mem, 500, 1500)
	require.NoError(t, err)
	defer b1.Release()
	b2, err := GenBatch(mem, 500, 1500)
	require.NoError(t, err)
	defer b2.Release()
	require.True(t, array.RecordEqual(b1, b2))
	ks := b1.Column(0).(*array.Int64)
	ps := b1.Column(1).(*array.Float64)
	for j := range 1000 {
		require.Equal(t, K(uint64(500+j)), ks.Value(j))
		require.Equal(t, Payload(uint64(500+j)), ps.Value(j))
	}
	_, err = GenBatch(mem, 2, 1)
	require.ErrorIs(t, err, ErrInvalidArgument)
}

// TestPayloadSpread checks the property the delete workload relies on:
// "payload < 0.1" selects about a tenth of the rows.
func TestPayloadSpread(t *testing.T) {
	tb := SyntheticTable(100_000, 1000)
	_, n := ExpectDelete(tb, DeleteLimit)
	require.InDelta(t, 10_000, n, 500)
}

// TestSyntheticTable checks the address layout stablerow uses: fragment in
// the high 32 bits, offset in the low.
func TestSyntheticTable(t *testing.T) {
	tb := SyntheticTable(2500, 1000)
	require.NoError(t, tb.Validate())
	require.Equal(t, uint64(0), tb.RowAddr[0])
	require.Equal(t, uint64(1)<<32|999, tb.RowAddr[1999])
	require.Equal(t, uint64(2)<<32|499, tb.RowAddr[2499])
	require.Equal(t, uint64(2499), tb.MaxRowID())
	tb.RowID[7] = 3
	require.ErrorIs(t, tb.Validate(), ErrInvalidArgument)
	tb.RowID[7] = 1 << 40 // sparse ids take the sorting path
	tb.RowID[8] = 1 << 40
	require.ErrorIs(t, tb.Validate(), ErrInvalidArgument)
	tb.K = tb.K[:5]
	require.ErrorIs(t, tb.Validate(), ErrInvalidArgument)
}

// TestIDsDeterministic checks the id lists: reproducible from the seed,
// about 5% misses and 5% repeats, every other id a live row id.
func TestIDsDeterministic(t *testing.T) {
	tb := SyntheticTable(50_000, 10_000)
	a, err := IDs(tb, 20_000, 9)
	require.NoError(t, err)
	b, err := IDs(tb, 20_000, 9)
	require.NoError(t, err)
	require.True(t, slices.Equal(a, b), "same seed, same list")
	c, err := IDs(tb, 20_000, 10)
	require.NoError(t, err)
	require.False(t, slices.Equal(a, c), "another seed, another list")
	misses, repeats, top := 0, 0, tb.MaxRowID()
	seen := map[uint64]bool{}
	for _, id := range a {
		if id > top {
			misses++
		}
		if seen[id] {
			repeats++
		}
		seen[id] = true
	}
	require.InDelta(t, 1000, misses, 150)
	// Random hits repeat by chance too (20K draws over 50K ids), so repeats
	// exceed the 5% drawn on purpose.
	require.Greater(t, repeats, 1000)
	_, err = IDs(&Table{}, 10, 1)
	require.ErrorIs(t, err, ErrInvalidArgument)

	keys, err := Keys(tb, 50_000, 2000, 9)
	require.NoError(t, err)
	again, err := Keys(tb, 50_000, 2000, 9)
	require.NoError(t, err)
	require.True(t, slices.Equal(keys, again), "same seed, same keys")
	present := map[int64]bool{}
	for _, k := range tb.K {
		present[k] = true
	}
	absent := 0
	for _, k := range keys {
		if !present[k] {
			absent++
		}
	}
	require.InDelta(t, 100, absent, 40)
}
