package rowmap

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTranslateBatch checks TranslateBatch against the fixture's
// independent reference (per-destination counters replayed over every row)
// for sparse, dense sorted, dense unsorted and duplicated batches, and that
// it swept exactly when the documented threshold says so: at least
// SweepMin rows, at least one row in SweepDensity of the span.
func TestTranslateBatch(t *testing.T) {
	f := genFixture(t, 21, []uint64{5000, 3000, 9000}, 5, 0.2, 0, 1024)
	rd, err := Open(BytesSource(f.file))
	require.NoError(t, err)
	n := rd.NumRows()
	r := rand.New(rand.NewPCG(3, 4))
	span := func(rows []uint64) uint64 { return slices.Max(rows) - slices.Min(rows) + 1 }
	random := func(k int, lo, hi uint64) []uint64 {
		rows := make([]uint64, k)
		for i := range rows {
			rows[i] = lo + r.Uint64N(hi-lo)
		}
		return rows
	}
	sorted := func(rows []uint64) []uint64 { slices.Sort(rows); return rows }
	at := func(rows ...uint64) []uint64 { return rows }
	// edge: SweepMin rows from 0 whose span is exactly (or one past)
	// SweepMin·SweepDensity.
	edge := func(last uint64) []uint64 {
		rows := make([]uint64, SweepMin)
		for i := range rows {
			rows[i] = uint64(i) * SweepDensity
		}
		rows[len(rows)-1] = last
		return rows
	}
	cases := map[string][]uint64{
		"empty":          nil,
		"few":            random(SweepMin-1, 0, 200),
		"sparse":         random(100, 0, n),
		"sparse sorted":  sorted(random(100, 0, n)),
		"dense sorted":   sorted(random(4000, 1000, 9000)),
		"dense unsorted": random(4000, 1000, 9000),
		"all shuffled":   shuffled(r, n),
		"duplicates":     append(random(500, 16000, 17000), random(500, 16000, 17000)...),
		"last row":       append(random(SweepMin, n-300, n), n-1),
		"edge in":        edge(SweepMin*SweepDensity - 1),
		"edge out":       edge(SweepMin * SweepDensity),
		"one":            at(n - 1),
	}
	for name, rows := range cases {
		t.Run(name, func(t *testing.T) {
			var st BatchStats
			res := make([]Translation, len(rows))
			require.NoError(t, rd.TranslateBatch(rows, res, &st))
			for i, g := range rows {
				require.Equal(t, f.ref[g], res[i], "row %d", g)
			}
			want := len(rows) >= SweepMin && uint64(len(rows))*SweepDensity >= span(rows)
			if want {
				require.Equal(t, BatchStats{Swept: int64(len(rows)), Blocks: st.Blocks}, st)
			} else {
				require.Equal(t, BatchStats{Point: int64(len(rows)), Blocks: st.Blocks}, st)
			}
			blocks := map[uint64]bool{}
			for _, g := range rows {
				blocks[g/1024] = true
			}
			if !want {
				require.Equal(t, int64(len(blocks)), st.Blocks, "point lookups read each touched block once")
			}
			// The same answers with nothing counted.
			res2 := make([]Translation, len(rows))
			require.NoError(t, rd.TranslateBatch(rows, res2, nil))
			require.Equal(t, res, res2)
		})
	}
	require.Equal(t, SweepMin*SweepDensity, int(span(cases["edge in"])))
}

func shuffled(r *rand.Rand, n uint64) []uint64 {
	rows := make([]uint64, n)
	for i := range rows {
		rows[i] = uint64(i)
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows
}

// TestTranslateBatchPastEnd: a row past the map is ErrInvalidArgument on
// every path, never an answer.
func TestTranslateBatchPastEnd(t *testing.T) {
	f := genFixture(t, 22, []uint64{3000}, 3, 0.1, 0, 1024)
	rd, err := Open(BytesSource(f.file))
	require.NoError(t, err)
	n := rd.NumRows()
	dense := make([]uint64, 200)
	for i := range dense {
		dense[i] = n - 100 + uint64(i)
	}
	unsorted := slices.Clone(dense)
	slices.Reverse(unsorted)
	for name, rows := range map[string][]uint64{"point": {5, n}, "sorted sweep": dense, "unsorted sweep": unsorted} {
		res := make([]Translation, len(rows))
		require.ErrorIs(t, rd.TranslateBatch(rows, res, nil), ErrInvalidArgument, name)
	}
	require.ErrorIs(t, rd.TranslateBatch([]uint64{1}, nil, nil), ErrInvalidArgument)
}
