package table

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/stablerow/stablerow/errkind"
)

// fileChecks remembers which parts of mapped data files a Table snapshot
// has verified, so a warm take does not hash its batch again. Each part of
// a file goes through
//
//	unverified --crc32c matches--> verified (kept for the snapshot's life)
//	     |
//	     +------crc32c differs---> ErrCorrupt (nothing cached; retried next read)
//
// A mark is only as good as the bytes it was taken on: entries hold the
// mapping they verified and are dropped when the store hands out different
// bytes for the path (the memory store after a Put, say). The cache lives
// in the snapshot, not the process, so reopening a table re-verifies what
// it reads.
type fileChecks struct {
	mu sync.Mutex
	m  map[fileKey]*fileCheck
}

type fileKey struct {
	path string
	id   [16]byte
	tail uint32
}

// fileCheck is the verification state of one mapped data file: the tail,
// and each part of each batch (FormatSpans: the span, one part per batch;
// FormatColumns: the head, then each column, per batch).
type fileCheck struct {
	data  *byte // the mapping verified (identity, not contents)
	size  int
	tail  atomic.Bool
	per   int           // parts per batch
	parts []atomic.Bool // batch i's part k at i*per + k
}

// partsPerBatch is the number of separately checked parts of each batch.
func (fi *DataFileInfo) partsPerBatch(ncols int) int {
	if fi.Format == FormatColumns {
		return 1 + ncols
	}
	return 1
}

// get returns the state of the file at path as described by fi, over the
// mapped bytes data.
func (c *fileChecks) get(path string, fi *DataFileInfo, ncols int, data []byte) *fileCheck {
	k := fileKey{path: path, id: fi.ID, tail: fi.TailCRC}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[fileKey]*fileCheck{}
	}
	e := c.m[k]
	per := fi.partsPerBatch(ncols)
	if e == nil || e.data != unsafe.SliceData(data) || e.size != len(data) || e.per != per || len(e.parts) != per*len(fi.Spans) {
		e = &fileCheck{data: unsafe.SliceData(data), size: len(data), per: per, parts: make([]atomic.Bool, per*len(fi.Spans))}
		c.m[k] = e
	}
	return e
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
	if f.File.Format == FormatColumns && k > 0 {
		want = f.File.Spans[i].Cols[k-1].CRC
	}
	got := crc32c(data)
	if got == want {
		return nil
	}
	start, end := f.File.span(i)
	what := "batch"
	if f.File.Format == FormatColumns {
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
