package table_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table/store"
)

// TestColumnRanges: a numeric column's batch ranges, read back through
// the manifest, are each batch's rows, nulls and bounds as the rows
// themselves give them (a decimal scaled down, a date in days); columns
// that are not numbers (text, booleans, timestamps) and a float column
// with an infinite value have none.
func TestColumnRanges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rows := zoneRows(r, 230)
	tb := zoneTable(t, store.NewMemory(), rows)
	num := func(v any) float64 {
		switch x := v.(type) {
		case int32:
			return float64(x)
		case decimal128.Num:
			return x.ToFloat64(2)
		case arrow.Date32:
			return float64(x)
		}
		t.Fatalf("value %T", v)
		return 0
	}
	for _, col := range []int{0, 3, 8} {
		got, integral, ok, err := tb.Manifest().ColumnRanges(col)
		require.NoError(t, err)
		require.True(t, ok, "column %d", col)
		require.Equal(t, col != 3, integral, "column %d", col)
		at, i := 0, 0
		for _, f := range tb.Fragments() {
			for _, n := range batchRows(f) {
				want := struct{ rows, nulls, lo, hi float64 }{rows: float64(n)}
				bounded := false
				for _, row := range rows[at : at+int(n)] {
					if row[col] == nil {
						want.nulls++
						continue
					}
					v := num(row[col])
					if !bounded || v < want.lo {
						want.lo = v
					}
					if !bounded || v > want.hi {
						want.hi = v
					}
					bounded = true
				}
				at += int(n)
				b := got[i]
				i++
				require.Equal(t, want.rows, b.Rows, "column %d batch %d", col, i)
				require.Equal(t, want.nulls, b.Nulls, "column %d batch %d", col, i)
				require.Equal(t, bounded, b.Bounded, "column %d batch %d", col, i)
				if bounded {
					require.InDelta(t, want.lo, b.Min, 1e-9, "column %d batch %d", col, i)
					require.InDelta(t, want.hi, b.Max, 1e-9, "column %d batch %d", col, i)
				}
			}
		}
		require.Len(t, got, i)
	}
	for _, col := range []int{2, 4, 7, 9, 99} {
		_, _, ok, err := tb.Manifest().ColumnRanges(col)
		require.NoError(t, err)
		require.False(t, ok, "column %d", col)
	}
}
