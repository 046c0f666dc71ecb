package table

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/stablerow/stablerow/table/deletion"
)

// TransitionKind says how a rewrite moved its rows, which decides how an
// old address is translated.
type TransitionKind uint8

const (
	// TransitionOrdered is an order-preserving rewrite (compaction): the
	// destinations, concatenated, hold the sources' live rows in source
	// order, so an address translates by rank over the source deletion
	// vectors with no per-row map.
	TransitionOrdered TransitionKind = 1
	// TransitionStablePartition is a reordered rewrite (recluster): each
	// live source row went to one destination, keeping source order within
	// it; the routing is recorded in a rowmap file.
	TransitionStablePartition TransitionKind = 2
)

func (k TransitionKind) String() string {
	switch k {
	case TransitionOrdered:
		return "ordered"
	case TransitionStablePartition:
		return "stable_partition"
	}
	return fmt.Sprintf("TransitionKind(%d)", uint8(k))
}

// TransitionSource is one source fragment of a rewrite as the rewrite read
// it. Deletions is the deletion vector the rewrite applied (rows deleted
// later are folded onto the destinations, not recorded here), and
// DeletionDigest is the CRC32C of its encoding, which a commit compares
// against the fragment's current vector to detect concurrent deletes.
type TransitionSource struct {
	Fragment       uint32
	PhysicalRows   uint64
	Deletions      *deletion.Vector // nil: nothing deleted
	DeletionDigest uint32
}

// LiveRows is the number of rows the rewrite moved out of this source.
func (s *TransitionSource) LiveRows() uint64 { return s.PhysicalRows - s.Deletions.Cardinality() }

// TransitionDest is one destination fragment and its row count.
type TransitionDest struct {
	Fragment uint32
	Rows     uint64
}

// Transition records one rewrite group: which fragments it replaced by
// which, and how rows moved. Sources are listed in the order the rewrite
// read them (ascending id); for a stable partition that is the rowmap's
// row order, and Destinations is the rowmap's destination list.
type Transition struct {
	Kind         TransitionKind
	Version      uint64 // the version that committed the rewrite
	Sources      []TransitionSource
	Destinations []TransitionDest
	RowMap       string // store path of the rowmap (stable partition only)
}

// SourceLiveRows is the number of rows the rewrite moved.
func (tr *Transition) SourceLiveRows() uint64 {
	var n uint64
	for i := range tr.Sources {
		n += tr.Sources[i].LiveRows()
	}
	return n
}

// DestinationRows is the number of rows the destinations received.
func (tr *Transition) DestinationRows() uint64 {
	var n uint64
	for _, d := range tr.Destinations {
		n += d.Rows
	}
	return n
}

// DeletionDigest is the digest a TransitionSource records for v: the
// CRC32C of its encoding (nil and empty vectors share one digest).
func DeletionDigest(v *deletion.Vector) (uint32, error) {
	b, err := v.MarshalBinary()
	if err != nil {
		return 0, err
	}
	return crc32.Checksum(b, castagnoli), nil
}

// newTransitionSource records f as a rewrite reads it.
func newTransitionSource(f *Fragment) (TransitionSource, error) {
	d, err := DeletionDigest(f.Deletions)
	if err != nil {
		return TransitionSource{}, fmt.Errorf("table: fragment %d deletions: %w", f.ID, err)
	}
	return TransitionSource{Fragment: f.ID, PhysicalRows: f.PhysicalRows, Deletions: f.Deletions, DeletionDigest: d}, nil
}

// History returns the fragment reuse history of the snapshot: the
// transitions of rewrites that deferred index remapping, oldest first.
func (t *Table) History() ([]Transition, error) {
	ts, err := decodeHistory(t.m.Extra)
	if err != nil {
		return nil, fmt.Errorf("version %d: %w", t.m.Version, err)
	}
	return ts, nil
}

// The history lives in Manifest.Extra (an empty Extra is an empty history).
// Layout (integers little-endian, uv = uvarint):
//
//	"SRFH" | u16 format version | u16 flags=0 | u32 body length | body | u32 crc32c
//
//	body:       uv count, count × transition
//	transition: u8 kind | uv version | uv #sources | sources | uv #dests | dests | uv len, rowmap path
//	source:     uv fragment | uv physical rows | u32 deletion digest | uv len, deletion vector (deletion codec; 0 = none)
//	dest:       uv fragment | uv rows
//
// The crc covers everything before it. Decoding validates every field:
// known kind, versions non-decreasing, fragment ids unique across all
// sources and destinations of a version, deletions inside their fragment
// and matching their digest, conservation (destination rows = live source
// rows), and a rowmap path exactly for stable partitions.
const (
	historyMagic   = "SRFH"
	historyVersion = 1
	historyHeader  = 4 + 2 + 2 + 4
)

// encodeHistory encodes ts; nil or empty gives nil (no Extra section).
func encodeHistory(ts []Transition) ([]byte, error) {
	if len(ts) == 0 {
		return nil, nil
	}
	var e encoder
	e.uv(uint64(len(ts)))
	for i := range ts {
		tr := &ts[i]
		e.b = append(e.b, byte(tr.Kind))
		e.uv(tr.Version)
		e.uv(uint64(len(tr.Sources)))
		for _, s := range tr.Sources {
			e.uv(uint64(s.Fragment))
			e.uv(s.PhysicalRows)
			e.b = binary.LittleEndian.AppendUint32(e.b, s.DeletionDigest)
			var dv []byte
			if !s.Deletions.IsEmpty() {
				var err error
				if dv, err = s.Deletions.MarshalBinary(); err != nil {
					return nil, fmt.Errorf("table: history: source %d deletions: %w", s.Fragment, err)
				}
			}
			e.bytes(dv)
		}
		e.uv(uint64(len(tr.Destinations)))
		for _, d := range tr.Destinations {
			e.uv(uint64(d.Fragment))
			e.uv(d.Rows)
		}
		e.str(tr.RowMap)
	}
	out := make([]byte, 0, historyHeader+len(e.b)+4)
	out = append(out, historyMagic...)
	out = binary.LittleEndian.AppendUint16(out, historyVersion)
	out = binary.LittleEndian.AppendUint16(out, 0)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(e.b)))
	out = append(out, e.b...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli)), nil
}

func historyErr(format string, args ...any) error {
	return fmt.Errorf("%w: fragment reuse history: "+format, append([]any{ErrCorrupt}, args...)...)
}

// decodeHistory decodes and validates an Extra section.
func decodeHistory(b []byte) ([]Transition, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if len(b) < historyHeader+4 {
		return nil, historyErr("%d bytes is too short", len(b))
	}
	if !bytes.Equal(b[:4], []byte(historyMagic)) {
		return nil, historyErr("bad magic %q", b[:4])
	}
	if v := binary.LittleEndian.Uint16(b[4:]); v != historyVersion {
		return nil, historyErr("unsupported format version %d", v)
	}
	if fl := binary.LittleEndian.Uint16(b[6:]); fl != 0 {
		return nil, historyErr("unknown flags %#x", fl)
	}
	if n := uint64(binary.LittleEndian.Uint32(b[8:])); n != uint64(len(b)-historyHeader-4) {
		return nil, historyErr("body length %d does not match size %d", n, len(b))
	}
	crcAt := len(b) - 4
	if got, want := crc32.Checksum(b[:crcAt], castagnoli), binary.LittleEndian.Uint32(b[crcAt:]); got != want {
		return nil, historyErr("checksum mismatch (%08x != %08x)", got, want)
	}
	d := &decoder{b: b[historyHeader:crcAt]}
	nt := d.count("transition count", 5)
	ts := make([]Transition, 0, nt)
	for i := 0; i < nt && d.err == nil; i++ {
		var tr Transition
		if len(d.b) < 1 {
			d.fail("transition kind")
			break
		}
		tr.Kind = TransitionKind(d.b[0])
		d.b = d.b[1:]
		tr.Version = d.uv("transition version")
		ns := d.count("source count", 7)
		for j := 0; j < ns && d.err == nil; j++ {
			var s TransitionSource
			s.Fragment = d.u32("source fragment")
			s.PhysicalRows = d.uv("source rows")
			if d.err == nil && len(d.b) < 4 {
				d.fail("deletion digest")
			}
			if d.err != nil {
				break
			}
			s.DeletionDigest = binary.LittleEndian.Uint32(d.b)
			d.b = d.b[4:]
			dv := d.bytes("source deletions")
			if d.err != nil {
				break
			}
			if len(dv) > 0 {
				v, err := deletion.UnmarshalVector(dv)
				if err != nil {
					return nil, historyErr("transition %d source %d: %w", i, s.Fragment, err)
				}
				if v.IsEmpty() {
					return nil, historyErr("transition %d source %d: empty deletion vector stored", i, s.Fragment)
				}
				s.Deletions = v
			}
			tr.Sources = append(tr.Sources, s)
		}
		nd := d.count("destination count", 2)
		for j := 0; j < nd && d.err == nil; j++ {
			tr.Destinations = append(tr.Destinations, TransitionDest{Fragment: d.u32("destination fragment"), Rows: d.uv("destination rows")})
		}
		tr.RowMap = d.str("rowmap path")
		ts = append(ts, tr)
	}
	if d.err != nil {
		return nil, fmt.Errorf("fragment reuse history: %w", d.err)
	}
	if len(d.b) != 0 {
		return nil, historyErr("%d trailing bytes", len(d.b))
	}
	if err := validateHistory(ts); err != nil {
		return nil, err
	}
	return ts, nil
}

// validateHistory checks the invariants of a history, on decode and before
// a commit writes one.
func validateHistory(ts []Transition) error {
	var seen map[uint32]bool
	for i := range ts {
		tr := &ts[i]
		if i == 0 || tr.Version != ts[i-1].Version {
			if i > 0 && tr.Version < ts[i-1].Version {
				return historyErr("transition %d: version %d after %d", i, tr.Version, ts[i-1].Version)
			}
			seen = map[uint32]bool{}
		}
		switch tr.Kind {
		case TransitionOrdered:
			if tr.RowMap != "" {
				return historyErr("transition %d: ordered transition names a rowmap", i)
			}
		case TransitionStablePartition:
			if tr.RowMap == "" {
				return historyErr("transition %d: stable partition without a rowmap", i)
			}
			if len(tr.Destinations) > 1<<16 {
				return historyErr("transition %d: %d destinations", i, len(tr.Destinations))
			}
		default:
			return historyErr("transition %d: unknown kind %d", i, uint8(tr.Kind))
		}
		if len(tr.Sources) == 0 {
			return historyErr("transition %d: no sources", i)
		}
		for _, s := range tr.Sources {
			if seen[s.Fragment] {
				return historyErr("transition %d: fragment %d appears twice in version %d", i, s.Fragment, tr.Version)
			}
			seen[s.Fragment] = true
			if s.PhysicalRows > 1<<32 {
				return historyErr("transition %d: source %d has %d rows", i, s.Fragment, s.PhysicalRows)
			}
			if bm := s.Deletions.Bitmap(); bm != nil && uint64(bm.Maximum()) >= s.PhysicalRows {
				return historyErr("transition %d: source %d deletes offset %d of %d rows", i, s.Fragment, bm.Maximum(), s.PhysicalRows)
			}
			dg, err := DeletionDigest(s.Deletions)
			if err != nil {
				return historyErr("transition %d: source %d: %w", i, s.Fragment, err)
			}
			if dg != s.DeletionDigest {
				return historyErr("transition %d: source %d deletion digest %08x, vector hashes to %08x", i, s.Fragment, s.DeletionDigest, dg)
			}
		}
		for _, dst := range tr.Destinations {
			if seen[dst.Fragment] {
				return historyErr("transition %d: fragment %d appears twice in version %d", i, dst.Fragment, tr.Version)
			}
			seen[dst.Fragment] = true
			if dst.Rows == 0 || dst.Rows > 1<<32 {
				return historyErr("transition %d: destination %d has %d rows", i, dst.Fragment, dst.Rows)
			}
		}
		if got, want := tr.DestinationRows(), tr.SourceLiveRows(); got != want {
			return historyErr("transition %d: destinations hold %d rows, sources had %d live", i, got, want)
		}
	}
	return nil
}

// appendHistory returns m's Extra with ts appended to its history.
func appendHistory(m *Manifest, ts []Transition) ([]byte, error) {
	old, err := decodeHistory(m.Extra)
	if err != nil {
		return nil, err
	}
	all := append(slices.Clone(old), ts...)
	if err := validateHistory(all); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConservation, err)
	}
	return encodeHistory(all)
}

// rowMapPaths lists the rowmap files m's history needs. Cleanup must keep
// them (they are referenced from Extra, not from a fragment or index).
func (m *Manifest) rowMapPaths() ([]string, error) {
	ts, err := decodeHistory(m.Extra)
	if err != nil {
		return nil, err
	}
	var ps []string
	for _, tr := range ts {
		if tr.RowMap != "" {
			ps = append(ps, tr.RowMap)
		}
	}
	return ps, nil
}

// pinned reports, per transition of ts, whether some index of m still
// needs it: an index built before the transition whose coverage (derived
// through the transitions before it) includes one of its sources. An index
// covering none of a transition's sources does not pin it.
func pinned(m *Manifest, ts []Transition) []bool {
	keep := make([]bool, len(ts))
	for _, ix := range m.Indexes {
		for i := range ts {
			tr := &ts[i]
			if tr.Version <= ix.DatasetVersion {
				continue
			}
			cov := DerivedCoverage(ix, ts[:i])
			if slices.ContainsFunc(tr.Sources, func(s TransitionSource) bool { return cov.Contains(s.Fragment) }) {
				keep[i] = true
			}
		}
	}
	return keep
}

// TrimHistory commits a version whose fragment reuse history keeps only
// the transitions some index still needs (see OptimizeIndex: once an index
// is rebuilt past a transition, nothing pins it). It returns t itself when
// nothing can go. Rowmaps of dropped transitions become orphans for
// Cleanup once no kept version names them.
func (t *Table) TrimHistory(ctx context.Context) (*Table, error) {
	ts, err := t.History()
	if err != nil {
		return nil, err
	}
	if !slices.Contains(pinned(t.m, ts), false) {
		return t, nil
	}
	return t.commit(ctx, &txn{kind: "trim", base: t.m, detail: "fragment reuse history",
		mutate: func(latest, next *Manifest) error {
			// Decide on the newest version: a concurrent index commit may
			// pin more, a concurrent rewrite may have added transitions.
			ts, err := decodeHistory(latest.Extra)
			if err != nil {
				return err
			}
			keep := pinned(latest, ts)
			var kept []Transition
			for i, tr := range ts {
				if keep[i] {
					kept = append(kept, tr)
				}
			}
			next.Extra, err = encodeHistory(kept)
			return err
		}})
}
