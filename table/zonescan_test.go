package table_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
	"github.com/stablerow/stablerow/value"
)

// cellValue is row i of a as a zone predicate compares it (nil for NULL).
func cellValue(a arrow.Array, i int, trim bool) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.Int32:
		return int64(x.Value(i))
	case *array.Uint16:
		return uint64(x.Value(i))
	case *array.Float64:
		return x.Value(i)
	case *array.Decimal128:
		return x.Value(i)
	case *array.String:
		if trim {
			return value.TrimBlanks(x.Value(i))
		}
		return x.Value(i)
	case *array.Boolean:
		if x.Value(i) {
			return int64(1)
		}
		return int64(0)
	case *array.Date32:
		return int64(x.Value(i))
	case *array.Timestamp:
		return int64(x.Value(i))
	}
	panic(a.DataType().String())
}

func zoneCmp(a, b any) int {
	switch {
	case zoneLess(a, b):
		return -1
	case zoneLess(b, a):
		return 1
	}
	return 0
}

// holds evaluates p on v as SQL does: a comparison with NULL is not true.
func holds(p table.ZonePred, v any) bool {
	switch p.Op {
	case table.ZoneIsNull:
		return v == nil
	case table.ZoneIsNotNull:
		return v != nil
	}
	if v == nil {
		return false
	}
	switch p.Op {
	case table.ZoneEq:
		return zoneCmp(v, p.Values[0]) == 0
	case table.ZoneLt:
		return zoneCmp(v, p.Values[0]) < 0
	case table.ZoneLe:
		return zoneCmp(v, p.Values[0]) <= 0
	case table.ZoneGt:
		return zoneCmp(v, p.Values[0]) > 0
	case table.ZoneGe:
		return zoneCmp(v, p.Values[0]) >= 0
	case table.ZoneIn:
		for _, c := range p.Values {
			if zoneCmp(v, c) == 0 {
				return true
			}
		}
	}
	return false
}

// filteredScan scans all columns (and _rowid) with the options, keeps the
// rows every pred holds for, and renders them.
func filteredScan(t *testing.T, tb *table.Table, opt table.ScanOptions, preds []table.ZonePred) ([]string, table.ScanStats) {
	ctx := context.Background()
	names := []string{}
	for _, f := range zoneSchema.Fields() {
		names = append(names, f.Name)
	}
	opt.Columns = append(names, table.RowID)
	opt.Mem = exectest.Mem(t)
	sc, err := tb.Scan(ctx, opt)
	require.NoError(t, err)
	defer sc.Release()
	var out []string
	for sc.Next() {
		b := sc.RecordBatch()
		for i := 0; i < int(b.NumRows()); i++ {
			ok := true
			for _, p := range preds {
				c := zoneSchema.FieldIndices(p.Column)[0]
				if !holds(p, cellValue(b.Column(c), i, c == 5 || c == 6)) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, b.Column(len(names)).ValueStr(i))
			}
		}
	}
	require.NoError(t, sc.Err())
	return out, sc.Stats()
}

// randomConst is a constant for column c: often a value of the data
// (bounds then meet exactly), else one around or outside them.
func randomConst(r *rand.Rand, rows [][]any, c int) any {
	if r.IntN(3) > 0 {
		row := rows[r.IntN(len(rows))]
		if row[c] != nil {
			return zoneValue(row[c], c == 5 || c == 6)
		}
	}
	switch c {
	case 0:
		return int64(r.IntN(260) - 130)
	case 1:
		return uint64(r.IntN(70000))
	case 2:
		fs := []float64{math.NaN(), 0, math.Inf(1), math.Inf(-1), 1.5, -300}
		return fs[r.IntN(len(fs))]
	case 3:
		return decimal128.FromI64(int64(r.IntN(120000) - 60000))
	case 4, 5, 6:
		ss := []string{"", " ", "a", "a ", "ab", "aa", "b", "zzz", strings.Repeat("x", 32), strings.Repeat("x", 33),
			strings.Repeat("x", 40) + "z", strings.Repeat("\xff", 40), strings.Repeat("a", 31) + "\xff\xff\xff\xff"}
		return ss[r.IntN(len(ss))]
	case 7:
		return int64(r.IntN(2))
	case 8:
		return int64(r.IntN(1100) + 17950)
	case 9:
		return r.Int64N(1 << 50)
	}
	panic(c)
}

func randomPred(r *rand.Rand, rows [][]any, c int) table.ZonePred {
	p := table.ZonePred{Column: zoneSchema.Field(c).Name, Op: table.ZoneOp(r.IntN(8) + 1)}
	switch p.Op {
	case table.ZoneIsNull, table.ZoneIsNotNull:
	case table.ZoneIn:
		for range r.IntN(4) + 1 {
			p.Values = append(p.Values, randomConst(r, rows, c))
		}
	default:
		p.Values = []any{randomConst(r, rows, c)}
	}
	return p
}

// sortRowsBy orders rows by column c (NULLs last), so batches hold
// narrow ranges of it, as a clustered table's do.
func sortRowsBy(rows [][]any, c int) {
	slices.SortStableFunc(rows, func(a, b []any) int {
		switch {
		case a[c] == nil && b[c] == nil:
			return 0
		case a[c] == nil:
			return 1
		case b[c] == nil:
			return -1
		}
		return zoneCmp(zoneValue(a[c], c == 5 || c == 6), zoneValue(b[c], c == 5 || c == 6))
	})
}

// TestZoneSkipNeverWrong is the property: over random data (random and
// sorted by a column, with deleted rows), a scan given random
// conjunctions of zone predicates returns, after the filter, exactly the
// rows a full scan does after it; and the zone maps do skip.
func TestZoneSkipNeverWrong(t *testing.T) {
	ctx := context.Background()
	var skipped int64
	iters := 400
	if testing.Short() {
		iters = 150
	}
	for seed := range 6 {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		rows := zoneRows(r, 300+r.IntN(200))
		if seed%2 == 1 {
			sortRowsBy(rows, r.IntN(zoneSchema.NumFields()))
		}
		tb := zoneTable(t, store.NewMemory(), rows)
		var err error
		tb, _, err = tb.DeleteRowIDs(ctx, []uint64{0, 7, 40, 41, 100, 250})
		require.NoError(t, err)
		for it := range iters {
			var preds []table.ZonePred
			for range r.IntN(3) + 1 {
				preds = append(preds, randomPred(r, rows, r.IntN(zoneSchema.NumFields())))
			}
			want, _ := filteredScan(t, tb, table.ScanOptions{}, preds)
			got, st := filteredScan(t, tb, table.ScanOptions{Where: preds}, preds)
			require.Equal(t, want, got, "seed %d iteration %d: %v", seed, it, preds)
			skipped += st.BatchesSkipped
			// Partitioned ranges skip the same way.
			var ranges []table.FragmentRange
			for _, f := range tb.Fragments() {
				ranges = append(ranges, table.FragmentRange{Fragment: f.ID, Start: 0, End: f.PhysicalRows})
			}
			got, _ = filteredScan(t, tb, table.ScanOptions{Ranges: ranges, Where: preds}, preds)
			require.Equal(t, want, got, "seed %d iteration %d (ranges): %v", seed, it, preds)
		}
	}
	require.Positive(t, skipped, "some batches skipped")
}

// TestZoneSkipCases: the edges by name: NULLs, NaN as the greatest
// float, a string max past 32 bytes of 0xFF, char(n) against its trimmed
// values.
func TestZoneSkipCases(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	tb, err := table.Create(ctx, store.NewMemory(), zoneSchema, table.Options{BatchRows: 4})
	require.NoError(t, err)
	// Batch 0: floats 1..4, strings "a".."d"; batch 1: NaN and NULLs,
	// long 0xFF strings; batch 2: all NULL.
	var rows [][]any
	for i := range 4 {
		rows = append(rows, []any{int32(i), nil, float64(i + 1), nil, string(rune('a' + i)), "ab", "ab    ", nil, nil, nil})
	}
	for i := range 4 {
		row := make([]any, zoneSchema.NumFields())
		if i%2 == 0 {
			row[2] = math.NaN()
			row[4] = strings.Repeat("\xff", 40) + fmt.Sprint(i)
		}
		rows = append(rows, row)
	}
	for range 4 {
		rows = append(rows, make([]any, zoneSchema.NumFields()))
	}
	b := zoneBatch(t, mem, rows)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	for _, c := range []struct {
		pred table.ZonePred
		read int64
	}{
		{table.ZonePred{Column: "f", Op: table.ZoneGt, Values: []any{1e300}}, 1},      // only NaN's batch
		{table.ZonePred{Column: "f", Op: table.ZoneEq, Values: []any{math.NaN()}}, 1}, // NaN = NaN
		{table.ZonePred{Column: "f", Op: table.ZoneLt, Values: []any{math.NaN()}}, 1}, // 1..4 < NaN; NaN is not
		{table.ZonePred{Column: "f", Op: table.ZoneIsNull}, 2},
		{table.ZonePred{Column: "i", Op: table.ZoneIsNotNull}, 1},
		{table.ZonePred{Column: "i", Op: table.ZoneGe, Values: []any{int64(0)}}, 1},
		{table.ZonePred{Column: "s", Op: table.ZoneGt, Values: []any{strings.Repeat("\xff", 50)}}, 1}, // no max bound
		{table.ZonePred{Column: "s", Op: table.ZoneIn, Values: []any{"b", "zz"}}, 1},                  // batch 1's min is 32 bytes of 0xFF
		{table.ZonePred{Column: "p", Op: table.ZoneEq, Values: []any{"ab"}}, 1},                       // padded char(6) is compared trimmed
		{table.ZonePred{Column: "p", Op: table.ZoneEq, Values: []any{"ab "}}, 0},
		{table.ZonePred{Column: "c", Op: table.ZoneLt, Values: []any{"ab"}}, 0},
	} {
		want, _ := filteredScan(t, tb, table.ScanOptions{}, []table.ZonePred{c.pred})
		got, st := filteredScan(t, tb, table.ScanOptions{Where: []table.ZonePred{c.pred}}, []table.ZonePred{c.pred})
		require.Equal(t, want, got, "%v", c.pred)
		require.Equal(t, c.read, st.BatchesRead, "%v", c.pred)
		require.Equal(t, 3-c.read, st.BatchesSkipped, "%v", c.pred)
	}
	// A value of another type than the column's is the caller's bug.
	_, err = tb.Scan(ctx, table.ScanOptions{Where: []table.ZonePred{{Column: "i", Op: table.ZoneEq, Values: []any{1.5}}}})
	require.ErrorIs(t, err, table.ErrInvalidArgument)
	_, err = tb.Scan(ctx, table.ScanOptions{Where: []table.ZonePred{{Column: "nope", Op: table.ZoneIsNull}}})
	require.ErrorIs(t, err, table.ErrInvalidArgument)
}
