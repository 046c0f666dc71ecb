package table

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/table/store"
)

// fileChecks remembers which parts of a mapped data file have been
// verified. Each part goes through
//
//	unverified --crc32c matches--> verified (kept as long as the mapping)
//	     |
//	     +------crc32c differs---> ErrCorrupt (nothing cached; retried next read)
//
// A mark is only as good as the bytes it was taken on, so the marks live
// in the store.Mapping's memo: every snapshot and query reading the same
// mapped bytes shares them (data files are immutable; a Local mapping is
// made once per process), and new bytes for the path (the memory store
// after a Put) come with a new Mapping and no marks. A mark is also only
// as good as the manifest entry it was checked against: the marks of a
// file are kept per description (content id, tail CRC, spans and their
// parts, column types), and a manifest describing the same file otherwise
// starts from none.
//
// The lifetime is the mapping's, not the snapshot's: bytes that change
// under a live mapping after they were verified (a file rewritten in place,
// which the table never does) are not hashed again by this process. That
// stays so when readers drop mapped pages behind them (store.Mapping.Drop):
// a dropped page is read back from the same immutable file, as when the
// kernel reclaims it, and the mapping and its marks remain.
type fileChecks struct {
	mu sync.Mutex
	m  map[fileKey]*fileCheck
}

type fileKey struct {
	id     [16]byte
	tail   uint32
	size   uint64
	format DataFormat
	per    int
}

// checksKey is the memo key of a mapping's fileChecks.
type checksKey struct{}

// fileCheck is the verification state of one mapped data file as one
// description says it is: the tail and schema, and each part of each
// batch (FormatSpans: the span, one part per batch; FormatColumns: the
// head, then each column, per batch).
type fileCheck struct {
	spans []Span           // the description the marks were taken against
	types []arrow.DataType // its columns
	last  atomic.Pointer[DataFileInfo]
	tail  atomic.Bool     // size, tail CRC and the footer's schema checked
	per   int             // parts per batch
	parts []atomic.Uint32 // batch i's part k at i*per + k: markHashed | markDecoded
}

// The marks of a part: its CRC matched (markHashed); a column part also
// decoded once with every check batchSpan makes (markDecoded).
const (
	markHashed uint32 = 1 << iota
	markDecoded
)

// partsPerBatch is the number of separately checked parts of each batch.
func (fi *DataFileInfo) partsPerBatch(ncols int) int {
	if fi.columnar() {
		return 1 + ncols
	}
	return 1
}

// checksOf returns the verification state of the mapped file m as fi and
// the columns of schema us describe it.
func checksOf(m *store.Mapping, fi *DataFileInfo, us *arrow.Schema) *fileCheck {
	c := m.Memo(checksKey{}, func() any { return &fileChecks{m: map[fileKey]*fileCheck{}} }).(*fileChecks)
	per := fi.partsPerBatch(us.NumFields())
	k := fileKey{id: fi.ID, tail: fi.TailCRC, size: fi.Size, format: fi.Format, per: per}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[k]
	if e != nil && e.last.Load() == fi {
		return e // this manifest entry matched before
	}
	if e == nil || !e.describedBy(fi, us) {
		e = &fileCheck{spans: fi.Spans, per: per, parts: make([]atomic.Uint32, per*len(fi.Spans)), types: fileTypes(fi, us)}
		c.m[k] = e
	}
	e.last.Store(fi)
	return e
}

// describedBy reports whether fi and us describe the file exactly as the
// entry's marks were taken against.
func (e *fileCheck) describedBy(fi *DataFileInfo, us *arrow.Schema) bool {
	if len(e.types) != us.NumFields() || !slices.EqualFunc(e.spans, fi.Spans, func(a, b Span) bool {
		return a.End == b.End && a.CRC == b.CRC && a.Head == b.Head && slices.Equal(a.Cols, b.Cols)
	}) {
		return false
	}
	for i, t := range fileTypes(fi, us) {
		if !arrow.TypeEqual(e.types[i], t) {
			return false
		}
	}
	return true
}

// checkTail verifies the size of a mapped file and its footer region.
func checkTail(f *Fragment, data []byte) error {
	if uint64(len(data)) != f.File.Size {
		return errorf(ErrCorrupt, "fragment %d: data file %s is %d bytes, the manifest says %d", f.ID, f.DataFile, len(data), f.File.Size)
	}
	return checkTailCRC(f, data[f.File.tailStart():])
}

// checkTailCRC verifies the footer region's bytes (tail holds exactly them).
func checkTailCRC(f *Fragment, tail []byte) error {
	if got := crc32c(tail); got != f.File.TailCRC {
		return errorf(ErrCorrupt, "fragment %d: data file %s: footer checksum mismatch (%08x != %08x): damaged or not this fragment's file",
			f.ID, f.DataFile, got, f.File.TailCRC)
	}
	return nil
}

// checkPart verifies part k of record batch i: data holds exactly its
// bytes, the whole span in FormatSpans, else the head (k = 0) or column
// k-1's part.
func checkPart(f *Fragment, i, k int, data []byte) error {
	want := f.File.Spans[i].CRC
	if f.File.columnar() && k > 0 {
		want = f.File.Spans[i].Cols[k-1].CRC
	}
	got := crc32c(data)
	if got == want {
		return nil
	}
	start, end := f.File.span(i)
	what := "batch"
	if f.File.columnar() {
		start, end = f.File.partRange(i, k)
		what = "head of batch"
		if k > 0 {
			what = fmt.Sprintf("column %d of batch", k-1)
		}
	}
	return errorf(ErrCorrupt, "fragment %d: data file %s: %s %d (bytes [%d, %d)) checksum mismatch (%08x != %08x)",
		f.ID, f.DataFile, what, i, start, end, got, want)
}

// verifiedReader is what arrow-go reads a data file through when the store
// cannot map it: it answers only from byte ranges already verified (the
// footer region, and the span of the batch being decoded), so unverified
// bytes never reach the IPC decoder. Reads elsewhere fail; arrow-go then
// reports an error, which the reader turns into ErrCorrupt.
type verifiedReader struct {
	size   int64
	tail   window
	window window // the current batch's span, empty between batches
	pos    int64
}

type window struct {
	off  int64
	data []byte
}

func (w window) covers(off, n int64) bool {
	return w.data != nil && off >= w.off && n <= int64(len(w.data)) && off-w.off <= int64(len(w.data))-n
}

func (r *verifiedReader) ReadAt(p []byte, off int64) (int, error) {
	n := int64(len(p))
	for _, w := range []window{r.window, r.tail} {
		if w.covers(off, n) {
			return copy(p, w.data[off-w.off:]), nil
		}
	}
	return 0, fmt.Errorf("%w: table: read of %d bytes at %d outside the verified parts of the data file", errkind.Corrupt, n, off)
}

func (r *verifiedReader) Read(p []byte) (int, error) {
	n, err := r.ReadAt(p, r.pos)
	r.pos += int64(n)
	return n, err
}

func (r *verifiedReader) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += r.pos
	case io.SeekEnd:
		off += r.size
	default:
		return 0, fmt.Errorf("%w: table: seek whence %d", errkind.InvalidArgument, whence)
	}
	if off < 0 {
		return 0, fmt.Errorf("%w: table: seek to %d", errkind.InvalidArgument, off)
	}
	r.pos = off
	return off, nil
}
