package fragreuse_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/fragreuse"
)

var schema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// row is the reference model's value of a row.
type row struct {
	k int64
	s any
}

// fixture is a table plus a reference model of its live rows by row id.
type fixture struct {
	t    *testing.T
	ctx  context.Context
	mem  memory.Allocator
	r    *rand.Rand
	tb   *table.Table
	rows map[uint64]row
	// seen counts the outcomes checkTranslate met (moved, deleted after
	// the move, deleted before), so a run shows it exercised all three.
	seen [3]int
}

func newFixture(t *testing.T, seed uint64, opts table.Options) *fixture {
	f := &fixture{t: t, ctx: context.Background(), mem: exectest.Mem(t), r: rand.New(rand.NewPCG(seed, 11)), rows: map[uint64]row{}}
	var err error
	f.tb, err = table.Create(f.ctx, newStore(), schema, opts)
	require.NoError(t, err)
	return f
}

func (f *fixture) appendRows(n int) {
	vals := make([][]any, n)
	next := f.tb.Manifest().NextRowID
	for i := range vals {
		k := f.r.Int64N(50)
		var s any
		if f.r.IntN(4) > 0 {
			s = fmt.Sprintf("s%03d", f.r.IntN(200))
		}
		vals[i] = []any{k, s}
		f.rows[next+uint64(i)] = row{k, s}
	}
	b, err := exectest.Batch(f.mem, schema, vals)
	require.NoError(f.t, err)
	defer b.Release()
	f.tb, err = f.tb.AppendBatches(f.ctx, []arrow.RecordBatch{b}, f.mem)
	require.NoError(f.t, err)
}

// deleteSome deletes about frac of the live rows.
func (f *fixture) deleteSome(frac float64) {
	var ids []uint64
	for id := range f.rows {
		if f.r.Float64() < frac {
			ids = append(ids, id)
		}
	}
	var err error
	f.tb, _, err = f.tb.DeleteRowIDs(f.ctx, ids)
	require.NoError(f.t, err)
	for _, id := range ids {
		delete(f.rows, id)
	}
}

// snapshot is every physical row address of one version and its row id.
type snapshot struct {
	version uint64
	addrs   []uint64
	ids     []uint64
	live    []bool
}

func (f *fixture) snapshot() snapshot {
	sc, err := f.tb.Scan(f.ctx, table.ScanOptions{Columns: []string{table.RowID, table.RowAddr}, WithDeleted: true, Mem: f.mem})
	require.NoError(f.t, err)
	defer sc.Release()
	s := snapshot{version: f.tb.Version()}
	for sc.Next() {
		rows, err := exectest.Rows(sc.RecordBatch())
		require.NoError(f.t, err)
		for _, r := range rows {
			s.ids = append(s.ids, r[0].(uint64))
			s.addrs = append(s.addrs, r[1].(uint64))
			s.live = append(s.live, f.tb.IsLive(r[1].(uint64)))
		}
	}
	require.NoError(f.t, sc.Err())
	return s
}

// checkContent compares the table's live rows with the model.
func (f *fixture) checkContent() {
	sc, err := f.tb.Scan(f.ctx, table.ScanOptions{Columns: []string{"k", "s", table.RowID}, Mem: f.mem})
	require.NoError(f.t, err)
	defer sc.Release()
	got := map[uint64]row{}
	for sc.Next() {
		rows, err := exectest.Rows(sc.RecordBatch())
		require.NoError(f.t, err)
		for _, r := range rows {
			id := r[2].(uint64)
			_, dup := got[id]
			require.False(f.t, dup, "row id %d twice", id)
			got[id] = row{r[0].(int64), r[1]}
		}
	}
	require.NoError(f.t, sc.Err())
	require.Equal(f.t, f.rows, got)
}

// checkTranslate translates every address of s through the history since
// s's version and checks it against where the table holds each row id now.
func (f *fixture) checkTranslate(s snapshot) {
	ts, err := f.tb.History()
	require.NoError(f.t, err)
	h, err := fragreuseOpen(f.ctx, f.tb, ts, s.version)
	require.NoError(f.t, err)
	defer h.Close()
	f.checkWith(h, s)
}

func (f *fixture) checkWith(h *fragreuse.History, s snapshot) {
	out := make([]uint64, len(s.addrs))
	live := make([]bool, len(s.addrs))
	// Half the time translate a random subset in random order (point
	// lookups), else everything in address order (sweeps).
	idx := make([]int, len(s.addrs))
	for i := range idx {
		idx[i] = i
	}
	if f.r.IntN(2) == 0 {
		f.r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:f.r.IntN(len(idx)+1)]
	}
	in := make([]uint64, len(idx))
	for k, i := range idx {
		in[k] = s.addrs[i]
	}
	require.NoError(f.t, h.Translate(in, out, live))
	cur, found := f.tb.Locate(idsAt(s.ids, idx))
	for k, i := range idx {
		id := s.ids[i]
		switch {
		case found[k]:
			f.seen[0]++
			require.True(f.t, live[k], "row id %d (was %#x) is live at %#x but translated as deleted", id, s.addrs[i], cur[k])
			require.Equal(f.t, cur[k], out[k], "row id %d was %#x", id, s.addrs[i])
		case live[k]:
			// Deleted after the last transition that moved it.
			f.seen[1]++
			got, ok := f.tb.RowIDAt(out[k])
			require.True(f.t, ok, "row id %d translated to %#x outside the table", id, out[k])
			require.Equal(f.t, id, got)
			require.False(f.t, f.tb.IsLive(out[k]))
		default:
			f.seen[2]++
			require.Equal(f.t, fragreuseDeleted, out[k])
			_, inModel := f.rows[id]
			require.False(f.t, inModel, "row id %d is live in the model but translated as deleted", id)
		}
	}
}

func idsAt(ids []uint64, idx []int) []uint64 {
	out := make([]uint64, len(idx))
	for k, i := range idx {
		out[k] = ids[i]
	}
	return out
}
