package rowmap

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
)

// Block encoding (little endian), one per logical block:
//
//	+0 flags     u8   bit0: deletion bitmap present; bit1: local dictionary
//	+1 width     u8   bits per packed label (0..16)
//	+2 rows      u32  rows in the block
//	+6 live      u32  live rows
//	+10 k        u32  dictionary size (0 without a dictionary)
//	+14 deletion bitmap  ceil(rows/64) × u64 (bit set = deleted), if flag
//	+.. dictionary       k × u16 (sorted), if flag
//	+.. packed labels    ceil(live*width/64) × u64, LSB first
//	+.. CRC32C of the above  u32
//
// The per-block choice is the smaller of plain packing at ceil(log2 m) bits
// and dictionary packing at ceil(log2 k) bits; the deletion bitmap costs one
// bit per row and is left out when the block has no deletions.
const (
	blockHeaderSize = 14
	flagDeletions   = 1
	flagDictionary  = 2
)

func widthFor(n uint32) uint8 {
	if n <= 1 {
		return 0
	}
	return uint8(bits.Len32(n - 1))
}

// encodeScratch is what encodeBlock reuses across blocks: which labels a
// block holds (a bit per possible label) and each dictionary label's index.
type encodeScratch struct {
	present [MaxDestinations / 64]uint64
	index   [MaxDestinations]uint16
	dict    []uint32
}

// encodeBlock appends the encoding of labels (NullLabel = deleted; others
// below m ≤ MaxDestinations).
//
// The block's distinct labels, ascending, come from a presence bitmap, one
// pass over the rows and one over m/64 words; sorting the live labels to
// find them cost most of a writer's time.
func encodeBlock(dst []byte, labels []uint32, m uint32, sc *encodeScratch) []byte {
	start := len(dst)
	n := len(labels)
	live := 0
	words := (int(m) + 63) / 64
	clear(sc.present[:words])
	for _, l := range labels {
		if l != NullLabel {
			live++
			sc.present[l>>6&(MaxDestinations/64-1)] |= 1 << (l & 63)
		}
	}
	dict := sc.dict[:0]
	for wi, word := range sc.present[:words] {
		for ; word != 0; word &= word - 1 {
			dict = append(dict, uint32(wi*64+bits.TrailingZeros64(word)))
		}
	}
	sc.dict = dict
	plainW := widthFor(m)
	dictW := widthFor(uint32(len(dict)))
	useDict := uint64(live)*uint64(dictW)+uint64(len(dict))*16 < uint64(live)*uint64(plainW)
	flags := uint8(0)
	if live < n {
		flags |= flagDeletions
	}
	w := plainW
	if useDict {
		flags |= flagDictionary
		w = dictW
	}
	k := uint32(0)
	if useDict {
		k = uint32(len(dict))
	}
	dst = append(dst, flags, w)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(live))
	dst = binary.LittleEndian.AppendUint32(dst, k)
	if flags&flagDeletions != 0 {
		for i := 0; i < n; i += 64 {
			var word uint64
			for j := i; j < n && j < i+64; j++ {
				if labels[j] == NullLabel {
					word |= 1 << (j - i)
				}
			}
			dst = binary.LittleEndian.AppendUint64(dst, word)
		}
	}
	if useDict {
		for i, d := range dict {
			sc.index[d&(MaxDestinations-1)] = uint16(i)
			dst = binary.LittleEndian.AppendUint16(dst, uint16(d))
		}
	}
	if w > 0 {
		pk := bitPacker{dst: dst, w: uint(w)}
		for _, l := range labels {
			if l == NullLabel {
				continue
			}
			v := uint64(l)
			if useDict {
				v = uint64(sc.index[l&(MaxDestinations-1)])
			}
			pk.put(v)
		}
		dst = pk.finish()
	}
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// blockInfo is a parsed block header.
type blockInfo struct {
	flags, width uint8
	rows, live   uint32
	k            uint32
}

func (b blockInfo) encoding() string {
	s := fmt.Sprintf("plain w=%d", b.width)
	if b.flags&flagDictionary != 0 {
		s = fmt.Sprintf("dict k=%d w=%d", b.k, b.width)
	}
	if b.flags&flagDeletions != 0 {
		s += " +delbitmap"
	}
	return s
}

func parseBlockHeader(buf []byte) (blockInfo, error) {
	if len(buf) < blockHeaderSize+4 {
		return blockInfo{}, fmt.Errorf("%w: block truncated", ErrCorrupt)
	}
	return blockInfo{
		flags: buf[0], width: buf[1],
		rows: binary.LittleEndian.Uint32(buf[2:]),
		live: binary.LittleEndian.Uint32(buf[6:]),
		k:    binary.LittleEndian.Uint32(buf[10:]),
	}, nil
}

// decodeBlock verifies and decodes a block into out (len = rows). m is the
// destination count, wantRows/wantLive the values implied by the counts.
// parsedBlock is a validated view of one encoded block.
type parsedBlock struct {
	rows, live int
	width      uint
	del        []byte   // deletion bitmap, nil when the block has none
	dict       []uint32 // local dictionary, nil when labels are packed directly
	limit      uint32   // packed values must be below this
	packed     []byte
}

// parseBlock checks a block's checksum and header against what the counts
// say it must hold, and returns its parts without decoding the labels.
func parseBlock(buf []byte, m uint32, wantRows, wantLive int) (parsedBlock, error) {
	var pbk parsedBlock
	h, err := parseBlockHeader(buf)
	if err != nil {
		return pbk, err
	}
	body := buf[:len(buf)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(buf[len(buf)-4:]) {
		return pbk, fmt.Errorf("%w: block checksum mismatch", ErrCorrupt)
	}
	if h.flags&^(flagDeletions|flagDictionary) != 0 || int(h.rows) != wantRows || int(h.live) != wantLive || h.width > 16 {
		return pbk, fmt.Errorf("%w: block header inconsistent (flags %#x rows %d/%d live %d/%d width %d)", ErrCorrupt, h.flags, h.rows, wantRows, h.live, wantLive, h.width)
	}
	n := int(h.rows)
	p := blockHeaderSize
	need := func(sz int) error {
		if sz < 0 || p+sz > len(body) {
			return fmt.Errorf("%w: block payload truncated", ErrCorrupt)
		}
		return nil
	}
	var del []byte
	if h.flags&flagDeletions != 0 {
		sz := (n + 63) / 64 * 8
		if err := need(sz); err != nil {
			return pbk, err
		}
		del = body[p : p+sz]
		p += sz
	} else if h.live != h.rows {
		return pbk, fmt.Errorf("%w: deletions without bitmap", ErrCorrupt)
	}
	var dict []uint32
	limit := m
	if h.flags&flagDictionary != 0 {
		if h.k == 0 || h.k > m || uint8(widthFor(h.k)) > h.width {
			return pbk, fmt.Errorf("%w: bad dictionary size %d", ErrCorrupt, h.k)
		}
		if err := need(int(h.k) * 2); err != nil {
			return pbk, err
		}
		dict = make([]uint32, h.k)
		for i := range dict {
			dict[i] = uint32(binary.LittleEndian.Uint16(body[p+2*i:]))
			if dict[i] >= m {
				return pbk, fmt.Errorf("%w: dictionary label %d ≥ %d", ErrCorrupt, dict[i], m)
			}
			// The writer emits the dictionary sorted and without repeats; the
			// sweep keeps one counter per entry, so repeats must not pass.
			if i > 0 && dict[i] <= dict[i-1] {
				return pbk, fmt.Errorf("%w: dictionary not strictly increasing", ErrCorrupt)
			}
		}
		p += int(h.k) * 2
		limit = h.k
	} else if h.k != 0 {
		return pbk, fmt.Errorf("%w: dictionary size without dictionary", ErrCorrupt)
	}
	words := (int(h.live)*int(h.width) + 63) / 64
	if err := need(words * 8); err != nil {
		return pbk, err
	}
	if p+words*8 != len(body) {
		return pbk, fmt.Errorf("%w: block has trailing bytes", ErrCorrupt)
	}
	if del != nil {
		dead := 0
		for wi := 0; wi*64 < n; wi++ {
			word := binary.LittleEndian.Uint64(del[wi*8:])
			if wi*64+64 > n {
				word &= uint64(1)<<(n-wi*64) - 1
			}
			dead += bits.OnesCount64(word)
		}
		if dead != n-int(h.live) {
			return pbk, fmt.Errorf("%w: deletion bitmap disagrees with live count", ErrCorrupt)
		}
	}
	pbk = parsedBlock{rows: n, live: int(h.live), width: uint(h.width), del: del, dict: dict, limit: limit, packed: body[p:]}
	return pbk, nil
}

func decodeBlock(buf []byte, m uint32, wantRows, wantLive int, out []uint32) error {
	pbk, err := parseBlock(buf, m, wantRows, wantLive)
	if err != nil {
		return err
	}
	n, del, dict, packed, limit := pbk.rows, pbk.del, pbk.dict, pbk.packed, pbk.limit
	h := struct {
		live  uint32
		width uint8
	}{uint32(pbk.live), uint8(pbk.width)}
	live := out[n-int(h.live):] // unpack live values into the tail, then spread
	if err := unpack(packed, uint(h.width), live, limit); err != nil {
		return err
	}
	if dict != nil {
		for i, v := range live {
			live[i] = dict[v]
		}
	}
	if del == nil {
		return nil
	}
	// Spread the live tail forward over the deletions: a destination index
	// never passes its source (src+seen ≥ i), so a forward copy is safe.
	// Deleted bits are walked with TrailingZeros, so the cost is per run of
	// live rows, not a bit test per row.
	src := n - int(h.live)
	nLive := int(h.live)
	seen := 0
	for base := 0; base < n; base += 64 {
		end := min(n, base+64)
		word := binary.LittleEndian.Uint64(del[base/8:])
		if end-base < 64 {
			word &= uint64(1)<<(end-base) - 1
		}
		i := base
		for {
			d := end
			if word != 0 {
				d = base + bits.TrailingZeros64(word)
				word &= word - 1
			}
			k := d - i
			if seen+k > nLive {
				return fmt.Errorf("%w: deletion bitmap disagrees with live count", ErrCorrupt)
			}
			run := out[src+seen : src+seen+k]
			dst := out[i:d]
			for j := range dst {
				dst[j] = run[j]
			}
			seen += k
			if d == end {
				break
			}
			out[d] = NullLabel
			i = d + 1
		}
	}
	if seen != int(h.live) {
		return fmt.Errorf("%w: deletion bitmap disagrees with live count", ErrCorrupt)
	}
	return nil
}

// unpack reads len(out) values of width w (LSB first) and checks each is
// below limit. packed must hold ceil(len(out)*w/64) words.
func unpack(packed []byte, w uint, out []uint32, limit uint32) error {
	if w == 0 {
		clear(out)
		if len(out) > 0 && limit == 0 {
			return fmt.Errorf("%w: label out of range", ErrCorrupt)
		}
		return nil
	}
	if w > 32 {
		return fmt.Errorf("%w: bit width %d", ErrCorrupt, w)
	}
	mask := uint64(1)<<w - 1
	n := len(out)
	// Fast part: every value whose unaligned 8-byte window lies inside
	// packed is one load, shift and mask — no data-dependent branch, so
	// iterations overlap in the pipeline. The few tail values fall back to
	// word-aligned extraction.
	fast := 0
	if len(packed) >= 8 {
		fast = min(n, int(uint64(len(packed)-8)*8/uint64(w))+1)
	}
	var maxv uint64
	bit := uint(0)
	for i := range out[:fast] {
		v := binary.LittleEndian.Uint64(packed[bit>>3:]) >> (bit & 7) & mask
		out[i] = uint32(v)
		maxv = max(maxv, v)
		bit += w
	}
	for i := fast; i < n; i++ {
		v := packedAt(packed, w, i)
		out[i] = v
		maxv = max(maxv, uint64(v))
	}
	if n > 0 && maxv >= uint64(limit) {
		return fmt.Errorf("%w: label out of range %d", ErrCorrupt, limit)
	}
	return nil
}

// rankEncoded answers a point lookup straight from a parsed block: the label
// at pos and how many earlier rows of the block carry it. It never
// materialises the block: the live index of pos comes from popcounts over the
// deletion bitmap, and the rank from one pass over the packed prefix.
func rankEncoded(pb parsedBlock, pos int) (label, rank uint32, deleted bool, err error) {
	if pos < 0 || pos >= pb.rows {
		return 0, 0, false, fmt.Errorf("%w: position %d of %d", ErrInvalidArgument, pos, pb.rows)
	}
	li := pos
	if pb.del != nil {
		w := pos / 64
		word := binary.LittleEndian.Uint64(pb.del[w*8:])
		if word>>(pos%64)&1 != 0 {
			return 0, 0, true, nil
		}
		dead := bits.OnesCount64(word & (uint64(1)<<(pos%64) - 1))
		for i := 0; i < w; i++ {
			dead += bits.OnesCount64(binary.LittleEndian.Uint64(pb.del[i*8:]))
		}
		li = pos - dead
	}
	if li >= pb.live {
		return 0, 0, false, fmt.Errorf("%w: deletion bitmap disagrees with live count", ErrCorrupt)
	}
	v := packedAt(pb.packed, pb.width, li)
	if v >= pb.limit {
		return 0, 0, false, fmt.Errorf("%w: label out of range %d", ErrCorrupt, pb.limit)
	}
	rank = countEqualPrefix(pb.packed, pb.width, li, v)
	if pb.dict != nil {
		return pb.dict[v], rank, false, nil
	}
	return v, rank, false, nil
}

// packedAt returns value i of width w (LSB first).
func packedAt(packed []byte, w uint, i int) uint32 {
	if w == 0 {
		return 0
	}
	bit := uint(i) * w
	wi, sh := int(bit/64), bit%64
	v := binary.LittleEndian.Uint64(packed[wi*8:]) >> sh
	if sh+w > 64 {
		v |= binary.LittleEndian.Uint64(packed[wi*8+8:]) << (64 - sh)
	}
	return uint32(v & (uint64(1)<<w - 1))
}

// countEqualPrefix counts the values equal to want among the first n.
//
// It compares k = 57/w values at once (SWAR): one unaligned 8-byte load at
// a bit phase below 8 holds k whole values; XOR with want replicated in
// every lane turns matches into zero lanes, and a lane is non-zero exactly
// when its top bit is set after adding all-ones-but-the-top to its low bits
// (the sum stays inside the lane) and OR-ing the lane back in. The zero
// lanes are then a popcount of the top bits left clear.
func countEqualPrefix(packed []byte, w uint, n int, want uint32) uint32 {
	if w == 0 {
		return uint32(n)
	}
	k := 57 / w
	var low uint64 // the lowest bit of each of the k lanes
	for j := range k {
		low |= 1 << (j * w)
	}
	field := uint64(1)<<(k*w) - 1
	rest := low * (uint64(1)<<(w-1) - 1) // every lane bit but the top
	top := low << (w - 1)
	rep := low * uint64(want)
	var c uint32
	i := 0
	if useAVX2Count && w <= 16 && len(packed) >= 16 {
		// Whole groups of 8 whose 16-byte loads stay inside packed.
		if units := min(n/8, (len(packed)-16)/int(w)+1); units > 0 {
			c = uint32(countPackedAVX2(&packed[0], units, want, &packedTabs[w]))
			i = 8 * units
		}
	}
	bit := uint(i) * w
	for ; i+int(k) <= n && int(bit>>3)+8 <= len(packed); i += int(k) {
		x := binary.LittleEndian.Uint64(packed[bit>>3:])>>(bit&7)&field ^ rep
		c += uint32(bits.OnesCount64(^((x&rest + rest) | x) & top))
		bit += k * w
	}
	for ; i < n; i++ {
		if packedAt(packed, w, i) == want {
			c++
		}
	}
	return c
}

// packedTab is countPackedAVX2's per-width table: the byte shuffle that puts
// value k of a group of 8 in 32-bit lane k, the lanes' shifts, the value
// mask and the group stride in bytes. The assembly reads it by offset.
type packedTab struct {
	shuf  [32]byte
	shift [8]uint32
	mask  uint32
	_     uint32
	step  uint64
}

var packedTabs = func() (t [17]packedTab) {
	for w := 1; w <= 16; w++ {
		p := &t[w]
		for k := range 8 {
			for b := range 4 {
				src := k*w/8 + b
				if src >= 16 {
					src = 0x80 // zero the byte: past the group, above the mask
				}
				p.shuf[16*(k/4)+4*(k%4)+b] = byte(src)
			}
			p.shift[k] = uint32(k * w % 8)
		}
		p.mask = 1<<w - 1
		p.step = uint64(w)
	}
	return t
}()
