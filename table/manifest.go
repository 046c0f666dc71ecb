package table

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/table/deletion"
	"github.com/stablerow/stablerow/table/rowid"
)

// Fragment is the manifest entry of one data file. Values are immutable:
// a write that changes a fragment's deletions replaces the entry.
type Fragment struct {
	ID           uint32
	DataFile     string // store path of the Arrow IPC file
	PhysicalRows uint64 // rows in the data file, dead ones included
	BatchRows    uint64 // rows per IPC batch (all but the last)
	RowIDs       *rowid.Sequence
	Deletions    *deletion.Vector // nil when nothing is deleted
	// File is the data file's size, content id and checksums; readers
	// verify the bytes they read against it.
	File DataFileInfo
}

// LiveRows is the number of rows not deleted.
func (f *Fragment) LiveRows() uint64 { return f.PhysicalRows - f.Deletions.Cardinality() }

// IsLive reports whether offset holds a live row.
func (f *Fragment) IsLive(off uint32) bool {
	return uint64(off) < f.PhysicalRows && !f.Deletions.Contains(off)
}

// IndexMeta is the manifest record of one index. Index packages own the
// files under Prefix; the table only tracks which fragments the index
// covers and when it was built.
type IndexMeta struct {
	Name           string
	Column         string
	Kind           string          // "btree"
	Prefix         string          // store prefix of the index files
	Fragments      *roaring.Bitmap // fragments indexed at the build; what the index answers for now is package access's business
	DatasetVersion uint64
	// Unique: no two live rows have equal keys (none NULL), by
	// construction (_rowid) or enforced at commit (CREATE UNIQUE INDEX).
	Unique bool
	// Keys are the key columns of an index on several columns, or on one
	// column DESC or with NULLS FIRST, in key order (Column is the first);
	// nil for an index on Column ascending, NULLs last.
	Keys []IndexKey
}

// IndexKey is one key column of an index and its order.
type IndexKey struct {
	Column     string
	Desc       bool
	NullsFirst bool
}

// KeyColumns returns the index's key columns in key order.
func (ix *IndexMeta) KeyColumns() []IndexKey {
	if len(ix.Keys) == 0 {
		return []IndexKey{{Column: ix.Column}}
	}
	return ix.Keys
}

// TxnSummary records what produced a version; conflict detection reads the
// summaries of versions committed after a transaction's base.
type TxnSummary struct {
	Kind        string   // "create", "append", "delete", "update", "index", "rewrite"
	BaseVersion uint64   // the version the transaction read
	Touched     []uint32 // fragments whose deletions changed or that were removed
	Removed     []uint32 // fragments removed
	RowsAdded   uint64
	RowsDeleted uint64
	Detail      string // free text for humans (e.g. rewrite kind)
	// Claim is set when the version is a transaction's claim (a
	// transaction over several tables, txnclaim.go): visible only once
	// the transaction's record says committed.
	Claim *Claim
}

// Claim ties a version to the transaction over several tables that wrote
// it: the version is visible iff the transaction's record (txnrecord.go)
// says committed and lists Table at this version; otherwise the table
// reads at Prev, the visible version the claim was applied on.
type Claim struct {
	TxnID string // the transaction's id (its record's name)
	Table string // the table's name in the database, as the record lists it
	Prev  uint64 // the visible version the claim was applied on
}

// Manifest is one version of a table.
type Manifest struct {
	Version        uint64
	TimestampNanos int64
	Schema         *arrow.Schema // user columns only, field ids 0..n-1
	NextRowID      uint64
	NextFragmentID uint32
	Fragments      []*Fragment // ascending ID
	Indexes        []*IndexMeta
	Txn            TxnSummary
	// Extra is an opaque, versioned section for later features (e.g. the
	// fragment reuse history); decoders keep it byte-for-byte.
	Extra []byte
	// Constraints are the table's declared PRIMARY KEY and CHECK
	// constraints (constraints.go), carried by every version after the
	// one that declared them.
	Constraints Constraints

	// distinct memoizes DistinctCounts: a published manifest never
	// changes, and merging every fragment's sketches cost about half a
	// millisecond of each TPC-H Q2 plan (eight tables). nil in a
	// manifest built without newManifest (a literal in a test): then it
	// is computed on each call. clone gives the copy a memo of its own.
	distinct *distinctMemo
	// zones memoizes the zone-map columns scans decoded (zonememo.go), for
	// the same reason: each scan with a predicate decoded its column's
	// zones of every fragment again (0.7 ms of TPC-H Q15's 40). nil as
	// distinct is; clone gives the copy its own.
	zones *zoneMemo
}

// newManifest is an empty manifest with its memos.
func newManifest() *Manifest { return &Manifest{distinct: &distinctMemo{}, zones: &zoneMemo{}} }

// LiveRows is the number of live rows over all fragments.
func (m *Manifest) LiveRows() uint64 {
	var n uint64
	for _, f := range m.Fragments {
		n += f.LiveRows()
	}
	return n
}

// Fragment returns the fragment with id, or nil.
func (m *Manifest) Fragment(id uint32) *Fragment {
	i, ok := slices.BinarySearchFunc(m.Fragments, id, func(f *Fragment, id uint32) int {
		return int(int64(f.ID) - int64(id))
	})
	if !ok {
		return nil
	}
	return m.Fragments[i]
}

// clone is a shallow copy whose slices may be changed independently.
func (m *Manifest) clone() *Manifest {
	c := *m
	c.Fragments = slices.Clone(m.Fragments)
	c.Indexes = slices.Clone(m.Indexes)
	c.Txn = TxnSummary{}
	c.distinct = &distinctMemo{} // the copy's fragments may change
	c.zones = &zoneMemo{}
	return &c
}

// Manifest file layout (integers little-endian, u/v = uvarint):
//
//	"SRMF" | u16 format version | u16 flags=0 | u32 body length | body | u32 crc32c
//
// The crc covers everything before it; the body is the fields in the order
// of encodeBody. Unknown format versions are refused (ErrCorrupt).
//
// Version 2 added each fragment's DataFileInfo (data file size, content id
// and checksums). Version 1 manifests are refused rather than read without
// verification: a table written before checksums cannot prove its data
// files, and the project has no users with such tables to migrate, so the
// error says to recreate the table.
//
// Version 3 added the data file format to each DataFileInfo and, for
// FormatColumns files, the per-batch head length and column parts.
// Version 2 manifests still read: their files are all FormatSpans, and a
// table keeps them (and reads them) after it writes FormatColumns files.
//
// Version 4 is version 3 plus, after the extra section, a transaction's
// claim: str txn id | str table name | uv prev. Only claims are written
// in it (an ordinary version stays version 3), so a binary that predates
// claims refuses a claim as an unknown format instead of reading a
// version that may never be committed.
//
// Version 5 is version 3 plus, at the end of each DataFileInfo, its zone
// map (bytes, empty for a file without one: zonemap.go); version 6 is
// version 5 with a claim, as 4 is to 3. Versions 2 to 4 still read, their
// files without zone maps, and a binary that predates zone maps refuses
// 5 and 6 as unknown formats.
//
// Version 7 is version 5 plus, after each index's unique flag, its key
// columns (uv count, then per column: str name | bool DESC | bool NULLS
// FIRST; count 0 for an index on one column ascending); version 8 is
// version 7 with a claim. They are written only when an index has key
// columns (IndexMeta.Keys), so a table without such an index stays
// readable by a binary that predates them, which refuses 7 and 8.
//
// Version 9 is version 7 plus, after the claim section (none in 9), the
// table's constraints: str primary key index name (empty: none) | uv
// CHECK count | per CHECK: str name | str expression (SQL text); version
// 10 is version 9 with a claim. They are written only when the table has
// a primary key or a CHECK constraint, so a binary that predates
// constraints refuses such a table rather than write rows that break
// them.
const (
	manifestMagic   = "SRMF"
	manifestVersion = 5
	// claimManifestVersion is the format of a claim (Txn.Claim set).
	claimManifestVersion = 6
	// keysManifestVersion is the first format with index key columns;
	// keysClaimManifestVersion is it with a claim.
	keysManifestVersion      = 7
	keysClaimManifestVersion = 8
	// constraintsManifestVersion is the first format with the table's
	// constraints; constraintsClaimManifestVersion is it with a claim.
	constraintsManifestVersion      = 9
	constraintsClaimManifestVersion = 10
	// zoneManifestVersion is the first format with zone maps.
	zoneManifestVersion = 5
	// oldestManifestVersion is the oldest format version still read.
	oldestManifestVersion = 2
	manifestHeader        = 4 + 2 + 2 + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MarshalBinary encodes the manifest.
func (m *Manifest) MarshalBinary() ([]byte, error) {
	var e encoder
	if err := m.encodeBody(&e); err != nil {
		return nil, err
	}
	format := m.format()
	out := make([]byte, 0, manifestHeader+len(e.b)+4)
	out = append(out, manifestMagic...)
	out = binary.LittleEndian.AppendUint16(out, format)
	out = binary.LittleEndian.AppendUint16(out, 0)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(e.b)))
	out = append(out, e.b...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli)), nil
}

// format is the version m is written in: the oldest that holds it.
func (m *Manifest) format() uint16 {
	keys := slices.ContainsFunc(m.Indexes, func(ix *IndexMeta) bool { return len(ix.Keys) > 0 })
	switch {
	case !m.Constraints.empty() && m.Txn.Claim != nil:
		return constraintsClaimManifestVersion
	case !m.Constraints.empty():
		return constraintsManifestVersion
	case keys && m.Txn.Claim != nil:
		return keysClaimManifestVersion
	case keys:
		return keysManifestVersion
	case m.Txn.Claim != nil:
		return claimManifestVersion
	}
	return manifestVersion
}

func (m *Manifest) encodeBody(e *encoder) error {
	keys := m.format() >= keysManifestVersion
	e.uv(m.Version)
	e.i64(m.TimestampNanos)
	encodeSchema(e, m.Schema)
	e.uv(m.NextRowID)
	e.uv(uint64(m.NextFragmentID))
	e.uv(uint64(len(m.Fragments)))
	for _, f := range m.Fragments {
		e.uv(uint64(f.ID))
		e.str(f.DataFile)
		e.uv(f.PhysicalRows)
		e.uv(f.BatchRows)
		ids, err := f.RowIDs.MarshalBinary()
		if err != nil {
			return fmt.Errorf("table: fragment %d row ids: %w", f.ID, err)
		}
		e.bytes(ids)
		var del []byte
		if !f.Deletions.IsEmpty() {
			if del, err = f.Deletions.MarshalBinary(); err != nil {
				return fmt.Errorf("table: fragment %d deletions: %w", f.ID, err)
			}
		}
		e.bytes(del)
		f.File.encode(e)
	}
	e.uv(uint64(len(m.Indexes)))
	for _, ix := range m.Indexes {
		e.str(ix.Name)
		e.str(ix.Column)
		e.str(ix.Kind)
		e.str(ix.Prefix)
		bm, err := deletion.FromBitmap(ix.Fragments).MarshalBinary()
		if err != nil {
			return fmt.Errorf("table: index %s fragments: %w", ix.Name, err)
		}
		e.bytes(bm)
		e.uv(ix.DatasetVersion)
		e.bool(ix.Unique)
		if keys {
			e.uv(uint64(len(ix.Keys)))
			for _, k := range ix.Keys {
				e.str(k.Column)
				e.bool(k.Desc)
				e.bool(k.NullsFirst)
			}
		}
	}
	t := m.Txn
	e.str(t.Kind)
	e.uv(t.BaseVersion)
	for _, ids := range [][]uint32{t.Touched, t.Removed} {
		e.uv(uint64(len(ids)))
		for _, id := range ids {
			e.uv(uint64(id))
		}
	}
	e.uv(t.RowsAdded)
	e.uv(t.RowsDeleted)
	e.str(t.Detail)
	e.bytes(m.Extra)
	if c := t.Claim; c != nil {
		e.str(c.TxnID)
		e.str(c.Table)
		e.uv(c.Prev)
	}
	if m.format() >= constraintsManifestVersion {
		m.Constraints.encode(e)
	}
	return nil
}

// UnmarshalManifest decodes and fully validates a manifest: checksum,
// fragment ids ascending and below NextFragmentID, row id sequences as long
// as their fragments, deletions inside them, row ids below NextRowID.
func UnmarshalManifest(b []byte) (*Manifest, error) {
	if len(b) < manifestHeader+4 {
		return nil, errorf(ErrCorrupt, "manifest: %d bytes is too short", len(b))
	}
	if !bytes.Equal(b[:4], []byte(manifestMagic)) {
		return nil, errorf(ErrCorrupt, "manifest: bad magic %q", b[:4])
	}
	v := binary.LittleEndian.Uint16(b[4:])
	if v < oldestManifestVersion || v > constraintsClaimManifestVersion {
		if v == 1 {
			return nil, errorf(ErrCorrupt, "manifest: format version 1 predates data file checksums and is no longer read; recreate the table")
		}
		return nil, errorf(ErrCorrupt, "manifest: unsupported format version %d", v)
	}
	if fl := binary.LittleEndian.Uint16(b[6:]); fl != 0 {
		return nil, errorf(ErrCorrupt, "manifest: unknown flags %#x", fl)
	}
	n := uint64(binary.LittleEndian.Uint32(b[8:]))
	if n != uint64(len(b)-manifestHeader-4) {
		return nil, errorf(ErrCorrupt, "manifest: body length %d does not match file size %d", n, len(b))
	}
	crcAt := len(b) - 4
	if got, want := crc32.Checksum(b[:crcAt], castagnoli), binary.LittleEndian.Uint32(b[crcAt:]); got != want {
		return nil, errorf(ErrCorrupt, "manifest: checksum mismatch (%08x != %08x)", got, want)
	}
	d := &decoder{b: b[manifestHeader:crcAt]}
	m := decodeBody(d, v)
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, errorf(ErrCorrupt, "manifest: %d trailing bytes", len(d.b))
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	if len(m.Extra) > 0 {
		// The fragment reuse history is checked on read, not first use.
		if _, err := decodeHistory(m.Extra); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func decodeBody(d *decoder, version uint16) *Manifest {
	m := newManifest()
	m.Version = d.uv("version")
	m.TimestampNanos = d.i64("timestamp")
	m.Schema = decodeSchema(d)
	m.NextRowID = d.uv("next row id")
	m.NextFragmentID = d.u32("next fragment id")
	nf := d.count("fragment count", 6)
	for i := 0; i < nf && d.err == nil; i++ {
		f := &Fragment{}
		f.ID = d.u32("fragment id")
		f.DataFile = d.str("data file")
		f.PhysicalRows = d.uv("physical rows")
		f.BatchRows = d.uv("batch rows")
		ids := d.bytes("row ids")
		del := d.bytes("deletions")
		f.File = decodeDataFileInfo(d, version)
		if d.err != nil {
			break
		}
		var err error
		if f.RowIDs, err = rowid.UnmarshalSequence(ids); err != nil {
			d.err = fmt.Errorf("%w: manifest: fragment %d: %w", ErrCorrupt, f.ID, err)
			break
		}
		if len(del) > 0 {
			if f.Deletions, err = deletion.UnmarshalVector(del); err != nil {
				d.err = fmt.Errorf("%w: manifest: fragment %d: %w", ErrCorrupt, f.ID, err)
				break
			}
		}
		m.Fragments = append(m.Fragments, f)
	}
	ni := d.count("index count", 8)
	for i := 0; i < ni && d.err == nil; i++ {
		ix := &IndexMeta{}
		ix.Name = d.str("index name")
		ix.Column = d.str("index column")
		ix.Kind = d.str("index kind")
		ix.Prefix = d.str("index prefix")
		bm := d.bytes("index fragments")
		ix.DatasetVersion = d.uv("index version")
		ix.Unique = d.bool("index unique")
		if version >= keysManifestVersion {
			nk := d.count("index key count", 3)
			for j := 0; j < nk && d.err == nil; j++ {
				ix.Keys = append(ix.Keys, IndexKey{Column: d.str("index key column"), Desc: d.bool("index key desc"), NullsFirst: d.bool("index key nulls first")})
			}
		}
		if d.err != nil {
			break
		}
		v, err := deletion.UnmarshalVector(bm)
		if err != nil {
			d.err = fmt.Errorf("%w: manifest: index %q: %w", ErrCorrupt, ix.Name, err)
			break
		}
		if ix.Fragments = v.Bitmap(); ix.Fragments == nil {
			ix.Fragments = roaring.New() // covers nothing; never nil
		}
		m.Indexes = append(m.Indexes, ix)
	}
	m.Txn.Kind = d.str("txn kind")
	m.Txn.BaseVersion = d.uv("txn base")
	for _, dst := range []*[]uint32{&m.Txn.Touched, &m.Txn.Removed} {
		k := d.count("txn fragment list", 1)
		for j := 0; j < k && d.err == nil; j++ {
			*dst = append(*dst, d.u32("txn fragment"))
		}
	}
	m.Txn.RowsAdded = d.uv("txn rows added")
	m.Txn.RowsDeleted = d.uv("txn rows deleted")
	m.Txn.Detail = d.str("txn detail")
	m.Extra = d.bytes("extra")
	switch version {
	case 4, claimManifestVersion, keysClaimManifestVersion, constraintsClaimManifestVersion: // the formats with a claim
		m.Txn.Claim = &Claim{TxnID: d.str("claim txn id"), Table: d.str("claim table"), Prev: d.uv("claim prev")}
	}
	if version >= constraintsManifestVersion {
		m.Constraints = decodeConstraints(d)
	}
	return m
}

// validate checks the invariants every manifest must hold, on decode and
// before every commit.
func (m *Manifest) validate() error {
	if m.Schema == nil {
		return errorf(ErrCorrupt, "manifest: no schema")
	}
	if err := m.Constraints.validate(); err != nil {
		return errorf(ErrCorrupt, "manifest: %v", err)
	}
	var prev int64 = -1
	for _, f := range m.Fragments {
		if int64(f.ID) <= prev {
			return errorf(ErrCorrupt, "manifest: fragment ids not ascending at %d", f.ID)
		}
		prev = int64(f.ID)
		if f.ID >= m.NextFragmentID {
			return errorf(ErrCorrupt, "manifest: fragment id %d >= next fragment id %d", f.ID, m.NextFragmentID)
		}
		if f.DataFile == "" {
			return errorf(ErrCorrupt, "manifest: fragment %d has no data file", f.ID)
		}
		if f.RowIDs.Len() != f.PhysicalRows {
			return errorf(ErrCorrupt, "manifest: fragment %d has %d row ids for %d rows", f.ID, f.RowIDs.Len(), f.PhysicalRows)
		}
		if f.PhysicalRows > 1<<32 {
			return errorf(ErrCorrupt, "manifest: fragment %d has %d rows (> 2^32)", f.ID, f.PhysicalRows)
		}
		if f.PhysicalRows > 0 && (f.BatchRows == 0 || f.BatchRows > 1<<32) {
			return errorf(ErrCorrupt, "manifest: fragment %d has batch size %d", f.ID, f.BatchRows)
		}
		if err := f.File.validate(f, m.Schema.NumFields()); err != nil {
			return err
		}
		if err := f.File.validateZones(f, m.Schema); err != nil {
			return err
		}
		if bm := f.Deletions.Bitmap(); bm != nil && !bm.IsEmpty() && uint64(bm.Maximum()) >= f.PhysicalRows {
			return errorf(ErrCorrupt, "manifest: fragment %d deletes offset %d of %d rows", f.ID, bm.Maximum(), f.PhysicalRows)
		}
		if _, hi, ok := f.RowIDs.MinMax(); ok && hi >= m.NextRowID {
			return errorf(ErrCorrupt, "manifest: fragment %d has row id %d >= next row id %d", f.ID, hi, m.NextRowID)
		}
	}
	if c := m.Txn.Claim; c != nil {
		// A claim is applied on an older visible version, and names a
		// record the transaction store can hold.
		if !validTxnID(c.TxnID) || c.Table == "" || c.Prev == 0 || c.Prev >= m.Version {
			return errorf(ErrCorrupt, "manifest: version %d has a bad claim (transaction %q, table %q, prev %d)", m.Version, c.TxnID, c.Table, c.Prev)
		}
	}
	names := map[string]bool{}
	for _, ix := range m.Indexes {
		if ix.Name == "" || names[ix.Name] {
			return errorf(ErrCorrupt, "manifest: bad or duplicate index name %q", ix.Name)
		}
		names[ix.Name] = true
		if len(ix.Keys) > 0 && ix.Keys[0].Column != ix.Column {
			return errorf(ErrCorrupt, "manifest: index %q on column %q has first key column %q", ix.Name, ix.Column, ix.Keys[0].Column)
		}
		for _, k := range ix.KeyColumns() {
			if !slices.ContainsFunc(fullSchema(m.Schema).Fields(), func(f arrow.Field) bool { return f.Name == k.Column }) {
				return errorf(ErrCorrupt, "manifest: index %q on unknown column %q", ix.Name, k.Column)
			}
		}
	}
	return nil
}
