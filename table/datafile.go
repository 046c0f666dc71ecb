package table

import (
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
)

// DataFileInfo binds a fragment to the exact bytes of its data file, so a
// flipped, truncated or swapped file is ErrCorrupt instead of wrong rows.
//
// The file (an Arrow IPC file, one record batch per take batch) is cut
// into spans that together cover every byte, one per batch:
//
//	0        Spans[0].End   Spans[1].End        Spans[n-1].End         Size
//	|  magic  |                   |  ...  |              |                |
//	| schema  |  batch 1 message  |       |   batch n-1  |  end marker,   |
//	| batch 0 |  and body         |       |              |  footer, magic |
//	+---------+-------------------+-------+--------------+----------------+
//	  Spans[0]      Spans[1]                 Spans[n-1]       TailCRC
//
// Format says how a span is checksummed (CRC32C, taken at write time):
//
//	FormatSpans (0):   one CRC over the whole span
//	FormatColumns (1), FormatEncoded (2):
//	                   the span is a head (IPC message prefix and metadata,
//	                   for batch 0 also the magic and schema message) and
//	                   one part per user column (its buffers in the body):
//
//	  span i:  | head (Head bytes) | column 0 | column 1 | ... | column k-1 |
//	             CRC                 Cols[0]    Cols[1]          Cols[k-1]
//
// so a scan of 4 of 16 columns hashes the head and those 4 parts only.
//
// A reader checks the size first, then the tail (footer: schema and the
// batch directory) before arrow-go parses it, then the parts of a batch it
// uses before the batch is decoded; a point take hashes only the spans it
// touches. ID is a random content id written into the file's schema
// metadata (metadataFileID) as well, so even two files with byte-identical
// footers have different tails: a swap is caught at open, naming the file.
// The format is in the schema metadata too (metadataFormat), so a manifest
// that describes a file with the other layout is caught at open as well.
type DataFileInfo struct {
	Size    uint64
	ID      [16]byte
	TailCRC uint32
	Format  DataFormat `json:",omitempty"`
	Spans   []Span     // one per IPC record batch, in order
	// Zones is the file's zone map (zonemap.go: per batch and column,
	// null count and bounds), framed and checksummed; nil for files
	// written before zone maps (manifest format versions before 5).
	Zones []byte `json:",omitempty"`
}

// DataFormat is the checksum layout of a data file.
type DataFormat uint8

const (
	// FormatSpans has one CRC per batch span (files of manifest format
	// version 2; still read).
	FormatSpans DataFormat = 0
	// FormatColumns has a CRC of each batch's head and of each column's
	// part of its body (written since manifest format version 3).
	FormatColumns DataFormat = 1
	// FormatEncoded is FormatColumns with each column of each batch one
	// light-weight encoded chunk (table/encoding) instead of its Arrow
	// buffers: the batch is an IPC batch of one row and one binary value
	// per user column, the chunk, so the spans, parts and CRCs are
	// FormatColumns' (written with Options.EncodedDataFiles).
	FormatEncoded DataFormat = 2
)

// columnar reports whether the file has a CRC per column part
// (FormatColumns and FormatEncoded).
func (fi *DataFileInfo) columnar() bool {
	return fi.Format == FormatColumns || fi.Format == FormatEncoded
}

// Span is the end offset (exclusive) and CRC32C of one record batch's
// bytes; the span starts where the previous one ends (offset 0 for the
// first). In FormatColumns, CRC covers the first Head bytes and Cols the
// rest, one part per user column in schema order.
type Span struct {
	End  uint64
	CRC  uint32
	Head uint64       `json:",omitempty"`
	Cols []ColumnPart `json:",omitempty"`
}

// ColumnPart is the length and CRC32C of one column's bytes in a batch
// body; it starts where the previous part (or the head) ends.
type ColumnPart struct {
	Len uint64
	CRC uint32
}

// metadataFormat is the schema metadata key of the data file format
// (absent in FormatSpans files).
const metadataFormat = "stablerow.format"

// metadataFileID is the schema metadata key of the content id.
const metadataFileID = "stablerow.file_id"

// minTail is the least a tail can hold: the 8-byte end-of-stream marker,
// a non-empty footer, its 4-byte length and the 6-byte magic.
const minTail = 8 + 1 + 4 + 6

// IDString is the content id in hex, as written in the schema metadata.
func (fi *DataFileInfo) IDString() string { return hex.EncodeToString(fi.ID[:]) }

// span returns the byte range of record batch i.
func (fi *DataFileInfo) span(i int) (start, end uint64) {
	if i > 0 {
		start = fi.Spans[i-1].End
	}
	return start, fi.Spans[i].End
}

// tailStart is where the footer region begins.
func (fi *DataFileInfo) tailStart() uint64 {
	if len(fi.Spans) == 0 {
		return 0
	}
	return fi.Spans[len(fi.Spans)-1].End
}

func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// partRange returns the byte range of part k of batch i in a
// FormatColumns file: k = 0 the head, k = 1+c column c.
func (fi *DataFileInfo) partRange(i, k int) (start, end uint64) {
	start, _ = fi.span(i)
	sp := &fi.Spans[i]
	if k == 0 {
		return start, start + sp.Head
	}
	start += sp.Head
	for _, p := range sp.Cols[:k-1] {
		start += p.Len
	}
	return start, start + sp.Cols[k-1].Len
}

// encode writes the DataFileInfo in the manifest's current format
// version: the format, then per span its end, CRC and (FormatColumns) the
// head length and the column parts.
func (fi *DataFileInfo) encode(e *encoder) {
	e.uv(fi.Size)
	e.b = append(e.b, fi.ID[:]...)
	e.u32(fi.TailCRC)
	e.uv(uint64(fi.Format))
	e.uv(uint64(len(fi.Spans)))
	var prev uint64
	for _, s := range fi.Spans {
		e.uv(s.End - prev)
		e.u32(s.CRC)
		prev = s.End
		if fi.columnar() {
			e.uv(s.Head)
			e.uv(uint64(len(s.Cols)))
			for _, p := range s.Cols {
				e.uv(p.Len)
				e.u32(p.CRC)
			}
		}
	}
	e.bytes(fi.Zones)
}

// decodeDataFileInfo reads what encode wrote; manifests of format version
// 2 have no format field (their files are all FormatSpans), and those
// before version 5 no zone maps.
func decodeDataFileInfo(d *decoder, version uint16) DataFileInfo {
	var fi DataFileInfo
	fi.Size = d.uv("data file size")
	copy(fi.ID[:], d.fixed("data file id", len(fi.ID)))
	fi.TailCRC = d.u32le("data file tail crc")
	if version >= 3 {
		f := d.uv("data file format")
		if f > uint64(FormatEncoded) {
			d.fail("data file format")
		}
		fi.Format = DataFormat(f)
	}
	n := d.count("data file span count", 5)
	if d.err != nil {
		return fi
	}
	fi.Spans = make([]Span, n)
	var prev uint64
	for i := range fi.Spans {
		delta := d.uv("data file span")
		if delta > math.MaxUint64-prev {
			d.fail("data file span")
		}
		prev += delta
		fi.Spans[i] = Span{End: prev, CRC: d.u32le("data file span crc")}
		if fi.columnar() {
			fi.Spans[i].Head = d.uv("data file span head")
			nc := d.count("data file column parts", 5)
			if d.err != nil {
				return fi
			}
			cols := make([]ColumnPart, nc)
			for c := range cols {
				cols[c] = ColumnPart{Len: d.uv("data file column part"), CRC: d.u32le("data file column part crc")}
			}
			fi.Spans[i].Cols = cols
		}
	}
	if version >= zoneManifestVersion {
		if z := d.bytes("data file zone map"); len(z) > 0 {
			fi.Zones = z
		}
	}
	return fi
}

// validate checks that the spans tile the file: one per batch, each
// non-empty, all inside the file and leaving room for a tail, and in
// FormatColumns that each span's head and ncols column parts tile it.
// Readers rely on it before they read any byte.
func (fi *DataFileInfo) validate(f *Fragment, ncols int) error {
	if want := batchCount(f.PhysicalRows, f.BatchRows); uint64(len(fi.Spans)) != want {
		return errorf(ErrCorrupt, "manifest: fragment %d has %d data file spans for %d batches", f.ID, len(fi.Spans), want)
	}
	if fi.Format > FormatEncoded {
		return errorf(ErrCorrupt, "manifest: fragment %d: unknown data file format %d", f.ID, fi.Format)
	}
	var prev uint64
	for i, s := range fi.Spans {
		if s.End <= prev {
			return errorf(ErrCorrupt, "manifest: fragment %d span %d is empty or out of order", f.ID, i)
		}
		if err := fi.validateParts(f, i, s.End-prev, ncols); err != nil {
			return err
		}
		prev = s.End
	}
	if fi.Size < prev || fi.Size-prev < minTail {
		return errorf(ErrCorrupt, "manifest: fragment %d spans end at %d, leaving no footer in a %d-byte file", f.ID, prev, fi.Size)
	}
	return nil
}

// validateZones checks that the zone map, when there is one, is framed
// for f's batches and the schema's columns: magic, format, checksum,
// counts and every length. The bounds themselves (min <= max) are
// checked where a scan decodes the columns it prunes on, so opening a
// version does not box every bound of every fragment.
func (fi *DataFileInfo) validateZones(f *Fragment, s *arrow.Schema) error {
	if fi.Zones == nil {
		return nil
	}
	types := userTypes(s)
	if _, err := decodeZoneMap(fi.Zones, types, batchRowCounts(f), make([]bool, len(types))); err != nil {
		return fmt.Errorf("manifest: fragment %d: %w", f.ID, err)
	}
	return nil
}

// minHead is the least a batch's head can hold: the IPC continuation
// marker and metadata length, and some metadata.
const minHead = 8 + 1

func (fi *DataFileInfo) validateParts(f *Fragment, i int, n uint64, ncols int) error {
	s := &fi.Spans[i]
	if fi.Format == FormatSpans {
		if s.Head != 0 || s.Cols != nil {
			return errorf(ErrCorrupt, "manifest: fragment %d span %d has column parts in a file without them", f.ID, i)
		}
		return nil
	}
	if len(s.Cols) != ncols {
		return errorf(ErrCorrupt, "manifest: fragment %d span %d has %d column parts for %d columns", f.ID, i, len(s.Cols), ncols)
	}
	if s.Head < minHead || s.Head > n {
		return errorf(ErrCorrupt, "manifest: fragment %d span %d: head of %d bytes in a %d-byte span", f.ID, i, s.Head, n)
	}
	left := n - s.Head
	for c, p := range s.Cols {
		if p.Len > left {
			return errorf(ErrCorrupt, "manifest: fragment %d span %d: column %d's part runs past the span", f.ID, i, c)
		}
		left -= p.Len
	}
	if left != 0 {
		return errorf(ErrCorrupt, "manifest: fragment %d span %d: column parts leave %d bytes unchecked", f.ID, i, left)
	}
	return nil
}

// batchCount is the number of IPC batches of a fragment.
func batchCount(rows, batchRows uint64) uint64 {
	if rows == 0 {
		return 0
	}
	return (rows + batchRows - 1) / batchRows
}
