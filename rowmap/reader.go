package rowmap

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"sync"

	"github.com/stablerow/stablerow/internal/radix"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Source is what a Reader reads from.
type Source interface {
	io.ReaderAt
	Size() int64
}

type bytesSource struct {
	*bytes.Reader
	b []byte
}

// BytesSource wraps an in-memory file (read or memory-mapped); b must not
// change while a Reader uses it. Sweeps over it read blocks in place.
func BytesSource(b []byte) Source { return bytesSource{bytes.NewReader(b), b} }

type fileSource struct {
	*os.File
	size int64
}

func (f fileSource) Size() int64 { return f.size }

// FileSource wraps an open file (its size is taken once).
func FileSource(f *os.File) (Source, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return fileSource{f, st.Size()}, nil
}

// Reader translates rows of one row map file. It is safe for concurrent use.
type Reader struct {
	src    Source
	dests  []uint32
	counts *CountsMatrix
	dir    []uint64 // numBlocks+1 offsets
	mem    []byte   // the whole file, when src is a BytesSource
	name   string   // the file's path for error messages ("" unnamed)
	id     uint64   // the block cache's key for this reader's blocks
	cache  *BlockCache
}

// OpenNamed is Open for the row map stored at name: every error, of the
// tail now and of a block later, names the file.
func OpenNamed(src Source, name string) (*Reader, error) {
	r, err := Open(src)
	if err != nil {
		return nil, fmt.Errorf("rowmap %s: %w", name, err)
	}
	r.name = name
	// Ranks are cached as uint16s: a block of more than 2^16 rows (no
	// writer of ours makes one) translates without the cache.
	if r.counts.BlockSize() <= 1<<16 {
		r.cache, r.id = currentBlockCache(), readerIDs.Add(1)
	}
	return r, nil
}

// cached returns block b's translation from the block cache, if held.
func (r *Reader) cached(b int) *translatedBlock {
	if r.cache == nil {
		return nil
	}
	return r.cache.get(blockKey{reader: r.id, block: b})
}

// keep puts swept block b (labels and offsets counted from base) into the
// block cache.
func (r *Reader) keep(b int, labels, offsets, base []uint32) {
	if r.cache != nil {
		r.cache.put(blockKey{reader: r.id, block: b}, newTranslatedBlock(labels, offsets, base))
	}
}

// blockErr says which block of which file failed to decode.
func (r *Reader) blockErr(b int, err error) error {
	if r.name == "" {
		return fmt.Errorf("block %d: %w", b, err)
	}
	return fmt.Errorf("rowmap %s: block %d: %w", r.name, b, err)
}

// readErr says which block of which file could not be read.
func (r *Reader) readErr(b int, err error) error {
	if r.name == "" {
		return fmt.Errorf("rowmap: reading block %d: %w", b, err)
	}
	return fmt.Errorf("rowmap %s: reading block %d: %w", r.name, b, err)
}

const speculativeTail = 1 << 16

// Open reads the tail of src (footer, destinations, counts, directory) and
// checks it fully; any inconsistency is an ErrCorrupt error.
func Open(src Source) (*Reader, error) {
	size := src.Size()
	if size < int64(len(fileMagic)+footerSize) {
		return nil, fmt.Errorf("%w: file of %d bytes is too small", ErrCorrupt, size)
	}
	tailLen := min(size, int64(speculativeTail))
	tail := make([]byte, tailLen)
	if _, err := src.ReadAt(tail, size-tailLen); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("rowmap: reading tail: %w", err)
	}
	foot := tail[len(tail)-footerSize:]
	if string(foot[footerSize-8:]) != fileMagic {
		return nil, fmt.Errorf("%w: bad trailing magic", ErrCorrupt)
	}
	destOff := binary.LittleEndian.Uint64(foot[0:])
	countsOff := binary.LittleEndian.Uint64(foot[8:])
	dirOff := binary.LittleEndian.Uint64(foot[16:])
	if v := binary.LittleEndian.Uint32(foot[24:]); v != fileVersion {
		return nil, fmt.Errorf("%w: unsupported format version %d", ErrCorrupt, v)
	}
	footStart := uint64(size) - footerSize
	if destOff < uint64(len(fileMagic)) || destOff > countsOff || countsOff > dirOff || dirOff > footStart || (countsOff-destOff)%4 != 0 || (footStart-dirOff)%8 != 0 {
		return nil, fmt.Errorf("%w: footer offsets out of range", ErrCorrupt)
	}
	if uint64(size)-destOff > uint64(tailLen) {
		tail = make([]byte, uint64(size)-destOff)
		if _, err := src.ReadAt(tail, int64(destOff)); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("rowmap: reading tail: %w", err)
		}
	} else {
		tail = tail[uint64(len(tail))-(uint64(size)-destOff):]
	}
	rel := func(o uint64) uint64 { return o - destOff }
	body := tail[:len(tail)-12]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(tail[len(tail)-12:]) {
		return nil, fmt.Errorf("%w: tail checksum mismatch", ErrCorrupt)
	}
	head := make([]byte, len(fileMagic))
	if _, err := src.ReadAt(head, 0); err != nil {
		return nil, fmt.Errorf("rowmap: reading head: %w", err)
	}
	if string(head) != fileMagic {
		return nil, fmt.Errorf("%w: bad leading magic", ErrCorrupt)
	}
	m := (countsOff - destOff) / 4
	dests := make([]uint32, m)
	for i := range dests {
		dests[i] = binary.LittleEndian.Uint32(tail[4*i:])
	}
	cm, err := DecodeCounts(tail[rel(countsOff):rel(dirOff)])
	if err != nil {
		return nil, err
	}
	if uint64(cm.NumDestinations()) != m {
		return nil, fmt.Errorf("%w: counts name %d destinations, file lists %d", ErrCorrupt, cm.NumDestinations(), m)
	}
	nDir := (footStart - dirOff) / 8
	if nDir != uint64(cm.NumBlocks())+1 {
		return nil, fmt.Errorf("%w: directory has %d entries for %d blocks", ErrCorrupt, nDir, cm.NumBlocks())
	}
	dir := make([]uint64, nDir)
	for i := range dir {
		dir[i] = binary.LittleEndian.Uint64(tail[rel(dirOff)+8*uint64(i):])
	}
	if dir[0] != uint64(len(fileMagic)) || dir[len(dir)-1] != destOff {
		return nil, fmt.Errorf("%w: directory does not span the blocks", ErrCorrupt)
	}
	for i := 1; i < len(dir); i++ {
		if dir[i] < dir[i-1]+blockHeaderSize+4 {
			return nil, fmt.Errorf("%w: block %d is too small", ErrCorrupt, i-1)
		}
	}
	rd := &Reader{src: src, dests: dests, counts: cm, dir: dir}
	if bs, ok := src.(bytesSource); ok {
		rd.mem = bs.b
	}
	return rd, nil
}

// Destinations returns the destination fragment ids (a copy).
func (r *Reader) Destinations() []uint32 { return slices.Clone(r.dests) }

// Counts returns the counts matrix (immutable).
func (r *Reader) Counts() *CountsMatrix { return r.counts }

// NumRows returns the number of source physical rows.
func (r *Reader) NumRows() uint64 { return r.counts.TotalRows() }

func (r *Reader) readBlock(b int, raw []byte, out []uint32) ([]byte, []uint32, error) {
	sz := int(r.dir[b+1] - r.dir[b])
	raw = slices.Grow(raw[:0], sz)[:sz]
	if _, err := r.src.ReadAt(raw, int64(r.dir[b])); err != nil && !errors.Is(err, io.EOF) {
		return raw, out, r.readErr(b, err)
	}
	n := r.counts.BlockLen(b)
	out = slices.Grow(out[:0], n)[:n]
	if err := decodeBlock(raw, uint32(len(r.dests)), n, r.counts.BlockLive(b), out); err != nil {
		return raw, out, r.blockErr(b, err)
	}
	return raw, out, nil
}

// DecodeBlock returns block b's decoded labels (NullLabel = deleted).
func (r *Reader) DecodeBlock(b int) ([]uint32, error) {
	if b < 0 || b >= r.counts.NumBlocks() {
		return nil, fmt.Errorf("%w: block %d of %d", ErrInvalidArgument, b, r.counts.NumBlocks())
	}
	_, out, err := r.readBlock(b, nil, nil)
	return out, err
}

// pointBufs recycles the block buffers of point lookups, which would
// otherwise allocate (and zero) a block's worth of bytes per call.
var pointBufs = sync.Pool{New: func() any { return new([]byte) }}

// Translate maps source row g to its destination index and offset; deleted
// rows report deleted=true. It reads one block.
func (r *Reader) Translate(g uint64) (dest uint16, offset uint32, deleted bool, err error) {
	if g >= r.NumRows() {
		return 0, 0, false, fmt.Errorf("%w: row %d of %d", ErrInvalidArgument, g, r.NumRows())
	}
	bs := uint64(r.counts.BlockSize())
	b := int(g / bs)
	sz := int(r.dir[b+1] - r.dir[b])
	bp := pointBufs.Get().(*[]byte)
	defer pointBufs.Put(bp)
	raw := slices.Grow((*bp)[:0], sz)[:sz]
	*bp = raw
	if _, err := r.src.ReadAt(raw, int64(r.dir[b])); err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, false, r.readErr(b, err)
	}
	pb, err := parseBlock(raw, uint32(len(r.dests)), r.counts.BlockLen(b), r.counts.BlockLive(b))
	if err != nil {
		return 0, 0, false, r.blockErr(b, err)
	}
	l, rank, del, err := rankEncoded(pb, int(g%bs))
	if err != nil {
		return 0, 0, false, r.blockErr(b, err)
	}
	if del {
		return 0, 0, true, nil
	}
	if base := r.counts.Base(b); base != nil {
		rank += base[l]
	}
	return uint16(l), rank, false, nil
}

// Translation is one TranslateMany result.
type Translation struct {
	Dest    uint16
	Offset  uint32
	Deleted bool
}

// rankThreshold: blocks with at most this many requested rows are ranked
// on the packed block per row (as Translate does); denser ones are swept
// once with the sweep kernel.
const rankThreshold = 4

// TranslateMany translates rows (any order, duplicates allowed) into out
// (len(out) ≥ len(rows)). Each touched block is read and checked once, and
// only one translated block is held at a time, besides those the block
// cache keeps (a named reader's blocks of more than rankThreshold rows are
// swept once and then answered from the cache: blockcache.go).
func (r *Reader) TranslateMany(rows []uint64, out []Translation) error {
	if len(out) < len(rows) {
		return fmt.Errorf("%w: out has %d slots for %d rows", ErrInvalidArgument, len(out), len(rows))
	}
	for _, g := range rows {
		if g >= r.NumRows() {
			return fmt.Errorf("%w: row %d of %d", ErrInvalidArgument, g, r.NumRows())
		}
	}
	order := r.byBlock(rows)
	bs := uint64(r.counts.BlockSize())
	var sc sweepScratch
	defer sc.release()
	var counters []uint32
	for i := 0; i < len(order); {
		b := int(rows[order[i]] / bs)
		j := i
		for j < len(order) && int(rows[order[j]]/bs) == b {
			j++
		}
		base := r.counts.Base(b)
		start := uint64(b) * bs
		if tb := r.cached(b); tb != nil {
			for _, k := range order[i:j] {
				out[k] = tb.answer(rows[k]-start, base)
			}
		} else if j-i <= rankThreshold {
			pb, err := r.readParsed(b, &sc)
			if err != nil {
				return err
			}
			for _, k := range order[i:j] {
				l, rank, del, err := rankEncoded(pb, int(rows[k]-start))
				if err != nil {
					return r.blockErr(b, err)
				}
				if del {
					out[k] = Translation{Deleted: true}
					continue
				}
				if base != nil {
					rank += base[l]
				}
				out[k] = Translation{Dest: uint16(l), Offset: rank}
			}
		} else {
			if counters == nil {
				counters = make([]uint32, len(r.dests))
			}
			if base != nil {
				copy(counters, base)
			} else {
				clear(counters)
			}
			st := SweepTranslator{counters: counters}
			labels, offsets, err := r.sweepBlock(&st, b, &sc)
			if err != nil {
				return err
			}
			for _, k := range order[i:j] {
				p := rows[k] - start
				if l := labels[p]; l == NullLabel {
					out[k] = Translation{Deleted: true}
				} else {
					out[k] = Translation{Dest: uint16(l), Offset: offsets[p]}
				}
			}
			r.keep(b, labels, offsets, base)
		}
		i = j
	}
	return nil
}

// byBlock returns the positions of rows grouped by ascending block (any
// order within a block: each block is answered whole). One radix pass or
// two over the block bits of (block, position) keys: a comparison sort of
// the positions was most of a deferred remap's time once its blocks came
// from the cache.
func (r *Reader) byBlock(rows []uint64) []int32 {
	bs := uint64(r.counts.BlockSize())
	posBits := uint(bits.Len64(uint64(len(rows))))
	blockBits := uint(bits.Len64(uint64(r.counts.NumBlocks())))
	order := make([]int32, len(rows))
	if posBits+blockBits > 64 || len(rows) > math.MaxInt32 {
		for i := range order { // no real map gets here
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(rows[a]/bs, rows[b]/bs) })
		return order
	}
	keys := make([]uint64, len(rows))
	for i, g := range rows {
		keys[i] = (g/bs)<<posBits | uint64(i)
	}
	radix.SortKeys(keys, posBits, posBits+blockBits)
	mask := uint64(1)<<posBits - 1
	for i, k := range keys {
		order[i] = int32(k & mask)
	}
	return order
}

// SweepBlocks translates every row from block fromBlock on, one decoded
// block at a time: fn gets the block's first row, labels (NullLabel =
// deleted) and offsets (NullLabel for deleted rows). The slices are reused
// after fn returns. A non-nil error from fn stops the sweep and is returned.
func (r *Reader) SweepBlocks(fromBlock int, fn func(firstRow uint64, labels, offsets []uint32) error) error {
	if fromBlock < 0 || fromBlock > r.counts.NumBlocks() {
		return fmt.Errorf("%w: sweep start block %d of %d", ErrInvalidArgument, fromBlock, r.counts.NumBlocks())
	}
	return r.SweepRange(min(uint64(fromBlock)*uint64(r.counts.BlockSize()), r.NumRows()), r.NumRows(), fn)
}

// SweepRange translates rows [from, to) in order, starting and ending
// anywhere in a block: the sweep seeds its counters at from's block
// boundary and translates that block whole, and fn gets each block's part of
// the range (its first row, labels and offsets, as in SweepBlocks). An empty
// range calls fn never.
func (r *Reader) SweepRange(from, to uint64, fn func(firstRow uint64, labels, offsets []uint32) error) error {
	if from > to || to > r.NumRows() {
		return fmt.Errorf("%w: sweep of rows [%d, %d) of %d", ErrInvalidArgument, from, to, r.NumRows())
	}
	if from == to {
		return nil
	}
	bs := uint64(r.counts.BlockSize())
	b0 := int(from / bs)
	st, err := NewSweepTranslator(r.counts, b0)
	if err != nil {
		return err
	}
	sc := sweepScratch{readAhead: true}
	defer sc.release()
	for b := b0; uint64(b)*bs < to; b++ {
		labels, offsets, err := r.sweepBlock(st, b, &sc)
		if err != nil {
			return err
		}
		first := uint64(b) * bs
		lo, hi := max(from, first)-first, min(to, first+uint64(len(labels)))-first
		if err := fn(first+lo, labels[lo:hi], offsets[lo:hi]); err != nil {
			return err
		}
	}
	return nil
}

// Sweep is SweepBlocks with one callback per row.
func (r *Reader) Sweep(fromBlock int, fn func(row uint64, dest uint16, offset uint32, deleted bool) error) error {
	return r.SweepBlocks(fromBlock, func(first uint64, labels, offsets []uint32) error {
		for i, l := range labels {
			var err error
			if l == NullLabel {
				err = fn(first+uint64(i), 0, 0, true)
			} else {
				err = fn(first+uint64(i), uint16(l), offsets[i], false)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// Labels returns block b as the logical nullable uint16 `label` column. The
// caller releases it.
func (r *Reader) Labels(b int, mem memory.Allocator) (*array.Uint16, error) {
	labels, err := r.DecodeBlock(b)
	if err != nil {
		return nil, err
	}
	bld := array.NewUint16Builder(mem)
	defer bld.Release()
	bld.Reserve(len(labels))
	for _, l := range labels {
		if l == NullLabel {
			bld.UnsafeAppendBoolToBitmap(false)
		} else {
			bld.UnsafeAppend(uint16(l))
		}
	}
	return bld.NewUint16Array(), nil
}

// Describe prints the header, destinations, counts summary and per-block
// encodings.
func (r *Reader) Describe(w io.Writer) error {
	c := r.counts
	fmt.Fprintf(w, "rowmap format v%d: %d rows, %d blocks of %d, %d destinations, %d bytes (%.3f bits/row)\n",
		fileVersion, c.TotalRows(), c.NumBlocks(), c.BlockSize(), len(r.dests), r.src.Size(), bitsPerRow(r.src.Size(), c.TotalRows()))
	fmt.Fprintf(w, "destinations: %v\n", r.dests)
	fmt.Fprintf(w, "counts: tag %d (1 dense u32, 2 packed deltas), %d bytes, live %d, deleted %d, totals %v\n",
		c.Tag(), c.EncodedSize(), c.LiveRows(), c.TotalRows()-c.LiveRows(), c.Totals())
	for b := 0; b < c.NumBlocks(); b++ {
		hdr := make([]byte, blockHeaderSize+4)
		if _, err := r.src.ReadAt(hdr, int64(r.dir[b])); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		h, err := parseBlockHeader(hdr)
		if err != nil {
			return err
		}
		sz := r.dir[b+1] - r.dir[b]
		if _, err := fmt.Fprintf(w, "block %d: @%d %d bytes rows %d live %d %s\n", b, r.dir[b], sz, h.rows, h.live, h.encoding()); err != nil {
			return err
		}
	}
	return nil
}

func bitsPerRow(size int64, rows uint64) float64 {
	if rows == 0 {
		return 0
	}
	return float64(size) * 8 / float64(rows)
}
