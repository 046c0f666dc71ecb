package table

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/internal/fuzzseed"
	"github.com/stablerow/stablerow/table/deletion"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

func testSource(t testing.TB, id uint32, rows uint64, dels ...uint32) TransitionSource {
	v := deletion.New(dels...)
	d, err := DeletionDigest(v)
	require.NoError(t, err)
	return TransitionSource{Fragment: id, PhysicalRows: rows, Deletions: v, DeletionDigest: d}
}

// sampleHistories are valid histories: empty, one ordered transition, a
// version with two, a stable partition, a transition removing everything.
func sampleHistories(t testing.TB) [][]Transition {
	return [][]Transition{
		{{Kind: TransitionOrdered, Version: 3, Sources: []TransitionSource{testSource(t, 1, 10)}, Destinations: []TransitionDest{{Fragment: 5, Rows: 10}}}},
		{
			{Kind: TransitionOrdered, Version: 3, Sources: []TransitionSource{testSource(t, 1, 10, 2, 3), testSource(t, 2, 4)},
				Destinations: []TransitionDest{{Fragment: 7, Rows: 6}, {Fragment: 8, Rows: 6}}},
			{Kind: TransitionOrdered, Version: 3, Sources: []TransitionSource{testSource(t, 3, 5, 0, 1, 2, 3, 4)}},
			{Kind: TransitionStablePartition, Version: 9, Sources: []TransitionSource{testSource(t, 7, 6, 5), testSource(t, 8, 6)},
				Destinations: []TransitionDest{{Fragment: 12, Rows: 4}, {Fragment: 13, Rows: 7}}, RowMap: "_rowmaps/x.rowmap"},
		},
	}
}

func encodedSamples(t testing.TB) [][]byte {
	var out [][]byte
	for _, h := range sampleHistories(t) {
		b, err := encodeHistory(h)
		require.NoError(t, err)
		out = append(out, b)
	}
	return out
}

func TestHistoryRoundTrip(t *testing.T) {
	b, err := encodeHistory(nil)
	require.NoError(t, err)
	require.Nil(t, b)
	got, err := decodeHistory(nil)
	require.NoError(t, err)
	require.Nil(t, got)
	for _, h := range sampleHistories(t) {
		b, err := encodeHistory(h)
		require.NoError(t, err)
		got, err := decodeHistory(b)
		require.NoError(t, err)
		require.Len(t, got, len(h))
		for i := range h {
			requireTransitionEqual(t, h[i], got[i])
		}
	}
}

func requireTransitionEqual(t *testing.T, want, got Transition) {
	t.Helper()
	require.Equal(t, want.Kind, got.Kind)
	require.Equal(t, want.Version, got.Version)
	require.Equal(t, want.Destinations, got.Destinations)
	require.Equal(t, want.RowMap, got.RowMap)
	require.Len(t, got.Sources, len(want.Sources))
	for i, s := range want.Sources {
		g := got.Sources[i]
		require.Equal(t, s.Fragment, g.Fragment)
		require.Equal(t, s.PhysicalRows, g.PhysicalRows)
		require.Equal(t, s.DeletionDigest, g.DeletionDigest)
		require.True(t, s.Deletions.Equal(g.Deletions))
	}
}

// withCRC re-seals b after a body edit so the validation behind the
// checksum is what gets tested.
func withCRC(b []byte) []byte {
	if len(b) < historyHeader+4 {
		return b
	}
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(c[8:], uint32(len(c)-historyHeader-4))
	binary.LittleEndian.PutUint32(c[len(c)-4:], crc32.Checksum(c[:len(c)-4], castagnoli))
	return c
}

func TestHistoryCorrupt(t *testing.T) {
	good := encodedSamples(t)[1]
	flip := func(i int) []byte { c := append([]byte(nil), good...); c[i] ^= 0x40; return c }
	cases := map[string][]byte{
		"short":     good[:10],
		"magic":     flip(0),
		"version":   flip(4),
		"flags":     flip(6),
		"length":    flip(8),
		"checksum":  flip(len(good) - 1),
		"body":      flip(historyHeader + 3),
		"truncated": withCRC(good[:len(good)-9]),
		"trailing":  withCRC(append(append([]byte(nil), good[:len(good)-4]...), 0, 0, 0, 0, 0)),
	}
	for name, b := range cases {
		_, err := decodeHistory(b)
		require.ErrorIs(t, err, ErrCorrupt, name)
	}
	// Semantically bad histories are refused by the encoder's twin check.
	bad := map[string][]Transition{
		"kind":         {{Kind: 9, Version: 1, Sources: []TransitionSource{testSource(t, 1, 1)}, Destinations: []TransitionDest{{2, 1}}}},
		"no sources":   {{Kind: TransitionOrdered, Version: 1}},
		"conservation": {{Kind: TransitionOrdered, Version: 1, Sources: []TransitionSource{testSource(t, 1, 3, 1)}, Destinations: []TransitionDest{{2, 3}}}},
		"digest":       {{Kind: TransitionOrdered, Version: 1, Sources: []TransitionSource{{Fragment: 1, PhysicalRows: 2, Deletions: deletion.New(1)}}, Destinations: []TransitionDest{{2, 1}}}},
		"deletes past": {{Kind: TransitionOrdered, Version: 1, Sources: []TransitionSource{testSource(t, 1, 2, 5)}, Destinations: []TransitionDest{{2, 2}}}},
		"rowmap on ordered": {{Kind: TransitionOrdered, Version: 1, Sources: []TransitionSource{testSource(t, 1, 1)},
			Destinations: []TransitionDest{{2, 1}}, RowMap: "x"}},
		"partition without rowmap": {{Kind: TransitionStablePartition, Version: 1, Sources: []TransitionSource{testSource(t, 1, 1)},
			Destinations: []TransitionDest{{2, 1}}}},
		"empty destination": {{Kind: TransitionOrdered, Version: 1, Sources: []TransitionSource{testSource(t, 1, 1)},
			Destinations: []TransitionDest{{2, 1}, {3, 0}}}},
		"fragment twice": {{Kind: TransitionOrdered, Version: 1, Sources: []TransitionSource{testSource(t, 1, 1)}, Destinations: []TransitionDest{{1, 1}}}},
		"versions backwards": {
			{Kind: TransitionOrdered, Version: 5, Sources: []TransitionSource{testSource(t, 1, 1)}, Destinations: []TransitionDest{{2, 1}}},
			{Kind: TransitionOrdered, Version: 4, Sources: []TransitionSource{testSource(t, 2, 1)}, Destinations: []TransitionDest{{3, 1}}},
		},
		"same version overlap": {
			{Kind: TransitionOrdered, Version: 5, Sources: []TransitionSource{testSource(t, 1, 1)}, Destinations: []TransitionDest{{2, 1}}},
			{Kind: TransitionOrdered, Version: 5, Sources: []TransitionSource{testSource(t, 2, 1)}, Destinations: []TransitionDest{{3, 1}}},
		},
	}
	for name, h := range bad {
		require.ErrorIs(t, validateHistory(h), ErrCorrupt, name)
		b, err := encodeHistory(h)
		require.NoError(t, err)
		_, err = decodeHistory(b)
		require.ErrorIs(t, err, ErrCorrupt, name)
	}
}

func FuzzHistory(f *testing.F) {
	for _, b := range encodedSamples(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, in := range [][]byte{b, withCRC(b)} {
			h, err := decodeHistory(in)
			if err != nil {
				require.ErrorIs(t, err, ErrCorrupt)
				continue
			}
			again, err := encodeHistory(h)
			require.NoError(t, err)
			h2, err := decodeHistory(again)
			require.NoError(t, err)
			require.Len(t, h2, len(h))
			for i := range h {
				requireTransitionEqual(t, h[i], h2[i])
			}
		}
	})
}

func TestHistoryCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzHistory", encodedSamples(t))
}

// rewriteFixture is a manifest of three fragments (ids 0..2, 10 rows each,
// fragment 1 with offsets 3 and 4 deleted) and NextFragmentID 5 (3 and 4
// reserved), plus an ordered group that compacts 0 and 1 into 3.
func rewriteFixture(t *testing.T) (*Manifest, *rewriteGroup) {
	m := &Manifest{Version: 7, Schema: arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil),
		NextRowID: 30, NextFragmentID: 5}
	for i := range uint32(3) {
		m.Fragments = append(m.Fragments, &Fragment{ID: i, DataFile: "data/f" + string(rune('0'+i)), PhysicalRows: 10, BatchRows: 10,
			RowIDs: rowid.NewRange(uint64(i)*10, uint64(i)*10+10), File: fakeFile(10, 10)})
	}
	m.Fragments[1].Deletions = deletion.New(3, 4)
	g := &rewriteGroup{kind: TransitionOrdered, sources: slices.Clone(m.Fragments[:2])}
	var ids []uint64
	for _, f := range g.sources {
		ids = liveIDs(ids, f)
		s, err := newTransitionSource(f)
		require.NoError(t, err)
		g.tr.Sources = append(g.tr.Sources, s)
	}
	g.dests = []newFragment{{dataFile: "data/new", file: fakeFile(18, 10), rows: 18, batchRows: 10}}
	require.NoError(t, assignIDs(g.dests, ids))
	g.tr.Kind = TransitionOrdered
	g.tr.Destinations = []TransitionDest{{Fragment: 3, Rows: 18}}
	return m, g
}

func applyOn(m *Manifest, g *rewriteGroup) (*Manifest, error) {
	next := m.clone()
	next.Version = m.Version + 1
	return next, applyRewrite(m, next, []*rewriteGroup{g}, true)
}

func TestApplyRewrite(t *testing.T) {
	m, g := rewriteFixture(t)
	next, err := applyOn(m, g)
	require.NoError(t, err)
	require.NoError(t, next.validate())
	require.Equal(t, []uint32{2, 3}, []uint32{next.Fragments[0].ID, next.Fragments[1].ID})
	require.Equal(t, m.LiveRows(), next.LiveRows())
	ts, err := decodeHistory(next.Extra)
	require.NoError(t, err)
	require.Len(t, ts, 1)
	require.Equal(t, uint64(8), ts[0].Version)

	// A concurrent delete of fragment 1 offset 6 (live row 4 of 8 there,
	// so row 10+4 of the destination) is folded by rank.
	m, g = rewriteFixture(t)
	f1 := *m.Fragments[1]
	f1.Deletions = deletion.New(3, 4, 6)
	m.Fragments[1] = &f1
	next, err = applyOn(m, g)
	require.NoError(t, err)
	dst := next.Fragment(3)
	require.Equal(t, []uint32{14}, dst.Deletions.Offsets())
	id, _ := dst.RowIDs.Get(14)
	require.Equal(t, uint64(16), id)
	ts, err = decodeHistory(next.Extra)
	require.NoError(t, err)
	require.True(t, ts[0].Sources[1].Deletions.Equal(deletion.New(3, 4)), "the history keeps the vector the rewrite read")
}

func TestApplyRewriteRefuses(t *testing.T) {
	cases := map[string]struct {
		edit func(m *Manifest, g *rewriteGroup)
		want error
	}{
		"rows lost": {func(m *Manifest, g *rewriteGroup) {
			g.tr.Destinations[0].Rows, g.dests[0].rows = 17, 17
			g.dests[0].keptIDs = g.dests[0].keptIDs.Slice(0, 17)
		}, ErrConservation},
		"ids short":      {func(m *Manifest, g *rewriteGroup) { g.dests[0].keptIDs = g.dests[0].keptIDs.Slice(0, 17) }, ErrConservation},
		"not reserved":   {func(m *Manifest, g *rewriteGroup) { g.tr.Destinations[0].Fragment = 9 }, ErrConservation},
		"id taken":       {func(m *Manifest, g *rewriteGroup) { g.tr.Destinations[0].Fragment = 2 }, ErrConflict},
		"source removed": {func(m *Manifest, g *rewriteGroup) { m.Fragments = m.Fragments[1:] }, ErrConflict},
		"source replaced": {func(m *Manifest, g *rewriteGroup) {
			f := *m.Fragments[0]
			f.DataFile = "data/other"
			m.Fragments[0] = &f
		}, ErrConflict},
		"deletions lost": {func(m *Manifest, g *rewriteGroup) {
			f := *m.Fragments[1]
			f.Deletions = deletion.New(3)
			m.Fragments[1] = &f
		}, ErrConflict},
	}
	for name, c := range cases {
		m, g := rewriteFixture(t)
		c.edit(m, g)
		_, err := applyOn(m, g)
		require.ErrorIs(t, err, c.want, name)
	}
}

func TestAssignIDsConservation(t *testing.T) {
	ids := []uint64{1, 2, 3}
	require.ErrorIs(t, assignIDs([]newFragment{{rows: 2}}, ids), ErrConservation)
	require.ErrorIs(t, assignIDs([]newFragment{{rows: 2}, {rows: 2}}, ids), ErrConservation)
	require.NoError(t, assignIDs([]newFragment{{rows: 2}, {rows: 1}}, ids))
}

// A stable partition whose labels do not cover the live source rows is
// refused before anything commits, and a concurrent delete folds through
// the rowmap.
func TestRowMapConservationAndFold(t *testing.T) {
	m, _ := rewriteFixture(t)
	tb := newTable(store.NewMemory(), m, Options{})
	g := &rewriteGroup{kind: TransitionStablePartition, sources: slices.Clone(m.Fragments[:2]), labels: make([]uint16, 17)}
	for _, f := range g.sources {
		s, err := newTransitionSource(f)
		require.NoError(t, err)
		g.tr.Sources = append(g.tr.Sources, s)
	}
	g.tr.Kind = TransitionStablePartition
	g.tr.Destinations = []TransitionDest{{Fragment: 3, Rows: 9}, {Fragment: 4, Rows: 9}}
	require.ErrorIs(t, tb.writeRowMap(t.Context(), g), ErrConservation)
	// Alternate labels: live row i goes to destination i%2.
	g.labels = make([]uint16, 18)
	for i := range g.labels {
		g.labels[i] = uint16(i % 2)
	}
	var ids []uint64
	for _, f := range g.sources {
		ids = liveIDs(ids, f)
	}
	per := [2][]uint64{}
	for i, id := range ids {
		per[i%2] = append(per[i%2], id)
	}
	g.dests = []newFragment{{dataFile: "data/a", file: fakeFile(9, 9), rows: 9, batchRows: 9, keptIDs: rowid.NewSequence(per[0])},
		{dataFile: "data/b", file: fakeFile(9, 9), rows: 9, batchRows: 9, keptIDs: rowid.NewSequence(per[1])}}
	require.NoError(t, tb.writeRowMap(t.Context(), g))
	// Concurrently delete fragment 1 offset 6 (row id 16, live row 14 of
	// the group: destination 0, offset 7).
	f1 := *m.Fragments[1]
	f1.Deletions = deletion.New(3, 4, 6)
	m.Fragments[1] = &f1
	next, err := applyOn(m, g)
	require.NoError(t, err)
	require.Equal(t, []uint32{7}, next.Fragment(3).Deletions.Offsets())
	id, _ := next.Fragment(3).RowIDs.Get(7)
	require.Equal(t, uint64(16), id)
	require.True(t, next.Fragment(4).Deletions.IsEmpty())
}
