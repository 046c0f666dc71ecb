package table

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// The envelope of the small records written beside the manifests: the
// table layer's write intents (intent.go, magic SRIN) and transaction
// records (txnrecord.go, SRTX), and the engine's view catalog (SRVW):
// one owner for how such a file is framed and checked, so a reader
// verifies each the same way.
//
//	magic (4) | u16 format version | u16 flags (0) | u32 body length |
//	body | u32 CRC32C (Castagnoli) of every byte before it
const envelopeHeader = 4 + 2 + 2 + 4

// SealEnvelope frames body as a record of the given magic and version.
func SealEnvelope(magic string, version uint16, body []byte) []byte {
	out := make([]byte, 0, envelopeHeader+len(body)+4)
	out = append(out, magic...)
	out = binary.LittleEndian.AppendUint16(out, version)
	out = binary.LittleEndian.AppendUint16(out, 0)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(body)))
	out = append(out, body...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

// OpenEnvelope checks b's frame (size, magic, version, flags, the body's
// length against the file's, the checksum) and returns its body; bad
// makes the caller's ErrCorrupt naming the record.
func OpenEnvelope(b []byte, magic string, version uint16, bad func(format string, args ...any) error) ([]byte, error) {
	if len(b) < envelopeHeader+4 {
		return nil, bad("%d bytes is too short", len(b))
	}
	if !bytes.Equal(b[:4], []byte(magic)) {
		return nil, bad("bad magic %q", b[:4])
	}
	if v := binary.LittleEndian.Uint16(b[4:]); v != version {
		return nil, bad("unsupported format version %d", v)
	}
	if fl := binary.LittleEndian.Uint16(b[6:]); fl != 0 {
		return nil, bad("unknown flags %#x", fl)
	}
	if n := uint64(binary.LittleEndian.Uint32(b[8:])); n != uint64(len(b)-envelopeHeader-4) {
		return nil, bad("body length %d does not match record size %d", n, len(b))
	}
	crcAt := len(b) - 4
	if got, want := crc32.Checksum(b[:crcAt], castagnoli), binary.LittleEndian.Uint32(b[crcAt:]); got != want {
		return nil, bad("checksum mismatch (%08x != %08x)", got, want)
	}
	return b[envelopeHeader:crcAt], nil
}
