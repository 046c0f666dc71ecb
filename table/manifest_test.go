package table_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/internal/fuzzseed"
	"github.com/stablerow/stablerow/table"
	"github.com/stablerow/stablerow/table/store"
)

// sampleManifests builds a table through appends, deletes, an update and an
// index record and returns the encoded manifest of every version.
func sampleManifests(t testing.TB) [][]byte {
	ctx := context.Background()
	mem := exectest.Mem(t)
	st := store.NewMemory()
	tb, err := table.Create(ctx, st, userSchema, table.Options{MaxRowsPerFragment: 50, BatchRows: 16})
	require.NoError(t, err)
	var rows [][]any
	for i := range 120 {
		rows = append(rows, []any{int64(i), fmt.Sprint(i), nil})
	}
	b, err := exectest.Batch(mem, userSchema, rows)
	require.NoError(t, err)
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	b.Release()
	require.NoError(t, err)
	tb, _, err = tb.DeleteRowIDs(ctx, []uint64{3, 4, 5, 60, 119})
	require.NoError(t, err)
	_, err = tb.CommitIndex(ctx, &table.IndexMeta{Name: "rid", Column: "_rowid", Kind: "btree", Prefix: "_indices/x/",
		Fragments: roaring.BitmapOf(0, 1), DatasetVersion: tb.Version(), Unique: true}, false)
	require.NoError(t, err)
	vs, err := table.Versions(ctx, st)
	require.NoError(t, err)
	var out [][]byte
	for _, v := range vs {
		p := fmt.Sprintf("_versions/%020d.manifest", v.Version)
		b, err := st.Get(ctx, p)
		require.NoError(t, err)
		out = append(out, b)
	}
	return out
}

// format2Manifests are the committed table's manifests of format version 2
// (testdata/format1: FormatSpans data files), still read.
func format2Manifests(t testing.TB) [][]byte {
	var out [][]byte
	for v := 1; v <= 3; v++ {
		b, err := os.ReadFile(fmt.Sprintf("testdata/format1/_versions/%020d.manifest", v))
		require.NoError(t, err)
		require.Equal(t, uint16(2), binary.LittleEndian.Uint16(b[4:]), "manifest %d's format version", v)
		out = append(out, b)
	}
	return out
}

func TestManifestRoundTrip(t *testing.T) {
	for i, b := range sampleManifests(t) {
		m, err := table.UnmarshalManifest(b)
		require.NoError(t, err, "version %d", i+1)
		again, err := m.MarshalBinary()
		require.NoError(t, err)
		require.True(t, bytes.Equal(b, again), "version %d re-encodes differently", i+1)
	}
}

func TestManifestCorrupt(t *testing.T) {
	ms, old := sampleManifests(t), format2Manifests(t)
	for _, b := range [][]byte{ms[len(ms)-1], old[len(old)-1]} {
		manifestCorrupt(t, b)
	}
	_, err := table.UnmarshalManifest([]byte("PAR1 not a manifest at all, sorry"))
	require.ErrorIs(t, err, table.ErrCorrupt)
}

// manifestCorrupt: every truncation and every flip of bit 0 or 7 of b is
// ErrCorrupt.
func manifestCorrupt(t *testing.T, b []byte) {
	for n := 0; n < len(b); n++ {
		_, err := table.UnmarshalManifest(b[:n])
		require.ErrorIs(t, err, table.ErrCorrupt, "truncated to %d", n)
	}
	for i := 0; i < len(b); i++ {
		for _, bit := range []byte{1, 0x80} {
			c := bytes.Clone(b)
			c[i] ^= bit
			_, err := table.UnmarshalManifest(c)
			require.ErrorIs(t, err, table.ErrCorrupt, "flip byte %d bit %#x", i, bit)
		}
	}
}

// TestManifestFormat2Reads: version 2 manifests decode, their files are
// FormatSpans, and they re-encode (as version 5) to the same manifest.
func TestManifestFormat2Reads(t *testing.T) {
	for i, b := range format2Manifests(t) {
		m, err := table.UnmarshalManifest(b)
		require.NoError(t, err, "version %d", i+1)
		for _, f := range m.Fragments {
			require.Equal(t, table.FormatSpans, f.File.Format)
		}
		again, err := m.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, uint16(5), binary.LittleEndian.Uint16(again[4:]))
		m2, err := table.UnmarshalManifest(again)
		require.NoError(t, err)
		require.Equal(t, m.Fragments, m2.Fragments)
	}
}

// claimManifests are the sample manifests past version 1 rewritten as a
// transaction's claims (format 6).
func claimManifests(t testing.TB) [][]byte {
	var out [][]byte
	for _, b := range sampleManifests(t) {
		m, err := table.UnmarshalManifest(b)
		require.NoError(t, err)
		if m.Version < 2 {
			continue
		}
		m.Txn.Claim = &table.Claim{TxnID: "0123456789abcdef0123456789abcdef", Table: "t", Prev: m.Version - 1}
		c, err := m.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, uint16(6), binary.LittleEndian.Uint16(c[4:]))
		back, err := table.UnmarshalManifest(c)
		require.NoError(t, err)
		require.Equal(t, m.Txn.Claim, back.Txn.Claim)
		out = append(out, c)
	}
	require.NotEmpty(t, out)
	return out
}

func FuzzManifest(f *testing.F) {
	for _, b := range append(append(sampleManifests(f), format2Manifests(f)...), claimManifests(f)...) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := table.UnmarshalManifest(b)
		if err != nil {
			require.ErrorIs(t, err, table.ErrCorrupt)
			return
		}
		again, err := m.MarshalBinary()
		require.NoError(t, err)
		m2, err := table.UnmarshalManifest(again)
		require.NoError(t, err)
		require.Equal(t, m.Version, m2.Version)
		require.Equal(t, m.LiveRows(), m2.LiveRows())
	})
}

func TestManifestCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzManifest", append(sampleManifests(t), format2Manifests(t)...))
}

// A claim's fields are checked on read like the rest of the manifest: an
// id that is not a transaction id, no table, a Prev at or past the
// claim's own version are ErrCorrupt.
func TestClaimManifestChecked(t *testing.T) {
	b := claimManifests(t)[0]
	for name, bad := range map[string]func(c *table.Claim, v uint64){
		"id":        func(c *table.Claim, v uint64) { c.TxnID = "../x" },
		"table":     func(c *table.Claim, v uint64) { c.Table = "" },
		"prev":      func(c *table.Claim, v uint64) { c.Prev = v },
		"prev zero": func(c *table.Claim, v uint64) { c.Prev = 0 },
	} {
		m, err := table.UnmarshalManifest(b)
		require.NoError(t, err)
		bad(m.Txn.Claim, m.Version)
		c, err := m.MarshalBinary()
		require.NoError(t, err)
		_, err = table.UnmarshalManifest(c)
		require.ErrorIs(t, err, table.ErrCorrupt, name)
	}
}
