// Package encoding holds the light-weight encodings of table's data files
// (FormatEncoded): one column of one batch (a chunk) is encoded by Encode,
// choosing among the encodings below by encoded size, and decoded a whole
// chunk at a time into an Arrow array by Decode (a scan), or at given
// positions only by DecodeRows (a point take: bit-packed streams and
// plain values are read at those positions).
//
// A chunk is self-describing (integers little-endian, uv = uvarint):
//
//	u8 encoding | uv rows | u8 flags | [validity: (rows+7)/8 bytes, flags&hasNulls] | payload
//
// Encodings and their payloads:
//
//	plain (0)    fixed width: rows × width bytes of Arrow's buffer;
//	             boolean: (rows+7)/8 bytes of bits;
//	             string/binary: ints(rows lengths) | the value bytes
//	ints (1)     integers, dates, timestamps: ints(rows values);
//	             decimal128: 16-byte base | ints(rows offsets from it)
//	dict (2)     string/binary: uv size | ints(size lengths) | bytes |
//	             ints(rows codes)
//
// ints is an integer stream, itself frame-of-reference with bit-packing
// or run-length:
//
//	u8 0 | u64 base | u8 width | (count × width + 7) / 8 bytes of packed offsets from base
//	u8 1 | uv runs | ints(runs values, not run-length) | ints(runs lengths - 1, not run-length)
//
// Values are mapped to uint64 so that unsigned order is the type's order
// (a signed value has its sign bit flipped); null slots hold the base.
// Encode picks per chunk and, inside ints, per stream the smallest.
//
// Every count, width, length and offset is checked against the bytes and
// the expected row count before anything is read, and a chunk must be
// used exactly, so a damaged chunk is ErrCorrupt, never a panic or an
// array reading past its buffers. (table checks a CRC per column part
// before it decodes; the checks here are the second line, and what the
// fuzz targets exercise.) Decoded arrays may share the chunk's bytes
// (validity bitmaps, string bytes of plain chunks, booleans): the caller
// keeps them alive and unmodified as long as the arrays.
package encoding

//go:generate go run gen_unpack.go
