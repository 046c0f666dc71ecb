package table_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/internal/fuzzseed"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
	"github.com/stablerow/stablerow/value"
)

// zoneSchema has a column of every zone kind, char(n) in both the
// engine's trimmed form and the old blank-padded one.
var zoneSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "u", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "d", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true,
		Metadata: arrow.NewMetadata([]string{value.SQLTypeKey}, []string{"char(6)" + table.CharTrimmed})},
	{Name: "p", Type: arrow.BinaryTypes.String, Nullable: true,
		Metadata: arrow.NewMetadata([]string{value.SQLTypeKey}, []string{"char(6)"})},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "t", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
}, nil)

// zoneRows are n random rows of zoneSchema; nullEvery > 0 makes some
// batches' columns all NULL, and the values cover NaN, ±0, ±Inf, long
// strings (past the 32-byte bound) and strings of 0xFF bytes.
func zoneRows(r *rand.Rand, n int) [][]any {
	floats := []float64{math.NaN(), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1.5, -2.25}
	strs := []string{"", "a", "ab", "b", strings.Repeat("x", 40), strings.Repeat("x", 40) + "y", strings.Repeat("\xff", 35),
		strings.Repeat("a", 31) + "\xff\xff\xff", "zz"}
	rows := make([][]any, n)
	for i := range rows {
		row := make([]any, zoneSchema.NumFields())
		if r.IntN(4) > 0 {
			row[0] = int32(r.IntN(200) - 100)
		}
		if r.IntN(4) > 0 {
			row[1] = uint16(r.IntN(65536))
		}
		if r.IntN(4) > 0 {
			if r.IntN(3) == 0 {
				row[2] = floats[r.IntN(len(floats))]
			} else {
				row[2] = r.NormFloat64() * 100
			}
		}
		if r.IntN(4) > 0 {
			row[3] = decimal128.FromI64(int64(r.IntN(100000) - 50000))
		}
		if r.IntN(4) > 0 {
			row[4] = strs[r.IntN(len(strs))]
		}
		if r.IntN(4) > 0 {
			row[5] = strings.TrimRight(strs[r.IntN(4)], " ")
		}
		if r.IntN(4) > 0 {
			row[6] = value.PadBlanks(strs[r.IntN(4)], 6)
		}
		if r.IntN(4) > 0 {
			row[7] = r.IntN(2) == 0
		}
		if r.IntN(4) > 0 {
			row[8] = arrow.Date32(r.IntN(1000) + 18000)
		}
		if r.IntN(4) > 0 {
			row[9] = arrow.Timestamp(r.Int64N(1 << 50))
		}
		rows[i] = row
	}
	return rows
}

func zoneBatch(t testing.TB, mem memory.Allocator, rows [][]any) arrow.RecordBatch {
	bld := array.NewRecordBuilder(mem, zoneSchema)
	defer bld.Release()
	for _, row := range rows {
		for c, v := range row {
			fb := bld.Field(c)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch x := v.(type) {
			case int32:
				fb.(*array.Int32Builder).Append(x)
			case uint16:
				fb.(*array.Uint16Builder).Append(x)
			case float64:
				fb.(*array.Float64Builder).Append(x)
			case decimal128.Num:
				fb.(*array.Decimal128Builder).Append(x)
			case string:
				fb.(*array.StringBuilder).Append(x)
			case bool:
				fb.(*array.BooleanBuilder).Append(x)
			case arrow.Date32:
				fb.(*array.Date32Builder).Append(x)
			case arrow.Timestamp:
				fb.(*array.TimestampBuilder).Append(x)
			default:
				t.Fatalf("value %T", v)
			}
		}
	}
	return bld.NewRecordBatch()
}

// zoneTable writes rows into a fresh table (batches of 16 rows,
// fragments of 50).
func zoneTable(t testing.TB, st store.Store, rows [][]any) *table.Table {
	ctx := context.Background()
	mem := exectest.Mem(t)
	tb, err := table.Create(ctx, st, zoneSchema, table.Options{MaxRowsPerFragment: 50, BatchRows: 16})
	require.NoError(t, err)
	// All-null runs: rows 16..31 have no values at all, so batch 1
	// of fragment 0 has no bounds.
	for i := 16; i < 32 && i < len(rows); i++ {
		rows[i] = make([]any, zoneSchema.NumFields())
	}
	b := zoneBatch(t, mem, rows)
	defer b.Release()
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	require.NoError(t, err)
	return tb
}

func zoneTypes() []arrow.DataType {
	var out []arrow.DataType
	for _, f := range zoneSchema.Fields() {
		out = append(out, f.Type)
	}
	return out
}

func batchRows(f *table.Fragment) []uint64 {
	var out []uint64
	for at := uint64(0); at < f.PhysicalRows; at += f.BatchRows {
		out = append(out, min(f.BatchRows, f.PhysicalRows-at))
	}
	return out
}

// zoneValue is row value v as the zone map holds it.
func zoneValue(v any, trim bool) any {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case uint16:
		return uint64(x)
	case float64:
		if x == 0 {
			return 0.0
		}
		return x
	case decimal128.Num:
		return x
	case string:
		if trim {
			return value.TrimBlanks(x)
		}
		return x
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case arrow.Date32:
		return int64(x)
	case arrow.Timestamp:
		return int64(x)
	}
	panic(v)
}

// zoneSame: a and b are bounds of one type that compare equal (NaN
// equals NaN, as in PostgreSQL).
func zoneSame(a, b any) bool {
	return reflect.TypeOf(a) == reflect.TypeOf(b) && !zoneLess(a, b) && !zoneLess(b, a)
}

func zoneLess(a, b any) bool {
	switch x := a.(type) {
	case int64:
		return x < b.(int64)
	case uint64:
		return x < b.(uint64)
	case float64:
		return value.CompareFloat(x, b.(float64)) < 0
	case decimal128.Num:
		return x.Less(b.(decimal128.Num))
	case string:
		return x < b.(string)
	}
	panic(a)
}

// TestZoneMapsWritten: every batch of every data file an append writes
// has its zone map in the manifest, and each zone is what the rows say:
// the null count, the exact min and max (floats in PostgreSQL's order,
// NaN greatest and -0 as 0; char(n) without trailing blanks, the
// blank-padded kind too), a long string's min cut to 32 bytes and its
// max a bound above every value, or none when none fits in 32 bytes.
func TestZoneMapsWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rows := zoneRows(r, 230)
	tb := zoneTable(t, store.NewMemory(), rows)
	types := zoneTypes()
	seenAllNull, seenNoMax, seenCut := false, false, false
	at := 0
	for _, f := range tb.Fragments() {
		require.NotNil(t, f.File.Zones, "fragment %d", f.ID)
		zm, err := table.DecodeZoneMap(f.File.Zones, types, batchRows(f))
		require.NoError(t, err)
		for bi, n := range batchRows(f) {
			batch := rows[at : at+int(n)]
			at += int(n)
			for c := range types {
				trim := c == 5 || c == 6
				var nulls uint64
				var lo, hi any
				for _, row := range batch {
					if row[c] == nil {
						nulls++
						continue
					}
					v := zoneValue(row[c], trim)
					if lo == nil || zoneLess(v, lo) {
						lo = v
					}
					if hi == nil || zoneLess(hi, v) {
						hi = v
					}
				}
				z := zm.Batches[bi][c]
				require.Equal(t, nulls, z.Nulls, "fragment %d batch %d column %d", f.ID, bi, c)
				if lo == nil {
					seenAllNull = true
					require.Nil(t, z.Min)
					require.Nil(t, z.Max)
					continue
				}
				s, isStr := lo.(string)
				if !isStr {
					require.True(t, zoneSame(lo, z.Min), "fragment %d batch %d column %d: min %v, want %v", f.ID, bi, c, z.Min, lo)
					require.True(t, zoneSame(hi, z.Max), "fragment %d batch %d column %d: max %v, want %v", f.ID, bi, c, z.Max, hi)
					continue
				}
				require.Equal(t, s[:min(len(s), 32)], z.Min)
				hs := hi.(string)
				switch {
				case len(hs) <= 32:
					require.Equal(t, hs, z.Max)
				case z.Max == nil:
					seenNoMax = true
					require.Equal(t, strings.Repeat("\xff", 32), hs[:32])
				default:
					seenCut = true
					require.LessOrEqual(t, len(z.Max.(string)), 32)
					require.Greater(t, z.Max.(string), hs)
				}
			}
		}
	}
	require.Equal(t, len(rows), at)
	require.True(t, seenAllNull && seenNoMax && seenCut, "the data covers all-null batches (%v), no max (%v) and cut maxes (%v)", seenAllNull, seenNoMax, seenCut)
}

// TestFormat3TableReads: testdata/format3 is a table written before zone
// maps (manifest format version 3) by the code of commit a4a363f, the
// same recipe as testdata/format1: format1Rows(100), MaxRowsPerFragment
// 40, BatchRows 16, then offsets 3 and 17 of fragment 0 and 5 of fragment
// 1 deleted. It still reads, its files have no zone maps, and an append
// writes its new file with one (the manifest then in format 5).
func TestFormat3TableReads(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/format3")))
	st, err := store.NewLocal(dir)
	require.NoError(t, err)
	raw, err := st.Get(ctx, "_versions/00000000000000000003.manifest")
	require.NoError(t, err)
	require.Equal(t, uint16(3), binary.LittleEndian.Uint16(raw[4:]))
	tb, err := table.Open(ctx, st, format1Opts)
	require.NoError(t, err)
	for _, f := range tb.Fragments() {
		require.Equal(t, table.FormatColumns, f.File.Format)
		require.Nil(t, f.File.Zones)
	}
	got, err := format1Scan(ctx, tb, format1Cols, mem)
	require.NoError(t, err)
	require.Equal(t, format1Want(t, 100), got)
	b := format1Rows(mem, 100, 10)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	fs := tb.Fragments()
	require.NotNil(t, fs[len(fs)-1].File.Zones)
	raw, err = st.Get(ctx, "_versions/00000000000000000004.manifest")
	require.NoError(t, err)
	require.Equal(t, uint16(5), binary.LittleEndian.Uint16(raw[4:]))
}

// zoneSeeds are the zone map blobs of a fixture table's files.
func zoneSeeds(t testing.TB) (blobs [][]byte, rows [][]uint64) {
	tb := zoneTable(t, store.NewMemory(), zoneRows(rand.New(rand.NewPCG(3, 4)), 120))
	for _, f := range tb.Fragments() {
		blobs = append(blobs, f.File.Zones)
		rows = append(rows, batchRows(f))
	}
	return blobs, rows
}

// TestZoneMapCorrupt: every single-byte change of a zone map blob (each
// byte's bit 0 and bit 7 flipped, and every truncation) is ErrCorrupt.
func TestZoneMapCorrupt(t *testing.T) {
	blobs, rows := zoneSeeds(t)
	b, n := blobs[0], rows[0]
	_, err := table.DecodeZoneMap(b, zoneTypes(), n)
	require.NoError(t, err)
	for i := range b {
		for _, bit := range []byte{1, 0x80} {
			c := append([]byte(nil), b...)
			c[i] ^= bit
			_, err := table.DecodeZoneMap(c, zoneTypes(), n)
			require.ErrorIs(t, err, table.ErrCorrupt, "byte %d bit %#x", i, bit)
		}
	}
	for i := range len(b) {
		_, err := table.DecodeZoneMap(b[:i], zoneTypes(), n)
		require.ErrorIs(t, err, table.ErrCorrupt, "cut at %d", i)
	}
	_, err = table.DecodeZoneMap(b, zoneTypes(), n[1:])
	require.ErrorIs(t, err, table.ErrCorrupt, "a batch count the file does not have")
	_, err = table.DecodeZoneMap(b, zoneTypes()[1:], n)
	require.ErrorIs(t, err, table.ErrCorrupt, "a column count the file does not have")
}

// withCRC is b with its trailing CRC recomputed, so the fuzzer reaches
// the body's checks.
func withCRC(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(c[len(c)-4:], crc32.Checksum(c[:len(c)-4], crc32.MakeTable(crc32.Castagnoli)))
	return c
}

func FuzzDecodeZoneMap(f *testing.F) {
	blobs, rows := zoneSeeds(f)
	for _, b := range blobs {
		f.Add(b)
	}
	types := zoneTypes()
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, in := range [][]byte{b, withCRC(b)} {
			for _, n := range rows {
				zm, err := table.DecodeZoneMap(in, types, n)
				// A scan decodes only its predicates' columns, and opening
				// a version only checks the framing: each accepts whatever
				// the whole decode accepts, and keeps the same zones.
				want := make([]bool, len(types))
				want[len(in)%len(types)] = true
				part, perr := table.DecodeZoneColumns(in, types, n, want)
				_, cerr := table.DecodeZoneColumns(in, types, n, make([]bool, len(types)))
				if err != nil {
					require.ErrorIs(t, err, table.ErrCorrupt)
					if perr != nil {
						require.ErrorIs(t, perr, table.ErrCorrupt)
					}
					if cerr != nil {
						require.ErrorIs(t, cerr, table.ErrCorrupt)
					}
					continue
				}
				require.NoError(t, perr)
				require.NoError(t, cerr)
				for i := range zm.Batches {
					c := len(in) % len(types)
					// Printed, so that a NaN bound equals itself.
					require.Equal(t, fmt.Sprintf("%#v", zm.Batches[i][c]), fmt.Sprintf("%#v", part.Batches[i][c]))
				}
				require.Len(t, zm.Batches, len(n))
				for i, cols := range zm.Batches {
					require.Len(t, cols, len(types))
					for _, z := range cols {
						require.LessOrEqual(t, z.Nulls, n[i])
						if z.Min != nil && z.Max != nil {
							require.False(t, zoneLess(z.Max, z.Min), "min above max")
						}
					}
				}
			}
		}
	})
}

func TestZoneMapCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	blobs, _ := zoneSeeds(t)
	fuzzseed.Write(t, "FuzzDecodeZoneMap", blobs)
}

// checkZones: every fragment of tb has a zone map, and each batch's zone
// is what its stored rows (deleted ones included: the map describes the
// file) say, by the rules TestZoneMapsWritten checks.
func checkZones(t *testing.T, tb *table.Table) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	types := zoneTypes()
	names := []string{}
	for _, f := range zoneSchema.Fields() {
		names = append(names, f.Name)
	}
	for _, f := range tb.Fragments() {
		require.NotNil(t, f.File.Zones, "fragment %d", f.ID)
		zm, err := table.DecodeZoneMap(f.File.Zones, types, batchRows(f))
		require.NoError(t, err)
		sc, err := tb.Scan(ctx, table.ScanOptions{Columns: names, Fragments: []uint32{f.ID}, WithDeleted: true, Mem: mem})
		require.NoError(t, err)
		bi := 0
		for sc.Next() {
			b := sc.RecordBatch()
			for c := range types {
				var nulls uint64
				var lo, hi any
				for i := 0; i < int(b.NumRows()); i++ {
					v := cellValue(b.Column(c), i, c == 5 || c == 6)
					if v == nil {
						nulls++
						continue
					}
					if f, ok := v.(float64); ok && f == 0 {
						v = 0.0
					}
					if lo == nil || zoneLess(v, lo) {
						lo = v
					}
					if hi == nil || zoneLess(hi, v) {
						hi = v
					}
				}
				z := zm.Batches[bi][c]
				require.Equal(t, nulls, z.Nulls, "fragment %d batch %d column %d", f.ID, bi, c)
				if s, ok := lo.(string); ok {
					require.Equal(t, s[:min(len(s), 32)], z.Min)
					if hs := hi.(string); len(hs) <= 32 {
						require.Equal(t, hs, z.Max)
					} else if z.Max != nil {
						require.Greater(t, z.Max.(string), hs)
					}
					continue
				}
				require.True(t, lo == nil && z.Min == nil || zoneSame(lo, z.Min), "fragment %d batch %d column %d: min %v, want %v", f.ID, bi, c, z.Min, lo)
				require.True(t, hi == nil && z.Max == nil || zoneSame(hi, z.Max), "fragment %d batch %d column %d: max %v, want %v", f.ID, bi, c, z.Max, hi)
			}
			bi++
		}
		require.NoError(t, sc.Err())
		sc.Release()
		require.Equal(t, len(zm.Batches), bi)
	}
}

// TestZoneMapsEveryWritePath: the files compaction, recluster and update
// write carry zone maps that describe them, as appends' do.
func TestZoneMapsEveryWritePath(t *testing.T) {
	ctx := context.Background()
	mem := exectest.Mem(t)
	rows := zoneRows(rand.New(rand.NewPCG(5, 6)), 180)
	tb := zoneTable(t, store.NewMemory(), rows)
	checkZones(t, tb)
	tb, _, err := tb.DeleteRowIDs(ctx, []uint64{1, 2, 3, 60, 61, 170})
	require.NoError(t, err)
	tb, err = tb.Compact(ctx, table.CompactOptions{TargetRows: 200, MinDeletedFraction: 0.01, Mem: mem})
	require.NoError(t, err)
	checkZones(t, tb)
	tb, err = tb.Recluster(ctx, "i", table.ReclusterOptions{Destinations: 2, Mem: mem})
	require.NoError(t, err)
	checkZones(t, tb)
	// Update rows 10..19 to new values.
	upd := zoneBatch(t, mem, zoneRows(rand.New(rand.NewPCG(7, 8)), 10))
	ids := array.NewUint64Builder(mem)
	for id := uint64(10); id < 20; id++ {
		ids.Append(id)
	}
	idArr := ids.NewArray()
	ids.Release()
	fields := append([]arrow.Field{{Name: table.RowID, Type: arrow.PrimitiveTypes.Uint64}}, zoneSchema.Fields()...)
	b := array.NewRecordBatch(arrow.NewSchema(fields, nil), append([]arrow.Array{idArr}, upd.Columns()...), 10)
	tb, n, err := tb.UpdateBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	idArr.Release()
	upd.Release()
	require.NoError(t, err)
	require.EqualValues(t, 10, n)
	checkZones(t, tb)
}
