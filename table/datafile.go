package table

import (
	"encoding/hex"
	"hash/crc32"
	"math"
)

// DataFileInfo binds a fragment to the exact bytes of its data file, so a
// flipped, truncated or swapped file is ErrCorrupt instead of wrong rows.
//
// The file (an Arrow IPC file, one record batch per take batch) is cut
// into spans that together cover every byte; each span has a CRC32C taken
// at write time:
//
//	0        Spans[0].End   Spans[1].End        Spans[n-1].End         Size
//	|  magic  |                   |  ...  |              |                |
//	| schema  |  batch 1 message  |       |   batch n-1  |  end marker,   |
//	| batch 0 |  and body         |       |              |  footer, magic |
//	+---------+-------------------+-------+--------------+----------------+
//	  Spans[0]      Spans[1]                 Spans[n-1]       TailCRC
//
// A reader checks the size first, then the tail (footer: schema and the
// batch directory) before arrow-go parses it, then each span before the
// batch in it is decoded; a point take hashes only the spans it touches.
// ID is a random content id written into the file's schema metadata
// (metadataFileID) as well, so even two files with byte-identical footers
// have different tails: a swap is caught at open, naming the file.
type DataFileInfo struct {
	Size    uint64
	ID      [16]byte
	TailCRC uint32
	Spans   []Span // one per IPC record batch, in order
}

// Span is the end offset (exclusive) and CRC32C of one record batch's
// bytes; the span starts where the previous one ends (offset 0 for the
// first).
type Span struct {
	End uint64
	CRC uint32
}

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

func (fi *DataFileInfo) encode(e *encoder) {
	e.uv(fi.Size)
	e.b = append(e.b, fi.ID[:]...)
	e.u32(fi.TailCRC)
	e.uv(uint64(len(fi.Spans)))
	var prev uint64
	for _, s := range fi.Spans {
		e.uv(s.End - prev)
		e.u32(s.CRC)
		prev = s.End
	}
}

func decodeDataFileInfo(d *decoder) DataFileInfo {
	var fi DataFileInfo
	fi.Size = d.uv("data file size")
	copy(fi.ID[:], d.fixed("data file id", len(fi.ID)))
	fi.TailCRC = d.u32le("data file tail crc")
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
	}
	return fi
}

// validate checks that the spans tile the file: one per batch, each
// non-empty, all inside the file and leaving room for a tail. Readers rely
// on it before they read any byte.
func (fi *DataFileInfo) validate(f *Fragment) error {
	if want := batchCount(f.PhysicalRows, f.BatchRows); uint64(len(fi.Spans)) != want {
		return errorf(ErrCorrupt, "manifest: fragment %d has %d data file spans for %d batches", f.ID, len(fi.Spans), want)
	}
	var prev uint64
	for i, s := range fi.Spans {
		if s.End <= prev {
			return errorf(ErrCorrupt, "manifest: fragment %d span %d is empty or out of order", f.ID, i)
		}
		prev = s.End
	}
	if fi.Size < prev || fi.Size-prev < minTail {
		return errorf(ErrCorrupt, "manifest: fragment %d spans end at %d, leaving no footer in a %d-byte file", f.ID, prev, fi.Size)
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
