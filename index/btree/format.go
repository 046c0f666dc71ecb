package btree

import (
	"encoding/binary"
	"hash/crc32"
	"math"
)

// An index is two immutable files under its prefix:
//
//	<prefix>pages.srbt   header, then the pages back to back
//	<prefix>lookup.srbt  the page lookup, read once at Open
//
// Both start with the 8-byte header
//
//	"SRBT" | u16 format version | u8 file kind (1 lookup, 2 pages) | u8 key kind
//
// The lookup file continues (integers little-endian, uvarints as in
// encoding/binary):
//
//	uvarint page rows (the PageRows it was built with)
//	uvarint size of the pages file in bytes
//	uvarint len(column), column bytes
//	version 2 only: uvarint nparts (1..32), then per key column:
//	    uvarint len(name), name bytes, u8 key kind, u8 flags (1 DESC,
//	    2 NULLS FIRST)
//	uvarint nfragments, nfragments x uvarint fragment id (ascending)
//	uvarint dataset version
//	uvarint npages, then per page:
//	    uvarint rows, uvarint null count, uvarint offset, uvarint length, u32 CRC32C
//	    non-null pages only: min, max (integer keys: u64 ordered key each;
//	    string keys: uvarint length + bytes each)
//	u32 CRC32C of everything above | "SRBT"
//
// Null keys sort first and fill whole pages of their own (null count ==
// rows; the last of them may be short), so every other page has null
// count 0 and a min and max. Open checks the magic at both ends, version,
// kinds, the CRC, and every page's offset and length against the actual
// size of the pages file; pages must tile the file after its header, and
// mins/maxs must be ordered. A page's CRC is checked when it is read.
//
// Version 2 added composite keys (key kind 12, composite.go): the key
// columns and their orders follow the column name. A one-column index is
// still written as version 1, which every reader of version 2 reads, so
// such an index stays readable by older binaries; both files of an index
// carry the same version.
const (
	magic = "SRBT"

	// FormatVersion is the newest version this package writes (for a
	// composite index); it reads it and version 1.
	FormatVersion = 2
	// formatV1 is the one-column format.
	formatV1 = 1

	fileLookup = 1
	filePages  = 2

	headerSize = 8

	lookupName = "lookup.srbt"
	pagesName  = "pages.srbt"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

func appendHeader(dst []byte, fileKind uint8, kind keyKind, version uint16) []byte {
	dst = append(dst, magic...)
	dst = binary.LittleEndian.AppendUint16(dst, version)
	return append(dst, fileKind, byte(kind))
}

// checkHeader checks a file's header and returns its key kind and format
// version. A composite key kind needs version 2.
func checkHeader(b []byte, fileKind uint8) (keyKind, uint16, error) {
	if len(b) < headerSize {
		return 0, 0, corruptf("file shorter than its header")
	}
	if string(b[:4]) != magic {
		return 0, 0, formatf("bad magic %q", b[:4])
	}
	v := binary.LittleEndian.Uint16(b[4:])
	if v != formatV1 && v != FormatVersion {
		return 0, 0, formatf("unsupported version %d", v)
	}
	if b[6] != fileKind {
		return 0, 0, formatf("file kind %d, want %d", b[6], fileKind)
	}
	k := keyKind(b[7])
	if k.dataType() == nil || k == kindComposite && v < FormatVersion {
		return 0, 0, formatf("unknown key kind %d in a version %d file", b[7], v)
	}
	return k, v, nil
}

// pageRef locates one page in the pages file.
type pageRef struct {
	off    int64
	length uint32
	rows   uint32
	nulls  uint32
	crc    uint32
}

// lookup is the decoded lookup file: everything Open keeps resident.
type lookup struct {
	kind      keyKind
	pageRows  int
	pagesSize int64
	meta      Meta
	pages     []pageRef
	nullPages int      // pages[:nullPages] hold the null keys
	umin      []uint64 // integer keys: per page (zero for null pages)
	umax      []uint64
	smin      []string // string keys
	smax      []string
	rows      int64
	parts     []part // a composite key's columns (version 2), else nil
}

// version is the format the lookup is written in: 2 for a composite key,
// else 1 (readable by binaries that predate version 2).
func (l *lookup) version() uint16 {
	if l.kind == kindComposite {
		return FormatVersion
	}
	return formatV1
}

func (l *lookup) encode() []byte {
	b := appendHeader(nil, fileLookup, l.kind, l.version())
	b = binary.AppendUvarint(b, uint64(l.pageRows))
	b = binary.AppendUvarint(b, uint64(l.pagesSize))
	b = binary.AppendUvarint(b, uint64(len(l.meta.Column)))
	b = append(b, l.meta.Column...)
	if l.version() >= FormatVersion {
		b = binary.AppendUvarint(b, uint64(len(l.parts)))
		for _, p := range l.parts {
			b = binary.AppendUvarint(b, uint64(len(p.Column)))
			b = append(b, p.Column...)
			b = append(b, byte(p.kind), p.flags())
		}
	}
	b = binary.AppendUvarint(b, uint64(len(l.meta.FragmentIDs)))
	for _, f := range l.meta.FragmentIDs {
		b = binary.AppendUvarint(b, uint64(f))
	}
	b = binary.AppendUvarint(b, l.meta.DatasetVersion)
	b = binary.AppendUvarint(b, uint64(len(l.pages)))
	for i, p := range l.pages {
		b = binary.AppendUvarint(b, uint64(p.rows))
		b = binary.AppendUvarint(b, uint64(p.nulls))
		b = binary.AppendUvarint(b, uint64(p.off))
		b = binary.AppendUvarint(b, uint64(p.length))
		b = binary.LittleEndian.AppendUint32(b, p.crc)
		if i < l.nullPages {
			continue
		}
		if l.kind.stringy() {
			b = binary.AppendUvarint(b, uint64(len(l.smin[i])))
			b = append(b, l.smin[i]...)
			b = binary.AppendUvarint(b, uint64(len(l.smax[i])))
			b = append(b, l.smax[i]...)
		} else {
			b = binary.LittleEndian.AppendUint64(b, l.umin[i])
			b = binary.LittleEndian.AppendUint64(b, l.umax[i])
		}
	}
	b = binary.LittleEndian.AppendUint32(b, crc(b))
	return append(b, magic...)
}

// decodeLookup parses and validates a lookup file. pagesSize is the actual
// size of the pages file, or -1 to trust the recorded one (fuzzing).
func decodeLookup(b []byte, pagesSize int64) (*lookup, error) {
	kind, version, err := checkHeader(b, fileLookup)
	if err != nil {
		return nil, err
	}
	if len(b) < headerSize+8 {
		return nil, corruptf("lookup truncated")
	}
	if string(b[len(b)-4:]) != magic {
		return nil, formatf("bad trailing magic")
	}
	body := b[:len(b)-8]
	if crc(body) != binary.LittleEndian.Uint32(b[len(b)-8:]) {
		return nil, corruptf("lookup checksum mismatch")
	}
	r := reader{b: body[headerSize:]}
	l := &lookup{kind: kind}
	pr := r.uvarint()
	if pr == 0 || pr > maxPageRows {
		return nil, corruptf("bad page rows %d", pr)
	}
	l.pageRows = int(pr)
	ps := r.uvarint()
	if ps > math.MaxInt64 {
		return nil, corruptf("bad pages file size")
	}
	l.pagesSize = int64(ps)
	if pagesSize >= 0 && l.pagesSize != pagesSize {
		return nil, corruptf("pages file is %d bytes, lookup says %d", pagesSize, l.pagesSize)
	}
	l.meta.Column = string(r.bytes(r.uvarint()))
	if version >= FormatVersion {
		if err := l.decodeParts(&r); err != nil {
			return nil, err
		}
	}
	nf := r.uvarint()
	if nf > uint64(r.left()) {
		return nil, corruptf("bad fragment count")
	}
	l.meta.FragmentIDs = make([]uint32, nf)
	for i := range l.meta.FragmentIDs {
		f := r.uvarint()
		if f > math.MaxUint32 || i > 0 && uint32(f) <= l.meta.FragmentIDs[i-1] {
			return nil, corruptf("bad fragment id list")
		}
		l.meta.FragmentIDs[i] = uint32(f)
	}
	l.meta.DatasetVersion = r.uvarint()
	np := r.uvarint()
	if np > uint64(r.left())/8 {
		return nil, corruptf("bad page count")
	}
	l.pages = make([]pageRef, np)
	if kind.stringy() {
		l.smin, l.smax = make([]string, np), make([]string, np)
	} else {
		l.umin, l.umax = make([]uint64, np), make([]uint64, np)
	}
	end := int64(headerSize)
	nullsDone := false
	for i := range l.pages {
		rows, nulls, off, length := r.uvarint(), r.uvarint(), r.uvarint(), r.uvarint()
		c := r.u32()
		if r.err != nil {
			break
		}
		switch {
		case rows == 0 || rows > uint64(l.pageRows):
			return nil, corruptf("page %d: bad row count %d", i, rows)
		case off != uint64(end) || length == 0 || length > math.MaxUint32 || length > uint64(l.pagesSize-end):
			return nil, corruptf("page %d: range [%d,+%d) not the next slice of a %d-byte file", i, off, length, l.pagesSize)
		case nulls != 0 && (nulls != rows || nullsDone || kind == kindComposite): // a composite key is never NULL
			return nil, corruptf("page %d: bad null count %d", i, nulls)
		}
		l.pages[i] = pageRef{off: int64(off), length: uint32(length), rows: uint32(rows), nulls: uint32(nulls), crc: c}
		end += int64(length)
		l.rows += int64(rows)
		if nulls > 0 {
			l.nullPages++
			continue
		}
		nullsDone = true
		if kind.stringy() {
			l.smin[i] = string(r.bytes(r.uvarint()))
			l.smax[i] = string(r.bytes(r.uvarint()))
			if l.smin[i] > l.smax[i] || i > l.nullPages && l.smin[i] < l.smax[i-1] {
				return nil, corruptf("page %d: keys out of order", i)
			}
		} else {
			l.umin[i], l.umax[i] = r.u64(), r.u64()
			if l.umin[i] > l.umax[i] || i > l.nullPages && l.umin[i] < l.umax[i-1] {
				return nil, corruptf("page %d: keys out of order", i)
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.left() != 0 {
		return nil, corruptf("%d trailing lookup bytes", r.left())
	}
	if end != l.pagesSize {
		return nil, corruptf("pages cover %d of %d bytes", end, l.pagesSize)
	}
	return l, nil
}

// decodeParts reads a version 2 lookup's key columns: none for a
// one-column key kind, 1 to maxKeyParts for a composite one, each a named
// column of a one-column key kind with known flags, the first named as
// the index's column.
func (l *lookup) decodeParts(r *reader) error {
	n := r.uvarint()
	if r.err != nil {
		return r.err
	}
	if (n == 0) != (l.kind != kindComposite) || n > maxKeyParts {
		return corruptf("%d key columns for key kind %d", n, l.kind)
	}
	if n == 0 {
		return nil
	}
	l.parts = make([]part, n)
	for i := range l.parts {
		name := string(r.bytes(r.uvarint()))
		kind, flags := keyKind(r.u8()), r.u8()
		if r.err != nil {
			return r.err
		}
		if name == "" || kind == kindComposite || kind.dataType() == nil || flags&^(partDesc|partNullsFirst) != 0 {
			return corruptf("key column %d: name %q, kind %d, flags %#x", i, name, kind, flags)
		}
		l.parts[i] = part{KeyPart: KeyPart{Column: name, Desc: flags&partDesc != 0, NullsFirst: flags&partNullsFirst != 0}, kind: kind}
	}
	if l.parts[0].Column != l.meta.Column {
		return corruptf("first key column %q, index column %q", l.parts[0].Column, l.meta.Column)
	}
	l.meta.Keys = keyParts(l.parts)
	return nil
}

// reader is a bounds-checked cursor; the first failure sticks in err.
type reader struct {
	b   []byte
	err error
}

func (r *reader) left() int { return len(r.b) }

func (r *reader) fail() {
	if r.err == nil {
		r.err = corruptf("lookup truncated")
	}
	r.b = nil
}

func (r *reader) uvarint() uint64 {
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *reader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() uint8 {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) u32() uint32 {
	if len(r.b) < 4 {
		r.fail()
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *reader) u64() uint64 {
	if len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func formatf(format string, args ...any) error {
	return fmtErr(ErrFormat, format, args...)
}
