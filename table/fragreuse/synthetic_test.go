package fragreuse_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/rowmap"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/deletion"
	"github.com/stablerow/stablerow/table/fragreuse"
	"github.com/stablerow/stablerow/table/rowid"
	"github.com/stablerow/stablerow/table/store"
)

// synth is a transition built without a table, with its expected
// translation computed by replaying it row by row.
type synth struct {
	tr   table.Transition
	want map[uint64]uint64 // old address -> new address (absent: deleted)
	all  []uint64          // every old address
}

func source(t *testing.T, r *rand.Rand, id uint32, rows int, delFrac float64) table.TransitionSource {
	bm := roaring.New()
	for o := 0; o < rows; o++ {
		if r.Float64() < delFrac {
			bm.Add(uint32(o))
		}
	}
	v := deletion.FromBitmap(bm)
	d, err := table.DeletionDigest(v)
	require.NoError(t, err)
	return table.TransitionSource{Fragment: id, PhysicalRows: uint64(rows), Deletions: v, DeletionDigest: d}
}

// synthOrdered: sources 1..n, destinations 100.. of random sizes.
func synthOrdered(t *testing.T, r *rand.Rand, version uint64, srcIDs []uint32, destBase uint32) synth {
	s := synth{tr: table.Transition{Kind: table.TransitionOrdered, Version: version}, want: map[uint64]uint64{}}
	var live []uint64
	for _, id := range srcIDs {
		src := source(t, r, id, r.IntN(300), r.Float64()*0.5)
		s.tr.Sources = append(s.tr.Sources, src)
		for o := uint64(0); o < src.PhysicalRows; o++ {
			a := uint64(rowid.NewAddress(id, uint32(o)))
			s.all = append(s.all, a)
			if !src.Deletions.Contains(uint32(o)) {
				live = append(live, a)
			}
		}
	}
	for p, d := 0, destBase; p < len(live); d++ {
		n := min(len(live)-p, 1+r.IntN(200))
		s.tr.Destinations = append(s.tr.Destinations, table.TransitionDest{Fragment: d, Rows: uint64(n)})
		for k := 0; k < n; k++ {
			s.want[live[p+k]] = uint64(rowid.NewAddress(d, uint32(k)))
		}
		p += n
	}
	return s
}

// synthPartition writes a rowmap with small blocks (so sweeps cross block
// boundaries) routing live rows to random destinations.
func synthPartition(t *testing.T, r *rand.Rand, st store.Store, version uint64, srcIDs []uint32, destBase uint32, m int) synth {
	s := synth{tr: table.Transition{Kind: table.TransitionStablePartition, Version: version, RowMap: "_rowmaps/synth" + string(rune('a'+version)) + ".rowmap"}, want: map[uint64]uint64{}}
	var srcs []rowmap.SourceFragment
	var labels []uint16
	counts := make([]uint32, m)
	for _, id := range srcIDs {
		src := source(t, r, id, r.IntN(400), r.Float64()*0.3)
		s.tr.Sources = append(s.tr.Sources, src)
		srcs = append(srcs, rowmap.SourceFragment{PhysicalRows: src.PhysicalRows, Deleted: src.Deletions.Bitmap()})
		for o := uint64(0); o < src.PhysicalRows; o++ {
			a := uint64(rowid.NewAddress(id, uint32(o)))
			s.all = append(s.all, a)
			if src.Deletions.Contains(uint32(o)) {
				continue
			}
			l := uint16(r.IntN(m))
			labels = append(labels, l)
			s.want[a] = uint64(rowid.NewAddress(destBase+uint32(l), counts[l]))
			counts[l]++
		}
	}
	// Drop empty destinations: the table never writes one.
	var ids []uint32
	remap := make([]uint16, m)
	for j, c := range counts {
		if c > 0 {
			remap[j] = uint16(len(ids))
			ids = append(ids, destBase+uint32(j))
			s.tr.Destinations = append(s.tr.Destinations, table.TransitionDest{Fragment: destBase + uint32(j), Rows: uint64(c)})
		}
	}
	for i, l := range labels {
		labels[i] = remap[l]
	}
	w, err := rowmap.NewWriter(ids, srcs, rowmap.WriterOptions{BlockSize: 64})
	require.NoError(t, err)
	require.NoError(t, w.Append(labels))
	b, err := w.Finish()
	require.NoError(t, err)
	require.NoError(t, st.Put(context.Background(), s.tr.RowMap, b))
	return s
}

// checkChain translates every old address of the first transition (plus
// addresses of fragments never rewritten) through the chain and compares
// with the composition of the transitions' expected maps.
func checkChain(t *testing.T, r *rand.Rand, st store.Store, chain []synth) {
	var ts []table.Transition
	for _, s := range chain {
		ts = append(ts, s.tr)
	}
	h, err := fragreuse.Open(context.Background(), st, ts, 0)
	require.NoError(t, err)
	defer h.Close()
	require.Equal(t, len(chain), h.Len())
	in := slices.Clone(chain[0].all)
	in = append(in, uint64(rowid.NewAddress(999, 5))) // never rewritten: passes through
	expect := func(a uint64) (uint64, bool) {
		for _, s := range chain {
			if !slices.ContainsFunc(s.tr.Sources, func(x table.TransitionSource) bool { return x.Fragment == rowid.Address(a).Fragment() }) {
				continue
			}
			n, ok := s.want[a]
			if !ok {
				return fragreuse.DeletedAddr, false
			}
			a = n
		}
		return a, true
	}
	for _, order := range []string{"sorted", "shuffled", "sparse"} {
		q := slices.Clone(in)
		switch order {
		case "shuffled":
			r.Shuffle(len(q), func(i, j int) { q[i], q[j] = q[j], q[i] })
		case "sparse":
			r.Shuffle(len(q), func(i, j int) { q[i], q[j] = q[j], q[i] })
			q = q[:len(q)/20]
			slices.Sort(q)
		}
		out := make([]uint64, len(q))
		live := make([]bool, len(q))
		require.NoError(t, h.Translate(q, out, live))
		for i, a := range q {
			want, ok := expect(a)
			require.Equal(t, ok, live[i], "%s: %s", order, rowid.Address(a))
			require.Equal(t, want, out[i], "%s: %s -> %s, want %s", order, rowid.Address(a), rowid.Address(out[i]), rowid.Address(want))
		}
		// In place gives the same answer.
		inPlace := slices.Clone(q)
		require.NoError(t, h.Translate(inPlace, inPlace, live))
		require.Equal(t, out, inPlace)
	}
}

// TestSyntheticChains checks ordered and stable-partition transitions and
// chains of both against a row-by-row replay, with random deletions, in
// sorted (sweep), shuffled and sparse order.
func TestSyntheticChains(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		st := store.NewMemory()
		a := synthOrdered(t, r, 2, []uint32{1, 2, 3}, 10)
		b := synthPartition(t, r, st, 3, []uint32{1, 2, 3, 4}, 20, 1+r.IntN(9))
		checkChain(t, r, st, []synth{a})
		checkChain(t, r, st, []synth{b})
		// Chain: compact 1,2,3 -> 10.., then recluster those into 40.., then compact again.
		var dests []uint32
		for _, d := range a.tr.Destinations {
			dests = append(dests, d.Fragment)
		}
		if len(dests) == 0 {
			continue
		}
		c := synthPartitionOver(t, r, st, 4, a, 40, 1+r.IntN(5))
		var cd []uint32
		for _, d := range c.tr.Destinations {
			cd = append(cd, d.Fragment)
		}
		chain := []synth{a, c}
		if len(cd) > 0 {
			chain = append(chain, synthOrderedOver(t, r, 5, c, 60))
		}
		checkChain(t, r, st, chain)
	}
}

// synthPartitionOver reclusters the destinations of prev (with fresh
// deletions on them) into destinations from destBase.
func synthPartitionOver(t *testing.T, r *rand.Rand, st store.Store, version uint64, prev synth, destBase uint32, m int) synth {
	s := synth{tr: table.Transition{Kind: table.TransitionStablePartition, Version: version, RowMap: "_rowmaps/over" + string(rune('a'+version)) + ".rowmap"}, want: map[uint64]uint64{}}
	var srcs []rowmap.SourceFragment
	var labels []uint16
	counts := make([]uint32, m)
	for _, d := range prev.tr.Destinations {
		src := source(t, r, d.Fragment, int(d.Rows), 0.2)
		s.tr.Sources = append(s.tr.Sources, src)
		srcs = append(srcs, rowmap.SourceFragment{PhysicalRows: src.PhysicalRows, Deleted: src.Deletions.Bitmap()})
		for o := uint64(0); o < d.Rows; o++ {
			if src.Deletions.Contains(uint32(o)) {
				continue
			}
			l := uint16(r.IntN(m))
			labels = append(labels, l)
			s.want[uint64(rowid.NewAddress(d.Fragment, uint32(o)))] = uint64(rowid.NewAddress(destBase+uint32(l), counts[l]))
			counts[l]++
		}
	}
	var ids []uint32
	remap := make([]uint16, m)
	for j, c := range counts {
		if c > 0 {
			remap[j] = uint16(len(ids))
			ids = append(ids, destBase+uint32(j))
			s.tr.Destinations = append(s.tr.Destinations, table.TransitionDest{Fragment: destBase + uint32(j), Rows: uint64(c)})
		}
	}
	for i, l := range labels {
		labels[i] = remap[l]
	}
	w, err := rowmap.NewWriter(ids, srcs, rowmap.WriterOptions{BlockSize: 64})
	require.NoError(t, err)
	require.NoError(t, w.Append(labels))
	b, err := w.Finish()
	require.NoError(t, err)
	require.NoError(t, st.Put(context.Background(), s.tr.RowMap, b))
	return s
}

// synthOrderedOver compacts the destinations of prev into one fragment.
func synthOrderedOver(t *testing.T, r *rand.Rand, version uint64, prev synth, dest uint32) synth {
	s := synth{tr: table.Transition{Kind: table.TransitionOrdered, Version: version}, want: map[uint64]uint64{}}
	var n uint32
	for _, d := range prev.tr.Destinations {
		src := source(t, r, d.Fragment, int(d.Rows), 0.1)
		s.tr.Sources = append(s.tr.Sources, src)
		for o := uint64(0); o < d.Rows; o++ {
			if !src.Deletions.Contains(uint32(o)) {
				s.want[uint64(rowid.NewAddress(d.Fragment, uint32(o)))] = uint64(rowid.NewAddress(dest, n))
				n++
			}
		}
	}
	if n > 0 {
		s.tr.Destinations = []table.TransitionDest{{Fragment: dest, Rows: uint64(n)}}
	}
	return s
}

func TestTranslateErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	st := store.NewMemory()
	ctx := context.Background()
	a := synthOrdered(t, r, 2, []uint32{1, 2}, 10)
	b := synthPartition(t, r, st, 3, []uint32{5}, 20, 3)
	h, err := fragreuse.Open(ctx, st, []table.Transition{a.tr, b.tr}, 0)
	require.NoError(t, err)
	defer h.Close()
	out, live := make([]uint64, 1), make([]bool, 1)
	past := uint64(rowid.NewAddress(1, uint32(a.tr.Sources[0].PhysicalRows)))
	require.ErrorIs(t, h.Translate([]uint64{past}, out, live), fragreuse.ErrInvalidArgument)
	past = uint64(rowid.NewAddress(5, uint32(b.tr.Sources[0].PhysicalRows)))
	require.ErrorIs(t, h.Translate([]uint64{past}, out, live), fragreuse.ErrInvalidArgument)
	require.ErrorIs(t, h.Translate([]uint64{1, 2}, out, live), fragreuse.ErrInvalidArgument)

	// Since filters: a history since version 2 holds only b.
	h2, err := fragreuse.Open(ctx, st, []table.Transition{a.tr, b.tr}, 2)
	require.NoError(t, err)
	require.Equal(t, 1, h2.Len())
	require.NoError(t, h2.Close())

	// A rowmap that disagrees with its transition is ErrCorrupt.
	bad := b.tr
	bad.Destinations = slices.Clone(bad.Destinations)
	bad.Destinations[0].Fragment += 100
	_, err = fragreuse.Open(ctx, st, []table.Transition{bad}, 0)
	require.ErrorIs(t, err, fragreuse.ErrCorrupt)
	bad = b.tr
	bad.RowMap = "_rowmaps/missing.rowmap"
	_, err = fragreuse.Open(ctx, st, []table.Transition{bad}, 0)
	require.True(t, errors.Is(err, store.ErrNotFound), "%v", err)
	require.ErrorIs(t, err, fragreuse.ErrCorrupt, "a recorded row map that is gone is corruption")
	require.ErrorContains(t, err, "_rowmaps/missing.rowmap")
	require.NoError(t, st.Put(ctx, "_rowmaps/junk.rowmap", []byte("not a rowmap at all, just bytes")))
	bad.RowMap = "_rowmaps/junk.rowmap"
	_, err = fragreuse.Open(ctx, st, []table.Transition{bad}, 0)
	require.ErrorIs(t, err, fragreuse.ErrCorrupt)
	bad = a.tr
	bad.Destinations = slices.Clone(bad.Destinations)
	bad.Destinations[0].Rows++
	_, err = fragreuse.Open(ctx, st, []table.Transition{bad}, 0)
	require.ErrorIs(t, err, fragreuse.ErrCorrupt)
}
