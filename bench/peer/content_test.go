package peer

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// contentEngine answers the content check from a table (its own copy of
// the data), optionally with one payload bit flipped or one row id shifted:
// the kind of error a check against another engine loaded from the same
// scan cannot see, and the model can.
type contentEngine struct {
	fakeEngine
	flip, shift bool
}

func (f *contentEngine) Run(ctx context.Context, q Query) (Answer, error) {
	if q.Kind != KindContent {
		return f.fakeEngine.Run(ctx, q)
	}
	f.runs++
	at := map[uint64]int{}
	for i, id := range f.tb.RowID {
		at[id] = i
	}
	a := &ContentRows{}
	for i, id := range q.IDs {
		if f.shift {
			id++
		}
		a.Ord = append(a.Ord, int64(i+1))
		r, ok := at[id]
		a.Valid = append(a.Valid, ok)
		if !ok {
			a.K, a.Payload = append(a.K, 0), append(a.Payload, 0)
			continue
		}
		p := f.tb.Payload[r]
		if f.flip && i == len(q.IDs)-1 {
			p += 1e-16
		}
		a.K, a.Payload = append(a.K, f.tb.K[r]), append(a.Payload, p)
	}
	return a, nil
}

// TestModelMatchesGenerator: the model's content is the generator's, misses
// past the generated rows and (after the delete) under the delete bound.
func TestModelMatchesGenerator(t *testing.T) {
	m := Model{Generated: 1000}
	ids := []uint64{0, 5, 5, 999, 1000, 1 << 40}
	c := m.Content(ids)
	require.Equal(t, []bool{true, true, true, true, false, false}, c.Valid)
	require.Equal(t, K(5), c.K[1])
	require.Equal(t, Payload(999), c.Payload[3])
	tb := SyntheticTable(1000, 300)
	require.NoError(t, ExpectTake(tb, ids, true).Compare(&TakeRows{Ord: c.Ord, Addr: make([]uint64, 6), AddrValid: c.Valid,
		Payload: c.Payload, PayloadValid: c.Valid, NoAddr: true}))
	m.Deleted = true
	after, _ := ExpectDelete(tb, DeleteLimit)
	live := 0
	for id := range uint64(1000) {
		if m.Live(id) {
			live++
		}
	}
	require.Equal(t, after.Len(), live)
	addr, err := m.CheckScan(after)
	require.NoError(t, err)
	back, err := m.Table(addr)
	require.NoError(t, err)
	require.Equal(t, after, back)
	// A scan that differs from the generator is caught.
	after.Payload[3] = 0.5
	_, err = m.CheckScan(after)
	require.ErrorIs(t, err, ErrMismatch)
	_, err = Model{Generated: 1000}.CheckScan(after)
	require.ErrorIs(t, err, ErrMismatch, "deleted rows missing from the scan")
}

// TestRunCaseChecksTheModel: with Case.Model set, an engine whose content
// differs from the model fails the case before timing, even when every
// engine agrees with every other on the timed query.
func TestRunCaseChecksTheModel(t *testing.T) {
	ctx := context.Background()
	tb := SyntheticTable(2000, 500)
	ids, err := IDs(tb, 300, 1)
	require.NoError(t, err)
	m := &Model{Generated: 2000}
	good := &contentEngine{fakeEngine: fakeEngine{name: "a", tb: tb}}
	for _, bad := range []*contentEngine{
		{fakeEngine: fakeEngine{name: "flip", tb: tb}, flip: true},
		{fakeEngine: fakeEngine{name: "shift", tb: tb}, shift: true},
	} {
		_, err := RunCase(ctx, Case{Workload: "take", Rows: 2000, Query: Query{Kind: KindTake, IDs: ids}, Runs: 2, Model: m},
			[]Engine{good, bad}, nil)
		require.ErrorIs(t, err, ErrMismatch, bad.name)
		require.Contains(t, err.Error(), bad.name+" against the model")
		// Without the model the two agree: the timed query has no content.
		_, err = RunCase(ctx, Case{Workload: "take", Rows: 2000, Query: Query{Kind: KindTake, IDs: ids}, Runs: 1},
			[]Engine{good, bad}, nil)
		require.NoError(t, err)
	}
}

// TestReportRatioPerFamily: one ratio column per peer, against its best
// variant in the row.
func TestReportRatioPerFamily(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	r := &Result{Case: Case{Workload: "take+payload", Rows: 1000, Query: Query{Kind: KindTakePayload, IDs: make([]uint64, 10)}},
		Engines: []string{"stablerow", "duckdb", "duckdb+ART", "lancedb"},
		Times:   [][]time.Duration{ms(2), ms(40), ms(4), ms(8)}, Plans: make([]string, 4), Len: 10}
	require.Equal(t, 4*time.Millisecond, r.Best("duckdb"))
	var b strings.Builder
	require.NoError(t, (&Report{Results: []*Result{r}}).WriteMarkdown(&b))
	require.Contains(t, b.String(), "| stablerow / best duckdb | stablerow / best lancedb |")
	require.Contains(t, b.String(), "| 2.00 ms | 40.0 ms | 4.00 ms | 8.00 ms | 0.500 (2.0× faster) | 0.250 (4.0× faster) |")
}

// TestModelKRows: the model's IN-list answer (through K's inverse) is the
// reference model's over the generated table, before and after the delete.
func TestModelKRows(t *testing.T) {
	tb := SyntheticTable(3000, 1000)
	keys, err := Keys(tb, 3000, 500, 4)
	require.NoError(t, err)
	keys = append(keys, -5, K(3000), K(0), K(0))
	require.NoError(t, ExpectK(tb, keys).Compare(Model{Generated: 3000}.KRows(keys)))
	after, _ := ExpectDelete(tb, DeleteLimit)
	require.NoError(t, ExpectK(after, keys).Compare(Model{Generated: 3000, Deleted: true}.KRows(keys)))
	require.NotZero(t, ExpectK(after, keys).Len())
}
