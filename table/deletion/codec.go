package deletion

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"

	"github.com/RoaringBitmap/roaring/v2"
)

// Encoded layout (all integers little-endian):
//
//	+--------+---------+-------+------------+---------------------+---------+
//	| "SRDV" | version | flags | payloadLen | payload             | crc32c  |
//	| 4 B    | u16 = 1 | u16=0 | u32        | portable roaring    | u32     |
//	+--------+---------+-------+------------+---------------------+---------+
//
// crc32c (Castagnoli) covers every byte before it. An empty vector has
// payloadLen 0. The payload is the RoaringFormatSpec portable serialization,
// which Java/C/Rust (Lance) roaring read as-is.
const (
	magic      = "SRDV"
	version    = 1
	headerSize = 4 + 2 + 2 + 4
	crcSize    = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MarshalBinary encodes the vector (nil-safe).
func (v *Vector) MarshalBinary() ([]byte, error) {
	var payload []byte
	if !v.IsEmpty() {
		var err error
		if payload, err = v.bm.ToBytes(); err != nil {
			return nil, fmt.Errorf("deletion: serialize bitmap: %w", err)
		}
	}
	if uint64(len(payload)) > 1<<32-1 {
		return nil, fmt.Errorf("deletion: bitmap too large (%d bytes)", len(payload))
	}
	out := make([]byte, headerSize, headerSize+len(payload)+crcSize)
	copy(out, magic)
	binary.LittleEndian.PutUint16(out[4:], version)
	binary.LittleEndian.PutUint16(out[6:], 0)
	binary.LittleEndian.PutUint32(out[8:], uint32(len(payload)))
	out = append(out, payload...)
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
	return out, nil
}

// UnmarshalVector decodes b. Any defect gives an error wrapping ErrCorrupt;
// hostile input never panics and never allocates much more than len(b).
// An empty encoded vector decodes to nil.
func UnmarshalVector(b []byte) (*Vector, error) {
	if len(b) < headerSize+crcSize {
		return nil, fmt.Errorf("%w: %d bytes is shorter than header", ErrCorrupt, len(b))
	}
	if string(b[:4]) != magic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	if ver := binary.LittleEndian.Uint16(b[4:]); ver != version {
		return nil, fmt.Errorf("%w: unsupported version %d", ErrCorrupt, ver)
	}
	if flags := binary.LittleEndian.Uint16(b[6:]); flags != 0 {
		return nil, fmt.Errorf("%w: unknown flags %#x", ErrCorrupt, flags)
	}
	plen := uint64(binary.LittleEndian.Uint32(b[8:]))
	if plen != uint64(len(b)-headerSize-crcSize) {
		return nil, fmt.Errorf("%w: payload length %d does not match buffer (%d bytes)", ErrCorrupt, plen, len(b))
	}
	body := b[:len(b)-crcSize]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(b[len(b)-crcSize:]); got != want {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	payload := body[headerSize:]
	if len(payload) == 0 {
		return nil, nil
	}
	bm, err := decodeRoaring(payload)
	if err != nil {
		return nil, err
	}
	if bm.IsEmpty() {
		return nil, nil
	}
	return &Vector{bm: bm}, nil
}

// decodeRoaring checks the portable layout by hand before handing it to the
// roaring library, because its reader trusts sizes and cardinalities (it can
// panic or allocate far beyond the buffer on hostile input). After the
// structural check the library still runs under recover, then Validate.
func decodeRoaring(p []byte) (bm *roaring.Bitmap, err error) {
	if err := checkPortable(p); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			bm, err = nil, fmt.Errorf("%w: roaring payload: %v", ErrCorrupt, r)
		}
	}()
	bm = roaring.New()
	// Copy so the bitmap never aliases the caller's buffer.
	n, rerr := bm.ReadFrom(bytes.NewReader(p))
	if rerr != nil {
		return nil, fmt.Errorf("%w: roaring payload: %v", ErrCorrupt, rerr)
	}
	if n != int64(len(p)) {
		return nil, fmt.Errorf("%w: roaring payload has %d trailing bytes", ErrCorrupt, int64(len(p))-n)
	}
	if verr := bm.Validate(); verr != nil {
		return nil, fmt.Errorf("%w: roaring payload: %v", ErrCorrupt, verr)
	}
	return bm, nil
}

// Portable roaring format constants (RoaringFormatSpec).
const (
	cookieNoRun       = 12346
	cookieRun         = 12347
	noOffsetThreshold = 4
	maxContainers     = 1 << 16
	arrayMaxCard      = 4096
	bitmapBytes       = 8192
)

// checkPortable walks the portable serialization and verifies that every
// declared container fits inside p exactly, keys ascend strictly, and runs
// stay within their 16-bit container.
func checkPortable(p []byte) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: roaring payload: "+format, append([]any{ErrCorrupt}, args...)...)
	}
	if len(p) < 4 {
		return bad("truncated cookie")
	}
	cookie := binary.LittleEndian.Uint32(p)
	pos := 4
	var size int
	var runFlags []byte
	switch {
	case cookie&0xFFFF == cookieRun:
		size = int(cookie>>16) + 1
		nb := (size + 7) / 8
		if len(p)-pos < nb {
			return bad("truncated run flags")
		}
		runFlags = p[pos : pos+nb]
		pos += nb
	case cookie == cookieNoRun:
		if len(p)-pos < 4 {
			return bad("truncated container count")
		}
		s := binary.LittleEndian.Uint32(p[pos:])
		pos += 4
		if s > maxContainers {
			return bad("%d containers", s)
		}
		size = int(s)
	default:
		return bad("unknown cookie %#x", cookie)
	}
	if len(p)-pos < 4*size {
		return bad("truncated key/cardinality header")
	}
	desc := p[pos : pos+4*size]
	pos += 4 * size
	if runFlags == nil || size >= noOffsetThreshold {
		if len(p)-pos < 4*size {
			return bad("truncated offset header")
		}
		offs := p[pos : pos+4*size]
		pos += 4 * size
		// Offsets must point where the containers actually are, since the
		// library may seek by them.
		if err := checkOffsets(p, pos, desc, runFlags, offs, bad); err != nil {
			return err
		}
	}
	prevKey := -1
	for i := 0; i < size; i++ {
		key := int(binary.LittleEndian.Uint16(desc[4*i:]))
		card := int(binary.LittleEndian.Uint16(desc[4*i+2:])) + 1
		if key <= prevKey {
			return bad("container keys not strictly ascending")
		}
		prevKey = key
		n, err := containerSize(p, pos, card, runFlags != nil && runFlags[i/8]&(1<<(i%8)) != 0, bad)
		if err != nil {
			return err
		}
		pos += n
	}
	if pos != len(p) {
		return bad("%d trailing bytes", len(p)-pos)
	}
	return nil
}

// containerSize returns the encoded size of the container at p[pos:].
func containerSize(p []byte, pos, card int, isRun bool, bad func(string, ...any) error) (int, error) {
	switch {
	case isRun:
		if len(p)-pos < 2 {
			return 0, bad("truncated run count")
		}
		nruns := int(binary.LittleEndian.Uint16(p[pos:]))
		if len(p)-pos-2 < 4*nruns {
			return 0, bad("truncated run container")
		}
		total := 0
		prevEnd := -1
		for r := 0; r < nruns; r++ {
			start := int(binary.LittleEndian.Uint16(p[pos+2+4*r:]))
			length := int(binary.LittleEndian.Uint16(p[pos+4+4*r:]))
			if start <= prevEnd || start+length > 0xFFFF {
				return 0, bad("invalid run")
			}
			prevEnd = start + length
			total += length + 1
		}
		if total != card {
			return 0, bad("run cardinality %d != declared %d", total, card)
		}
		return 2 + 4*nruns, nil
	case card <= arrayMaxCard:
		if len(p)-pos < 2*card {
			return 0, bad("truncated array container")
		}
		for k := 1; k < card; k++ {
			if binary.LittleEndian.Uint16(p[pos+2*k:]) <= binary.LittleEndian.Uint16(p[pos+2*k-2:]) {
				return 0, bad("array container not strictly ascending")
			}
		}
		return 2 * card, nil
	default:
		if len(p)-pos < bitmapBytes {
			return 0, bad("truncated bitmap container")
		}
		got := 0
		for k := 0; k < bitmapBytes; k += 8 {
			got += bits.OnesCount64(binary.LittleEndian.Uint64(p[pos+k:]))
		}
		if got != card {
			return 0, bad("bitmap container holds %d values, declares %d", got, card)
		}
		return bitmapBytes, nil
	}
}

// checkOffsets verifies the optional offset header against the real
// container positions.
func checkOffsets(p []byte, pos int, desc, runFlags, offs []byte, bad func(string, ...any) error) error {
	size := len(desc) / 4
	for i := 0; i < size; i++ {
		if int(binary.LittleEndian.Uint32(offs[4*i:])) != pos {
			return bad("container %d offset mismatch", i)
		}
		card := int(binary.LittleEndian.Uint16(desc[4*i+2:])) + 1
		n, err := containerSize(p, pos, card, runFlags != nil && runFlags[i/8]&(1<<(i%8)) != 0, bad)
		if err != nil {
			return err
		}
		pos += n
	}
	return nil
}
