package btree

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
)

// A page holds up to PageRows entries sorted by (key, address):
//
//	u8      page kind: 0 null keys, 1 integer keys, 2 string keys
//	uvarint n, the number of entries (1..maxPageRows)
//	keys    integer keys: one sequence (seq.go) of ordered uint64 keys;
//	        string keys: n x (uvarint shared prefix with the previous key,
//	        uvarint suffix length, suffix bytes); null pages: nothing
//	u8      address form, then
//	  0 separate: a sequence of the fragment ids (address >> 32), then one
//	    of the offsets (address & 0xffffffff)
//	  1 paired: uvarint fragment base, u8 fragment width, uvarint offset
//	    base, u8 offset width (each <= 32), then ceil(n*(fw+ow)/64) u64
//	    words of (fragment-base)<<ow | (offset-base) bit-packed: one
//	    memory access per address instead of two (chosen when both halves
//	    would be bit-packed anyway, as in a shuffled table)
//
// Nothing may follow. The page's CRC32C lives in the lookup file.
const (
	pageNull   = 0
	pageInt    = 1
	pageString = 2

	// maxPageRows bounds n so that a corrupt count cannot ask for a huge
	// allocation; PageRows options above it are rejected.
	maxPageRows = 1 << 20
)

// page is a decoded, immutable page, shared by concurrent readers through
// the page cache. Integer keys and addresses stay encoded (views into raw).
type page struct {
	kind  uint8
	n     int
	ukeys seq
	skeys []string
	frags seq // separate form
	offs  seq
	// Paired form (paired): pair holds (f-fbase)<<ow | (o-obase).
	paired       bool
	ow           uint
	fbase, obase uint64
	pair         seq
	bytes        int64 // resident footprint, for the cache
}

const (
	addrSeparate = 0
	addrPaired   = 1
)

// appendAddrs appends every address of the page to dst.
func (p *page) appendAddrs(dst []uint64) []uint64 {
	if p.paired {
		for i := 0; i < p.n; i++ {
			dst = append(dst, p.addr(i))
		}
		return dst
	}
	start := len(dst)
	dst = p.frags.appendTo(dst)
	for i := 0; i < p.n; i++ {
		dst[start+i] = dst[start+i]<<32 | p.offs.at(i)
	}
	return dst
}

func (p *page) addr(i int) uint64 {
	if p.paired {
		v := p.pair.at(i)
		return (p.fbase+v>>p.ow)<<32 | (p.obase + v&(1<<p.ow-1))
	}
	return p.frags.at(i)<<32 | p.offs.at(i)
}

// encodePage appends one page. Exactly one of ukeys / skeys is used unless
// kind is pageNull.
func encodePage(dst []byte, kind uint8, ukeys []uint64, skeys []string, addrs []uint64, scratch []uint64) []byte {
	dst = append(dst, kind)
	dst = binary.AppendUvarint(dst, uint64(len(addrs)))
	switch kind {
	case pageInt:
		dst = appendSeq(dst, ukeys)
	case pageString:
		prev := ""
		for _, k := range skeys {
			sh := 0
			for sh < len(prev) && sh < len(k) && prev[sh] == k[sh] {
				sh++
			}
			dst = binary.AppendUvarint(dst, uint64(sh))
			dst = binary.AppendUvarint(dst, uint64(len(k)-sh))
			dst = append(dst, k[sh:]...)
			prev = k
		}
	}
	return appendAddrs(dst, addrs, scratch)
}

// appendAddrs writes the address section in the smaller form.
func appendAddrs(dst []byte, addrs []uint64, scratch []uint64) []byte {
	mark := len(dst)
	dst = append(dst, addrSeparate)
	scratch = scratch[:0]
	flo, fhi, olo, ohi := ^uint64(0), uint64(0), ^uint64(0), uint64(0)
	for _, a := range addrs {
		f := a >> 32
		scratch = append(scratch, f)
		flo, fhi = min(flo, f), max(fhi, f)
	}
	dst = appendSeq(dst, scratch)
	fForm := dst[mark+1]
	scratch = scratch[:0]
	for _, a := range addrs {
		o := a & 0xffffffff
		scratch = append(scratch, o)
		olo, ohi = min(olo, o), max(ohi, o)
	}
	oMark := len(dst)
	dst = appendSeq(dst, scratch)
	if fForm != seqFOR || dst[oMark] != seqFOR || len(addrs) == 0 {
		return dst
	}
	fw, ow := uint(bits.Len64(fhi-flo)), uint(bits.Len64(ohi-olo))
	if fw+ow > 64 {
		return dst
	}
	// Both halves are bit-packed: interleave them instead.
	dst = dst[:mark]
	dst = append(dst, addrPaired)
	dst = binary.AppendUvarint(dst, flo)
	dst = append(dst, byte(fw))
	dst = binary.AppendUvarint(dst, olo)
	dst = append(dst, byte(ow))
	scratch = scratch[:0]
	for _, a := range addrs {
		scratch = append(scratch, (a>>32-flo)<<ow|(a&0xffffffff-olo))
	}
	return appendPacked(dst, scratch, 0, fw+ow)
}

// decodeAddrs reads the address section of p.
func decodeAddrs(p *page, b []byte) ([]byte, error) {
	if len(b) < 1 {
		return nil, corruptf("address section truncated")
	}
	form := b[0]
	b = b[1:]
	var err error
	switch form {
	case addrSeparate:
		if p.frags, b, err = decodeSeq(b, p.n); err != nil {
			return nil, err
		}
		if p.offs, b, err = decodeSeq(b, p.n); err != nil {
			return nil, err
		}
		return b, nil
	case addrPaired:
		r := reader{b: b}
		fb, fw, ob, ow := r.uvarint(), uint(r.u8()), r.uvarint(), uint(r.u8())
		if r.err != nil {
			return nil, corruptf("address header truncated")
		}
		if fw > 32 || ow > 32 {
			return nil, corruptf("address part wider than 32 bits")
		}
		p.paired, p.fbase, p.obase, p.ow = true, fb, ob, ow
		p.pair, b, err = decodePacked(r.b, p.n, 0, fw+ow)
		return b, err
	}
	return nil, corruptf("unknown address form %d", form)
}

// decodePage parses a page. b must stay unmodified while the page lives.
// It checks every length and the key order (string keys and run-form
// integer keys; bit-packed integer keys are trusted to the page CRC), and
// never panics on any input.
func decodePage(b []byte) (*page, error) {
	if len(b) < 2 {
		return nil, corruptf("page truncated")
	}
	p := &page{kind: b[0]}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || n == 0 || n > maxPageRows {
		return nil, corruptf("bad page row count")
	}
	p.n = int(n)
	rest := b[1+k:]
	var err error
	switch p.kind {
	case pageNull:
	case pageInt:
		if p.ukeys, rest, err = decodeSeq(rest, p.n); err != nil {
			return nil, err
		}
		if p.ukeys.runPos != nil && !p.ukeys.sorted() {
			return nil, corruptf("page keys out of order")
		}
	case pageString:
		if p.skeys, rest, err = decodeStrings(rest, p.n); err != nil {
			return nil, err
		}
	default:
		return nil, corruptf("unknown page kind %d", p.kind)
	}
	if rest, err = decodeAddrs(p, rest); err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, corruptf("%d trailing page bytes", len(rest))
	}
	if p.frags.runPos == nil && p.frags.width > 32 || p.offs.runPos == nil && p.offs.width > 32 {
		return nil, corruptf("address part wider than 32 bits")
	}
	p.bytes = int64(len(b)) + 160 + p.ukeys.size() + p.frags.size() + p.offs.size() + 16*int64(len(p.skeys))
	return p, nil
}

func decodeStrings(b []byte, n int) ([]string, []byte, error) {
	if n > len(b)/2 {
		return nil, nil, corruptf("string keys truncated")
	}
	// First pass: validate and size, so the keys share one allocation.
	total := 0
	prevLen := 0
	r := b
	for i := 0; i < n; i++ {
		sh, k1 := binary.Uvarint(r)
		if k1 <= 0 {
			return nil, nil, corruptf("string key truncated")
		}
		sl, k2 := binary.Uvarint(r[k1:])
		if k2 <= 0 || sh > uint64(prevLen) || sl > uint64(len(r)-k1-k2) {
			return nil, nil, corruptf("bad string key")
		}
		r = r[k1+k2+int(sl):]
		prevLen = int(sh) + int(sl)
		total += prevLen
		if total > 1<<30 {
			return nil, nil, corruptf("string keys too large")
		}
	}
	var sb strings.Builder
	sb.Grow(total)
	ends := make([]int, n)
	start := 0 // offset of the previous key in sb
	for i := 0; i < n; i++ {
		sh, k1 := binary.Uvarint(b)
		sl, k2 := binary.Uvarint(b[k1:])
		cur := sb.Len()
		if sh > 0 {
			// The shared prefix is copied from the previous key.
			sb.WriteString(sb.String()[start : start+int(sh)])
		}
		sb.Write(b[k1+k2 : k1+k2+int(sl)])
		b = b[k1+k2+int(sl):]
		start = cur
		ends[i] = sb.Len()
	}
	all := sb.String()
	keys := make([]string, n)
	from := 0
	for i, e := range ends {
		keys[i] = all[from:e]
		from = e
		if i > 0 && keys[i] < keys[i-1] {
			return nil, nil, corruptf("page keys out of order")
		}
	}
	return keys, b, nil
}

// pageKeyU / pageKeyS return key i of an integer / string page.
func pageKeyU(p *page, i int) uint64 { return p.ukeys.at(i) }
func pageKeyS(p *page, i int) string { return p.skeys[i] }

func pageLowerU(p *page, v uint64) int { return p.ukeys.lowerBound(v) }
func pageLowerS(p *page, v string) int {
	lo, hi := 0, p.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.skeys[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func (p *page) String() string { return fmt.Sprintf("page{kind %d, %d rows}", p.kind, p.n) }
