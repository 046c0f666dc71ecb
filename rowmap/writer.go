package rowmap

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
)

// File layout (little endian):
//
//	+0   magic "STBLRMAP"                         [8]
//	     block 0 .. block n-1 (see block.go)
//	     destinations   m × u32 fragment ids
//	     counts         CountsMatrix encoding (counts.go)
//	     directory      (n+1) × u64 block start offsets (last = end of blocks)
//	     footer:
//	       destinations offset  u64
//	       counts offset        u64
//	       directory offset     u64
//	       format version       u32
//	       CRC32C of tail       u32  (destinations..footer version)
//	       magic "STBLRMAP"     [8]
const (
	fileMagic   = "STBLRMAP"
	fileVersion = 1
	footerSize  = 8 + 8 + 8 + 4 + 4 + 8
)

// SourceFragment describes one source fragment in scan order.
type SourceFragment struct {
	PhysicalRows uint64
	Deleted      *roaring.Bitmap // deleted offsets; nil = none
}

// WriterOptions tunes a Writer.
type WriterOptions struct {
	// BlockSize overrides BlockSize (tests only); 0 = BlockSize.
	BlockSize int
	// ExpectedTotals, when set, are the destination row counts Finish checks.
	ExpectedTotals []uint32
}

// Writer builds a row map file from the labels of live rows.
type Writer struct {
	dests   []uint32
	sources []SourceFragment
	opts    WriterOptions
	bs      int
	total   uint64

	frag    int    // current source fragment
	fragOff uint64 // offset within it
	delFrag int    // 1 + the fragment delIt walks (0: none yet)
	delIt   roaring.IntPeekable
	nextDel uint64 // its next deleted offset (MaxUint64: none)
	block   []uint32
	enc     *encodeScratch // encodeBlock's tables, made at the first block
	counts  *CountsBuilder
	out     []byte
	dir     []uint64
	err     error
	done    bool
}

// NewWriter starts a map over the destination fragment ids and sources.
func NewWriter(destinations []uint32, sources []SourceFragment, opts WriterOptions) (*Writer, error) {
	if len(destinations) > MaxDestinations {
		return nil, fmt.Errorf("%w: %d destinations > %d", ErrInvalidArgument, len(destinations), MaxDestinations)
	}
	bs := opts.BlockSize
	if bs == 0 {
		bs = BlockSize
	}
	if bs < 0 || bs > 1<<24 {
		return nil, fmt.Errorf("%w: block size %d", ErrInvalidArgument, bs)
	}
	if opts.ExpectedTotals != nil && len(opts.ExpectedTotals) != len(destinations) {
		return nil, fmt.Errorf("%w: %d expected totals for %d destinations", ErrInvalidArgument, len(opts.ExpectedTotals), len(destinations))
	}
	var total uint64
	for i, s := range sources {
		if s.Deleted != nil && !s.Deleted.IsEmpty() && uint64(s.Deleted.Maximum()) >= s.PhysicalRows {
			return nil, fmt.Errorf("%w: source %d deletes offset %d of %d rows", ErrConservation, i, s.Deleted.Maximum(), s.PhysicalRows)
		}
		total += s.PhysicalRows
	}
	w := &Writer{
		dests: append([]uint32(nil), destinations...), sources: sources, opts: opts, bs: bs, total: total,
		block: make([]uint32, 0, bs), counts: NewCountsBuilder(len(destinations), bs),
	}
	w.out = append(w.out, fileMagic...)
	return w, nil
}

// nextRowDeleted advances past the current source row and reports whether it
// was deleted; ok=false at the end of all sources.
func (w *Writer) nextRow() (deleted, ok bool) {
	for w.frag < len(w.sources) && w.fragOff >= w.sources[w.frag].PhysicalRows {
		w.frag++
		w.fragOff = 0
	}
	if w.frag == len(w.sources) {
		return false, false
	}
	if w.delFrag != w.frag+1 {
		// Entering a fragment: its deleted offsets are walked in order with
		// an iterator, not looked up per row.
		w.delFrag, w.nextDel, w.delIt = w.frag+1, math.MaxUint64, nil
		if del := w.sources[w.frag].Deleted; del != nil && !del.IsEmpty() {
			w.delIt = del.Iterator()
			w.nextDel = uint64(w.delIt.Next())
		}
	}
	d := w.fragOff == w.nextDel
	if d {
		w.nextDel = math.MaxUint64
		if w.delIt.HasNext() {
			w.nextDel = uint64(w.delIt.Next())
		}
	}
	w.fragOff++
	return d, true
}

func (w *Writer) push(l uint32) {
	w.block = append(w.block, l)
	if l == NullLabel {
		w.counts.AddNull()
	} else {
		w.counts.Add(uint16(l))
	}
	if len(w.block) == w.bs {
		w.flush()
	}
}

func (w *Writer) flush() {
	if len(w.block) == 0 {
		return
	}
	w.dir = append(w.dir, uint64(len(w.out)))
	if w.enc == nil {
		w.enc = new(encodeScratch)
	}
	w.out = encodeBlock(w.out, w.block, uint32(len(w.dests)), w.enc)
	w.block = w.block[:0]
}

// Append records the labels of the next live rows, in source order.
func (w *Writer) Append(labels []uint16) error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return fmt.Errorf("%w: append after finish", ErrInvalidArgument)
	}
	m := len(w.dests)
	for _, l := range labels {
		if int(l) >= m {
			w.err = fmt.Errorf("%w: label %d ≥ %d destinations", ErrInvalidArgument, l, m)
			return w.err
		}
		for {
			del, ok := w.nextRow()
			if !ok {
				w.err = fmt.Errorf("%w: more labels than live source rows", ErrConservation)
				return w.err
			}
			if !del {
				break
			}
			w.push(NullLabel)
		}
		w.push(uint32(l))
	}
	return nil
}

// Finish drains the deleted tail, checks conservation and returns the file.
func (w *Writer) Finish() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.done {
		return w.out, nil
	}
	for {
		del, ok := w.nextRow()
		if !ok {
			break
		}
		if !del {
			w.err = fmt.Errorf("%w: fewer labels than live source rows", ErrConservation)
			return nil, w.err
		}
		w.push(NullLabel)
	}
	w.flush()
	cm, err := w.counts.Finish()
	if err != nil {
		w.err = err
		return nil, err
	}
	if w.opts.ExpectedTotals != nil {
		got := cm.Totals()
		for j, v := range w.opts.ExpectedTotals {
			if got[j] != v {
				w.err = fmt.Errorf("%w: destination %d received %d rows, expected %d", ErrConservation, j, got[j], v)
				return nil, w.err
			}
		}
	}
	blocksEnd := uint64(len(w.out))
	destOff := blocksEnd
	for _, d := range w.dests {
		w.out = binary.LittleEndian.AppendUint32(w.out, d)
	}
	countsOff := uint64(len(w.out))
	w.out = cm.AppendBinary(w.out)
	dirOff := uint64(len(w.out))
	for _, o := range w.dir {
		w.out = binary.LittleEndian.AppendUint64(w.out, o)
	}
	w.out = binary.LittleEndian.AppendUint64(w.out, blocksEnd)
	w.out = binary.LittleEndian.AppendUint64(w.out, destOff)
	w.out = binary.LittleEndian.AppendUint64(w.out, countsOff)
	w.out = binary.LittleEndian.AppendUint64(w.out, dirOff)
	w.out = binary.LittleEndian.AppendUint32(w.out, fileVersion)
	w.out = binary.LittleEndian.AppendUint32(w.out, crc32.Checksum(w.out[destOff:], castagnoli))
	w.out = append(w.out, fileMagic...)
	w.done = true
	return w.out, nil
}

// WriteTo finishes the file and writes it to dst.
func (w *Writer) WriteTo(dst io.Writer) (int64, error) {
	b, err := w.Finish()
	if err != nil {
		return 0, err
	}
	n, err := dst.Write(b)
	return int64(n), err
}
