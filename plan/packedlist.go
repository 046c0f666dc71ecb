package plan

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/plan/ingest"

	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// A packed list literal (substrait.md §5, "Long IN lists") is the SQL
// front end's form of a long IN list of constants: one Substrait
// user-defined literal whose type is stablerow's packed_list and whose
// value is a google.protobuf.Any holding a google.protobuf.BytesValue,
// the payload below. A million values are then one byte slice through
// lowering, the plan's protobuf, any copy or marshalling of it and
// substrait-go's reading, instead of a Go object and a protobuf message
// per value at each of those layers (issue 26 item 6); the planner reads
// the payload straight into physexpr.InValues's typed slice.
//
// The payload, little-endian:
//
//	offset  size  field
//	0       4     magic "SRPL"
//	4       1     version, 1
//	5       1     element kind: 1 i32, 2 i64, 3 fp64, 4 string
//	6       1     flags: bit 0, the list also holds a NULL; others 0
//	7       1     reserved, 0
//	8       4     count: the non-NULL values
//	12            i32/i64/fp64: count values of 4, 8, 8 bytes
//	              string: count+1 offsets (u32, the first 0, none
//	              decreasing, the last the data's length), then the data
//	              (each value valid UTF-8)
//
// The payload's length is exactly what its header says. The order of the
// values is kept (IN does not depend on it); the NULLs are one flag, as IN
// only asks whether the list holds one. A decoder refuses anything else
// with ErrInvalidPlan; it never allocates more than the payload's length
// justifies (FuzzPackedList).

// PackedListURN and PackedListType name the packed list's user-defined
// type in a plan's extension declarations.
// They are the validator's (plan/ingest), which accepts such a literal.
const (
	PackedListURN  = ingest.PackedListURN
	PackedListType = ingest.PackedListType
)

// PackedKind is a packed list's element type.
type PackedKind uint8

const (
	PackedI32 PackedKind = 1 + iota
	PackedI64
	PackedF64
	PackedString
)

const (
	packedMagic   = "SRPL"
	packedVersion = 1
	packedHeader  = 12
	packedNull    = 1 // flags bit 0
	// wirePrefix is the most a BytesValue's field 1 tag and length take
	// (1 byte of tag, a varint of at most 5 bytes for a uint32 length).
	wirePrefix = 6
)

// bytesValueURL is the Any type URL of a google.protobuf.BytesValue,
// which protojson resolves: a plan holding a packed list still reads and
// writes as protobuf JSON ({"@type": ..., "value": "<base64>"}).
var bytesValueURL = "type.googleapis.com/" + string((&wrapperspb.BytesValue{}).ProtoReflect().Descriptor().FullName())

func (k PackedKind) width() int {
	switch k {
	case PackedI32:
		return 4
	case PackedI64, PackedF64:
		return 8
	}
	return 0
}

func (k PackedKind) String() string {
	switch k {
	case PackedI32:
		return "i32"
	case PackedI64:
		return "i64"
	case PackedF64:
		return "fp64"
	case PackedString:
		return "string"
	}
	return fmt.Sprintf("kind %d", uint8(k))
}

// PackedWriter builds a packed list's Any. Fixed-width values are written
// straight into the final buffer; strings are gathered, then laid out
// once.
type PackedWriter struct {
	kind  PackedKind
	buf   []byte // wirePrefix of room, the header, then fixed-width values
	count int
	null  bool
	offs  []uint32 // strings: the end of each value in data
	data  []byte
}

// NewPackedWriter starts a list of kind, with room for n values (and, for
// strings, dataBytes of text).
func NewPackedWriter(kind PackedKind, n, dataBytes int) *PackedWriter {
	w := &PackedWriter{kind: kind}
	if kind == PackedString {
		w.offs = make([]uint32, 0, n)
		w.data = make([]byte, 0, dataBytes)
		return w
	}
	w.buf = make([]byte, wirePrefix+packedHeader, wirePrefix+packedHeader+n*kind.width())
	return w
}

// Int appends an integer (of an i32 or i64 list).
func (w *PackedWriter) Int(v int64) {
	if w.kind == PackedI32 {
		w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(int32(v)))
	} else {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(v))
	}
	w.count++
}

// Float appends a double.
func (w *PackedWriter) Float(v float64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(v))
	w.count++
}

// String appends a string.
func (w *PackedWriter) String(s string) {
	w.data = append(w.data, s...)
	w.offs = append(w.offs, uint32(len(w.data)))
	w.count++
}

// Null records that the list holds a NULL.
func (w *PackedWriter) Null() { w.null = true }

// Len is the number of non-NULL values appended.
func (w *PackedWriter) Len() int { return w.count }

// Any finishes the list: the Any of a BytesValue holding the payload.
// The error is ErrInvalidPlan for a list too long for the format (its
// count or string data beyond 4 GiB).
func (w *PackedWriter) Any() (*anypb.Any, error) {
	if uint64(w.count) > math.MaxUint32 || uint64(len(w.data)) > math.MaxUint32 {
		return nil, fmt.Errorf("%w: packed list of %d values, %d bytes: beyond the format's 4 GiB", ErrInvalidPlan, w.count, len(w.data))
	}
	if w.kind == PackedString {
		w.buf = make([]byte, wirePrefix+packedHeader, wirePrefix+packedHeader+4*(len(w.offs)+1)+len(w.data))
		w.buf = binary.LittleEndian.AppendUint32(w.buf, 0)
		for _, o := range w.offs {
			w.buf = binary.LittleEndian.AppendUint32(w.buf, o)
		}
		w.buf = append(w.buf, w.data...)
		w.offs, w.data = nil, nil
	}
	h := w.buf[wirePrefix:]
	copy(h, packedMagic)
	h[4], h[5], h[6], h[7] = packedVersion, byte(w.kind), 0, 0
	if w.null {
		h[6] = packedNull
	}
	binary.LittleEndian.PutUint32(h[8:], uint32(w.count))
	// The BytesValue's field 1 (tag 0x0a) and length go right before the
	// payload, in the room kept for them: no copy of the payload.
	var pre [wirePrefix]byte
	pre[0] = 0x0a
	n := 1 + binary.PutUvarint(pre[1:], uint64(len(h)))
	start := wirePrefix - n
	copy(w.buf[start:], pre[:n])
	out := &anypb.Any{TypeUrl: bytesValueURL, Value: w.buf[start:]}
	w.buf = nil
	return out, nil
}

// PackedList is a decoded packed list: Values is []int32, []int64,
// []float64 or []string (the non-NULL values, in order), Null whether the
// list also holds a NULL.
type PackedList struct {
	Kind   PackedKind
	Values any
	Null   bool
}

// Len is the number of non-NULL values.
func (l PackedList) Len() int { return physexpr.ValuesLen(l.Values) }

// DecodePackedList reads a packed list's Any. Every malformed input is an
// error wrapping ErrInvalidPlan, never a panic.
func DecodePackedList(a *anypb.Any) (PackedList, error) {
	if a == nil {
		return PackedList{}, fmt.Errorf("%w: packed list without a value", ErrInvalidPlan)
	}
	if a.GetTypeUrl() != bytesValueURL {
		return PackedList{}, fmt.Errorf("%w: packed list value of type %q, want %q", ErrInvalidPlan, a.GetTypeUrl(), bytesValueURL)
	}
	b := a.GetValue()
	if len(b) == 0 || b[0] != 0x0a {
		return PackedList{}, fmt.Errorf("%w: packed list: the BytesValue does not start with its field 1", ErrInvalidPlan)
	}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || n != uint64(len(b)-1-k) {
		return PackedList{}, fmt.Errorf("%w: packed list: the BytesValue's length does not match its %d bytes", ErrInvalidPlan, len(b))
	}
	return decodePacked(b[1+k:])
}

// decodePacked reads a payload.
func decodePacked(p []byte) (PackedList, error) {
	bad := func(format string, args ...any) (PackedList, error) {
		return PackedList{}, fmt.Errorf("%w: packed list: %s", ErrInvalidPlan, fmt.Sprintf(format, args...))
	}
	if len(p) < packedHeader {
		return bad("%d bytes, shorter than its %d-byte header", len(p), packedHeader)
	}
	if string(p[:4]) != packedMagic {
		return bad("bad magic %q", p[:4])
	}
	if p[4] != packedVersion {
		return bad("version %d, this reader knows %d", p[4], packedVersion)
	}
	kind := PackedKind(p[5])
	if p[6]&^packedNull != 0 || p[7] != 0 {
		return bad("unknown flags %#x %#x", p[6], p[7])
	}
	l := PackedList{Kind: kind, Null: p[6]&packedNull != 0}
	count := uint64(binary.LittleEndian.Uint32(p[8:]))
	body := p[packedHeader:]
	if kind == PackedString {
		if 4*(count+1) > uint64(len(body)) {
			return bad("%d string offsets in %d bytes", count+1, len(body))
		}
		offs, data := body[:4*(count+1)], body[4*(count+1):]
		vals := make([]string, count)
		all := string(data) // one copy; the values are slices of it
		prev := binary.LittleEndian.Uint32(offs)
		if prev != 0 {
			return bad("first string offset %d, want 0", prev)
		}
		for i := range vals {
			o := binary.LittleEndian.Uint32(offs[4*(i+1):])
			if o < prev || uint64(o) > uint64(len(all)) {
				return bad("string %d at offsets %d..%d of %d bytes", i, prev, o, len(all))
			}
			vals[i] = all[prev:o]
			if !utf8.ValidString(vals[i]) {
				return bad("string %d is not valid UTF-8", i)
			}
			prev = o
		}
		if uint64(prev) != uint64(len(all)) {
			return bad("the strings end at %d of %d data bytes", prev, len(all))
		}
		l.Values = vals
	} else {
		w := kind.width()
		if w == 0 {
			return bad("unknown element kind %d", uint8(kind))
		}
		if count*uint64(w) != uint64(len(body)) {
			return bad("%d %s values in %d bytes", count, kind, len(body))
		}
		switch kind {
		case PackedI32:
			vals := make([]int32, count)
			for i := range vals {
				vals[i] = int32(binary.LittleEndian.Uint32(body[4*i:]))
			}
			l.Values = vals
		case PackedI64:
			vals := make([]int64, count)
			for i := range vals {
				vals[i] = int64(binary.LittleEndian.Uint64(body[8*i:]))
			}
			l.Values = vals
		case PackedF64:
			vals := make([]float64, count)
			for i := range vals {
				vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(body[8*i:]))
			}
			l.Values = vals
		}
	}
	if count == 0 && !l.Null {
		return bad("empty")
	}
	return l, nil
}
