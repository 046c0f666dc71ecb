package table_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// takeSchema has a column for each of the encodings a chunk can take:
// packed and run-length integers, a dictionary, LZ4 and plain strings,
// decimals, dates, floats and booleans, each with nulls.
var takeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "run", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "flag", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "comment", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "short", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "price", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

// takeSource is n rows of takeSchema.
func takeSource(rng *rand.Rand, n int) arrow.RecordBatch {
	bld := array.NewRecordBuilder(memory.DefaultAllocator, takeSchema)
	defer bld.Release()
	words := []string{"carefully", "final", "deposits", "ironic", "packages", "sleep", "quickly", "express"}
	for i := range n {
		null := func(c int) bool {
			if (i+c)%13 == 0 {
				bld.Field(c).AppendNull()
				return true
			}
			return false
		}
		if !null(0) {
			bld.Field(0).(*array.Int64Builder).Append(1_000_000 + rng.Int64N(5000))
		}
		if !null(1) {
			bld.Field(1).(*array.Int32Builder).Append(int32(i / 100))
		}
		if !null(2) {
			bld.Field(2).(*array.StringBuilder).Append([]string{"A", "N", "R"}[rng.IntN(3)])
		}
		if !null(3) {
			var sb strings.Builder
			for range 3 + rng.IntN(6) {
				sb.WriteString(words[rng.IntN(len(words))] + " ")
			}
			bld.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("%s%d", sb.String(), rng.IntN(1000)))
		}
		if !null(4) {
			bld.Field(4).(*array.BinaryBuilder).Append([]byte(fmt.Sprint(rng.Uint64()))[:rng.IntN(8)])
		}
		if !null(5) {
			bld.Field(5).(*array.Decimal128Builder).Append(decimal128.FromI64(rng.Int64N(10_000_000) - 100))
		}
		if !null(6) {
			bld.Field(6).(*array.Date32Builder).Append(arrow.Date32(8000 + rng.IntN(2500)))
		}
		if !null(7) {
			bld.Field(7).(*array.Float64Builder).Append(rng.NormFloat64())
		}
		if !null(8) {
			bld.Field(8).(*array.BooleanBuilder).Append(rng.IntN(2) == 0)
		}
	}
	return bld.NewRecordBatch()
}

// TestTakeEncoded takes random rows (repeats, every batch's first and last
// row, invalid positions) of a table in FormatEncoded files, which decodes
// only the rows taken of each chunk, and checks every value against the
// rows appended.
func TestTakeEncoded(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	rng := rand.New(rand.NewPCG(21, 22))
	const n, batchRows, fragRows = 3000, 256, 2000
	src := takeSource(rng, n)
	defer src.Release()
	tb, err := table.Create(ctx, store.NewMemory(), takeSchema, table.Options{EncodedDataFiles: true, BatchRows: batchRows, MaxRowsPerFragment: fragRows})
	require.NoError(t, err)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{src}, mem)
	require.NoError(t, err)
	require.Len(t, tb.Fragments(), 2)
	for _, f := range tb.Fragments() {
		require.Equal(t, table.FormatEncoded, f.File.Format)
	}
	addrOf := func(row int) uint64 {
		f := tb.Fragments()[row/fragRows]
		return uint64(rowid.NewAddress(f.ID, uint32(row%fragRows)))
	}
	var rows []int
	for i := 0; i < n; i += batchRows {
		rows = append(rows, i, min(i+batchRows, n)-1)
	}
	for range 500 {
		rows = append(rows, rng.IntN(n))
	}
	rows = append(rows, rows[3], rows[3])
	addrs := make([]uint64, len(rows))
	valid := make([]bool, len(rows))
	for j, r := range rows {
		addrs[j], valid[j] = addrOf(r), j%17 != 5
	}
	cols := make([]string, 0, takeSchema.NumFields()+1)
	for _, f := range takeSchema.Fields() {
		cols = append(cols, f.Name)
	}
	cols = append(cols, table.RowAddr)
	got, err := tb.Take(ctx, addrs, valid, cols, mem)
	require.NoError(t, err)
	defer got.Release()
	require.EqualValues(t, len(rows), got.NumRows())
	for c := range takeSchema.NumFields() {
		want, col := src.Column(c), got.Column(c)
		for j, r := range rows {
			what := fmt.Sprintf("column %s, take %d (row %d)", cols[c], j, r)
			if !valid[j] {
				require.True(t, col.IsNull(j), what)
				continue
			}
			require.Equal(t, want.IsNull(r), col.IsNull(j), what)
			if !want.IsNull(r) {
				require.Equal(t, want.ValueStr(r), col.ValueStr(j), what)
			}
		}
	}
	addrCol := got.Column(takeSchema.NumFields()).(*array.Uint64)
	for j := range rows {
		if valid[j] {
			require.Equal(t, addrs[j], addrCol.Value(j))
		}
	}
}
