package table_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

var userSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

// refRow is the reference model's view of one live row.
type refRow struct {
	k     int64
	name  any // string or nil
	score any // float64 or nil
}

type model struct {
	rows   map[uint64]refRow // live rows by row id
	nextID uint64
}

func newModel() *model { return &model{rows: map[uint64]refRow{}} }

func genRows(r *rand.Rand, n int) []refRow {
	out := make([]refRow, n)
	for i := range out {
		out[i].k = r.Int64N(1000)
		if r.IntN(5) > 0 {
			out[i].name = fmt.Sprintf("n%d", r.IntN(50))
		}
		if r.IntN(4) > 0 {
			out[i].score = float64(r.IntN(100)) / 4
		}
	}
	return out
}

func rowsBatch(t *testing.T, mem memory.Allocator, rows []refRow, ids []uint64) arrow.RecordBatch {
	t.Helper()
	sc := userSchema
	if ids != nil {
		sc = arrow.NewSchema(append([]arrow.Field{{Name: "_rowid", Type: arrow.PrimitiveTypes.Uint64}}, userSchema.Fields()...), nil)
	}
	vals := make([][]any, len(rows))
	for i, r := range rows {
		v := []any{r.k, r.name, r.score}
		if ids != nil {
			v = append([]any{ids[i]}, v...)
		}
		vals[i] = v
	}
	b, err := exectest.Batch(mem, sc, vals)
	require.NoError(t, err)
	return b
}

// scanAll reads every live row with its system columns.
func scanAll(t *testing.T, tb *table.Table, mem memory.Allocator) map[uint64]refRow {
	t.Helper()
	sc, err := tb.Scan(context.Background(), table.ScanOptions{Columns: []string{"k", "name", "score", "_rowid", "_rowaddr"}, Mem: mem})
	require.NoError(t, err)
	defer sc.Release()
	got := map[uint64]refRow{}
	for sc.Next() {
		rows, err := exectest.Rows(sc.RecordBatch())
		require.NoError(t, err)
		for _, r := range rows {
			id := r[3].(uint64)
			_, dup := got[id]
			require.False(t, dup, "row id %d seen twice", id)
			addr := r[4].(uint64)
			rid, ok := tb.RowIDAt(addr)
			require.True(t, ok)
			require.Equal(t, id, rid, "_rowaddr %s does not hold _rowid %d", rowid.Address(addr), id)
			require.True(t, tb.IsLive(addr))
			got[id] = refRow{k: r[0].(int64), name: r[1], score: r[2]}
		}
	}
	require.NoError(t, sc.Err())
	return got
}

func liveIDs(m *model) []uint64 {
	ids := make([]uint64, 0, len(m.rows))
	for id := range m.rows {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// TestModel runs random appends, deletes and updates and checks every
// version against a reference map of live rows, after reopening from the
// store, and through Take at random addresses.
func TestModel(t *testing.T) {
	seeds, steps := []uint64{1, 2, 3}, 40
	if testing.Short() {
		seeds, steps = seeds[:2], 24
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			mem := exectest.Mem(t)
			ctx := context.Background()
			r := rand.New(rand.NewPCG(seed, 99))
			st := store.NewMemory()
			tb, err := table.Create(ctx, st, userSchema, table.Options{MaxRowsPerFragment: 300, BatchRows: 32})
			require.NoError(t, err)
			m := newModel()
			history := map[uint64]map[uint64]refRow{1: {}}
			for step := 0; step < steps; step++ {
				switch op := r.IntN(10); {
				case op < 4 || len(m.rows) == 0:
					rows := genRows(r, 1+r.IntN(700))
					var bs []arrow.RecordBatch
					for off := 0; off < len(rows); {
						n := min(len(rows)-off, 1+r.IntN(200))
						bs = append(bs, rowsBatch(t, mem, rows[off:off+n], nil))
						off += n
					}
					tb, err = tb.AppendBatches(ctx, bs, mem)
					for _, b := range bs {
						b.Release()
					}
					require.NoError(t, err)
					for _, row := range rows {
						m.rows[m.nextID] = row
						m.nextID++
					}
				case op < 6:
					ids := liveIDs(m)
					var del []uint64
					for _, id := range ids {
						if r.IntN(6) == 0 {
							del = append(del, id)
						}
					}
					del = append(del, m.nextID+5) // unknown ids are ignored
					var n uint64
					tb, n, err = tb.DeleteRowIDs(ctx, del)
					require.NoError(t, err)
					require.Equal(t, uint64(len(del)-1), n)
					for _, id := range del {
						delete(m.rows, id)
					}
				case op < 8:
					threshold := r.Int64N(1000)
					var n uint64
					tb, n, err = tb.DeleteWhere(ctx, []string{"k"}, func(_ context.Context, b arrow.RecordBatch) (*array.Boolean, error) {
						k := b.Column(0).(*array.Int64)
						bb := array.NewBooleanBuilder(mem)
						defer bb.Release()
						for i := 0; i < k.Len(); i++ {
							bb.Append(k.Value(i) < threshold/10)
						}
						return bb.NewBooleanArray(), nil
					}, mem)
					require.NoError(t, err)
					want := 0
					for id, row := range m.rows {
						if row.k < threshold/10 {
							delete(m.rows, id)
							want++
						}
					}
					require.Equal(t, uint64(want), n)
				default:
					ids := liveIDs(m)
					r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
					ids = ids[:1+r.IntN(min(len(ids), 150))]
					rows := genRows(r, len(ids))
					b := rowsBatch(t, mem, rows, ids)
					rdr, err := array.NewRecordReader(b.Schema(), []arrow.RecordBatch{b})
					require.NoError(t, err)
					var n uint64
					tb, n, err = tb.Update(ctx, rdr, mem)
					rdr.Release()
					b.Release()
					require.NoError(t, err)
					require.Equal(t, uint64(len(ids)), n)
					for i, id := range ids {
						m.rows[id] = rows[i]
					}
				}
				got := scanAll(t, tb, mem)
				require.Equal(t, m.rows, got, "step %d version %d", step, tb.Version())
				require.Equal(t, uint64(len(m.rows)), tb.LiveRows())
				history[tb.Version()] = maps(m.rows)
				checkTake(t, tb, m, r, mem)
			}
			// Every version reopens from the store with its own rows.
			for v, want := range history {
				old, err := table.OpenVersion(ctx, st, v, table.Options{})
				require.NoError(t, err)
				require.Equal(t, want, scanAll(t, old, mem), "version %d", v)
			}
			latest, err := table.Open(ctx, st, table.Options{})
			require.NoError(t, err)
			require.Equal(t, tb.Version(), latest.Version())
		})
	}
}

func maps(m map[uint64]refRow) map[uint64]refRow {
	c := make(map[uint64]refRow, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// checkTake takes random live rows (with duplicates, shuffled, some
// invalid) and compares with the model.
func checkTake(t *testing.T, tb *table.Table, m *model, r *rand.Rand, mem memory.Allocator) {
	t.Helper()
	ids := liveIDs(m)
	if len(ids) == 0 {
		return
	}
	var want []uint64
	for range 1 + r.IntN(100) {
		want = append(want, ids[r.IntN(len(ids))])
	}
	addrs, found := tb.Locate(want)
	valid := make([]bool, len(want))
	for i := range want {
		require.True(t, found[i], "Locate(%d)", want[i])
		valid[i] = r.IntN(8) > 0
	}
	b, err := tb.Take(context.Background(), addrs, valid, []string{"_rowid", "k", "name", "score", "_rowaddr"}, mem)
	require.NoError(t, err)
	defer b.Release()
	rows, err := exectest.Rows(b)
	require.NoError(t, err)
	require.Len(t, rows, len(want))
	for i, row := range rows {
		if !valid[i] {
			require.Equal(t, []any{nil, nil, nil, nil, nil}, row)
			continue
		}
		ref := m.rows[want[i]]
		require.Equal(t, []any{want[i], ref.k, ref.name, ref.score, addrs[i]}, row)
	}
}

func TestCreateErrors(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	_, err := table.Create(ctx, st, arrow.NewSchema([]arrow.Field{{Name: "_rowid", Type: arrow.PrimitiveTypes.Int64}}, nil), table.Options{})
	require.ErrorIs(t, err, table.ErrSchema)
	_, err = table.Create(ctx, st, arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}}, nil), table.Options{})
	require.ErrorIs(t, err, table.ErrSchema)
	_, err = table.Open(ctx, st, table.Options{})
	require.ErrorIs(t, err, table.ErrNotFound)
	_, err = table.Create(ctx, st, userSchema, table.Options{})
	require.NoError(t, err)
	_, err = table.Create(ctx, st, userSchema, table.Options{})
	require.ErrorIs(t, err, table.ErrExists)
	_, err = table.OpenVersion(ctx, st, 7, table.Options{})
	require.ErrorIs(t, err, table.ErrNotFound)
}

func TestAppendSchemaMismatch(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, err := table.Create(ctx, store.NewMemory(), userSchema, table.Options{})
	require.NoError(t, err)
	other := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}}, nil)
	b, err := exectest.Batch(mem, other, [][]any{{int32(1)}})
	require.NoError(t, err)
	defer b.Release()
	_, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	require.ErrorIs(t, err, table.ErrSchema)
	// NULL in a NOT NULL column.
	nb, err := exectest.Batch(mem, userSchema, [][]any{{nil, "a", 1.0}})
	require.NoError(t, err)
	defer nb.Release()
	_, err = tb.AppendBatches(ctx, []arrow.RecordBatch{nb}, mem)
	require.ErrorIs(t, err, table.ErrSchema)
	v, err := table.LatestVersion(ctx, tb.Store())
	require.NoError(t, err)
	require.Equal(t, uint64(1), v, "a failed append commits nothing")
}

func TestUpdateErrors(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, err := table.Create(ctx, store.NewMemory(), userSchema, table.Options{})
	require.NoError(t, err)
	b := rowsBatch(t, mem, genRows(rand.New(rand.NewPCG(1, 1)), 10), nil)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	for _, ids := range [][]uint64{{3, 3}, {42}} {
		ub := rowsBatch(t, mem, genRows(rand.New(rand.NewPCG(2, 2)), len(ids)), ids)
		rdr, err := array.NewRecordReader(ub.Schema(), []arrow.RecordBatch{ub})
		require.NoError(t, err)
		_, _, err = tb.Update(ctx, rdr, mem)
		rdr.Release()
		ub.Release()
		require.ErrorIs(t, err, table.ErrInvalidArgument, "ids %v", ids)
	}
	_, err = tb.Take(ctx, []uint64{uint64(rowid.NewAddress(9, 0))}, nil, nil, mem)
	require.ErrorIs(t, err, table.ErrInvalidArgument)
	_, err = tb.Scan(ctx, table.ScanOptions{Columns: []string{"nope"}})
	require.ErrorIs(t, err, table.ErrInvalidArgument)
	_, _, err = tb.DeleteAddrs(ctx, []uint64{uint64(rowid.NewAddress(0, 10))})
	require.ErrorIs(t, err, table.ErrInvalidArgument)
	if !errors.Is(err, table.ErrInvalidArgument) {
		t.Fatal(err)
	}
}

// TestTakeLargeShuffled: a take of more rows than the radix sort's
// threshold, shuffled with duplicates, returns every row in input order.
func TestTakeLargeShuffled(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	tb, err := table.Create(ctx, store.NewMemory(), userSchema, table.Options{MaxRowsPerFragment: 700, BatchRows: 64})
	require.NoError(t, err)
	rows := genRows(rand.New(rand.NewPCG(5, 5)), 3000)
	b := rowsBatch(t, mem, rows, nil)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(6, 6))
	ids := make([]uint64, 5000)
	for i := range ids {
		ids[i] = uint64(r.IntN(3000))
	}
	addrs, found := tb.Locate(ids)
	for _, f := range found {
		require.True(t, f)
	}
	out, err := tb.Take(ctx, addrs, nil, []string{"_rowid", "k", "name"}, mem)
	require.NoError(t, err)
	defer out.Release()
	got, err := exectest.Rows(out)
	require.NoError(t, err)
	for i, id := range ids {
		require.Equal(t, []any{id, rows[id].k, rows[id].name}, got[i], "position %d", i)
	}
}
