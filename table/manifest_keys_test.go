package table_test

import (
	"encoding/binary"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/table"
)

// keysManifest is the last sample manifest with a composite index added
// (format 7).
func keysManifest(t testing.TB) ([]byte, *table.IndexMeta) {
	ms := sampleManifests(t)
	m, err := table.UnmarshalManifest(ms[len(ms)-1])
	require.NoError(t, err)
	ix := &table.IndexMeta{Name: "ab", Column: "k", Kind: "btree", Prefix: "_indices/y/", Fragments: roaring.BitmapOf(0),
		DatasetVersion: m.Version, Unique: true, Keys: []table.IndexKey{{Column: "k"}, {Column: "name", Desc: true, NullsFirst: true}}}
	m.Indexes = append(m.Indexes, ix)
	b, err := m.MarshalBinary()
	require.NoError(t, err)
	return b, ix
}

// TestManifestIndexKeys: an index's key columns survive the manifest
// (format 7, 8 with a claim); a manifest without them stays format 5; a
// key column the schema lacks or a first key that is not the index's
// column is ErrCorrupt, and so is every truncation and bit flip.
func TestManifestIndexKeys(t *testing.T) {
	ms := sampleManifests(t)
	require.Equal(t, uint16(5), binary.LittleEndian.Uint16(ms[len(ms)-1][4:]))
	b, ix := keysManifest(t)
	require.Equal(t, uint16(7), binary.LittleEndian.Uint16(b[4:]))
	m, err := table.UnmarshalManifest(b)
	require.NoError(t, err)
	got := m.Indexes[len(m.Indexes)-1]
	require.Equal(t, ix.Keys, got.Keys)
	require.Equal(t, ix.KeyColumns(), got.KeyColumns())
	require.Equal(t, []table.IndexKey{{Column: "_rowid"}}, m.Indexes[0].KeyColumns())

	m.Txn.Claim = &table.Claim{TxnID: "0123456789abcdef0123456789abcdef", Table: "t", Prev: m.Version - 1}
	c, err := m.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, uint16(8), binary.LittleEndian.Uint16(c[4:]))
	back, err := table.UnmarshalManifest(c)
	require.NoError(t, err)
	require.Equal(t, ix.Keys, back.Indexes[len(back.Indexes)-1].Keys)
	require.Equal(t, m.Txn.Claim, back.Txn.Claim)

	for name, mut := range map[string]func(*table.IndexMeta){
		"unknown key column": func(x *table.IndexMeta) { x.Keys[1].Column = "nope" },
		"first key":          func(x *table.IndexMeta) { x.Keys[0].Column = "name" },
	} {
		m, err := table.UnmarshalManifest(b)
		require.NoError(t, err)
		mut(m.Indexes[len(m.Indexes)-1])
		bad, err := m.MarshalBinary()
		require.NoError(t, err)
		_, err = table.UnmarshalManifest(bad)
		require.ErrorIs(t, err, table.ErrCorrupt, name)
	}
	manifestCorrupt(t, b)
}
