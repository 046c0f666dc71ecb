package table

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batchSpan is one record batch of a FormatColumns data file as the
// manifest cuts it, over bytes the caller verified (the head and the parts
// of the columns it decodes):
//
//	b:  [magic, schema message,] 0xFFFFFFFF | meta len | Message{RecordBatch} | part 0 | part 1 | ...
//	    <------------------------------ head ------------------------------> <------ body ------->
//
// decode reads the RecordBatch metadata with its own bounds-checked
// flatbuffer reader (fbTable) and builds arrays over the projected
// columns' buffers only, zero-copy: arrow-go's ipc reader decodes every
// column of the batch (strings too) and re-validates the flatbuffer on each
// call, which cost a 1-column scan more than the scan itself. Every offset
// read from the metadata is checked against the span, every buffer
// against its column's part and every length against the column's type,
// so no input makes it read outside b, hand out a buffer from an
// unverified part, or build an array that reads past its buffers.
//
// The one check that costs more than a few compares, that a string
// column's offsets rise within its values, is made once per column of a
// batch per mapping: marks (the batch's verification marks, nil for none)
// remember it as markDecoded, since the same verified bytes under the same
// description decode the same way every time.
type batchSpan struct {
	b     []byte
	first bool            // batch 0: the head starts with the magic and schema message
	head  uint64          // length of the head
	parts []ColumnPart    // one per column of the file, tiling b[head:]
	marks []atomic.Uint32 // the batch's marks: head, then one per column
}

// errOutsidePart is decode's error for a buffer outside its column's part.
var errOutsidePart = errors.New("buffers lie outside its checked part")

// decode returns columns cols (types: every column's type in file order)
// of the batch, which must have rows rows, in dst's storage. The arrays
// reference b; the caller releases them. Errors describe the defect; the
// caller names the file.
func (s batchSpan) decode(types []arrow.DataType, cols []int, rows int64, dst []arrow.Array) (out []arrow.Array, err error) {
	if len(types) != len(s.parts) {
		return nil, fmt.Errorf("%d column parts for %d columns", len(s.parts), len(types))
	}
	rb, err := s.recordBatch()
	if err != nil {
		return nil, err
	}
	if n, _, ok := rb.i64(fbBatchLength); !ok || n != rows {
		return nil, fmt.Errorf("batch has %d rows, expected %d", n, rows)
	}
	if _, present, _ := rb.ref(fbBatchCompression); present {
		return nil, errors.New("batch is compressed")
	}
	nodes, nn, _, ok := rb.structs(fbBatchNodes, 16)
	if !ok || nn != uint64(len(types)) {
		return nil, fmt.Errorf("batch has %d field nodes for %d columns", nn, len(types))
	}
	bufs, nb, _, ok := rb.structs(fbBatchBuffers, 16)
	want := 0
	for _, t := range types {
		want += bufferCount(t)
	}
	if !ok || nb != uint64(want) {
		return nil, fmt.Errorf("batch has %d buffers for %d", nb, want)
	}
	out = slices.Grow(dst[:0], len(cols))[:len(cols)]
	clear(out)
	defer func() {
		if err != nil {
			releaseAll(out)
			out = nil
		}
	}()
	for k, c := range cols {
		if c < 0 || c >= len(types) {
			return nil, fmt.Errorf("no column %d", c)
		}
		lo, first := s.head, 0 // column c's part and its first buffer
		for j := range c {
			lo += s.parts[j].Len
			first += bufferCount(types[j])
		}
		hi := lo + s.parts[c].Len
		if hi > uint64(len(s.b)) || hi < lo {
			return nil, fmt.Errorf("column %d's part runs past the batch", c)
		}
		length := int64(le64(s.b[nodes+16*uint64(c):]))
		nulls := int64(le64(s.b[nodes+16*uint64(c)+8:]))
		if length != rows || nulls < 0 || nulls > length {
			return nil, fmt.Errorf("column %d: field node of %d values, %d null, in a batch of %d rows", c, length, nulls, rows)
		}
		n := bufferCount(types[c])
		var raw [3][]byte
		for j := range n {
			at := bufs + 16*uint64(first+j)
			off, ln := le64(s.b[at:]), le64(s.b[at+8:])
			if ln == 0 {
				continue
			}
			// Buffer offsets are relative to the body (the head's end).
			if off > math.MaxUint64-s.head-ln || s.head+off < lo || s.head+off+ln > hi {
				return nil, fmt.Errorf("column %d's %w", c, errOutsidePart)
			}
			raw[j] = s.b[s.head+off : s.head+off+ln]
		}
		known := s.marks != nil && s.marks[1+c].Load()&markDecoded != 0
		a, err := columnArray(types[c], length, nulls, raw[:n], known)
		if err != nil {
			return nil, fmt.Errorf("column %d: %w", c, err)
		}
		if !known && s.marks != nil {
			s.marks[1+c].Or(markDecoded)
		}
		out[k] = a
	}
	return out, nil
}

// recordBatch finds the RecordBatch table of the span's message: it must
// be the head's last bytes, with a body exactly the parts.
func (s batchSpan) recordBatch() (fbTable, error) {
	if s.head > uint64(len(s.b)) {
		return fbTable{}, fmt.Errorf("head of %d bytes in a %d-byte batch", s.head, len(s.b))
	}
	head := s.b[:s.head]
	pos := uint64(0)
	if s.first {
		if len(head) < 8 || string(head[:6]) != "ARROW1" {
			return fbTable{}, errors.New("no file magic")
		}
		_, next, err := message(head, 8)
		if err != nil {
			return fbTable{}, err
		}
		pos = next // the schema message has no body
	}
	meta, end, err := message(head, pos)
	if err != nil {
		return fbTable{}, err
	}
	if end != s.head {
		return fbTable{}, fmt.Errorf("batch message ends at %d, its body starts at %d", end, s.head)
	}
	msg, ok := fbRoot(meta)
	if !ok {
		return fbTable{}, errors.New("batch metadata is not a flatbuffer")
	}
	if ht, _ := msg.u8(fbMessageHeaderType); ht != headerRecordBatch {
		return fbTable{}, fmt.Errorf("message header type %d is not a record batch", ht)
	}
	var body uint64
	for _, p := range s.parts {
		body += p.Len
	}
	if n, _, ok := msg.i64(fbMessageBodyLength); !ok || uint64(n) != body || body != uint64(len(s.b))-s.head {
		return fbTable{}, fmt.Errorf("batch body of %d bytes, its parts hold %d", n, body)
	}
	rb, present, ok := msg.sub(fbMessageHeader)
	if !ok || !present {
		return fbTable{}, errors.New("batch message has no record batch")
	}
	// The struct vectors decode reads must lie inside b, which holds
	// meta: translate their positions from meta to b.
	rb.base = uint64(len(head)) - uint64(len(meta))
	return rb, nil
}

// message reads the encapsulated IPC message at pos of b (continuation
// marker, metadata length, metadata) and returns its metadata and where it
// ends.
func message(b []byte, pos uint64) (meta []byte, end uint64, err error) {
	if pos > uint64(len(b)) || uint64(len(b))-pos < 8 || binary.LittleEndian.Uint32(b[pos:]) != 0xFFFFFFFF {
		return nil, 0, fmt.Errorf("no IPC message at %d", pos)
	}
	n := uint64(binary.LittleEndian.Uint32(b[pos+4:]))
	if n == 0 || n > uint64(len(b))-pos-8 {
		return nil, 0, fmt.Errorf("IPC metadata of %d bytes at %d", n, pos)
	}
	return b[pos+8 : pos+8+n], pos + 8 + n, nil
}

// columnArray builds the array of a column of type t from its IPC buffers
// (validity, [offsets,] values; nil when empty), checking each is long
// enough for length values and, for strings, that the offsets rise within
// the values (unless offsetsOK: checked before on these bytes).
func columnArray(t arrow.DataType, length, nulls int64, raw [][]byte, offsetsOK bool) (arrow.Array, error) {
	bitmap := (uint64(length) + 7) / 8
	validity := raw[0]
	if nulls == 0 {
		validity = nil // arrow-go's reader drops it too
	} else if uint64(len(validity)) < bitmap {
		return nil, fmt.Errorf("validity bitmap of %d bytes for %d values", len(validity), length)
	}
	var need uint64
	switch tt := t.(type) {
	case *arrow.BooleanType:
		need = bitmap
	case arrow.FixedWidthDataType:
		w := uint64(tt.BitWidth() / 8)
		if w == 0 {
			return nil, fmt.Errorf("unsupported type %s", t)
		}
		hi, lo := bits.Mul64(uint64(length), w)
		if hi != 0 {
			return nil, fmt.Errorf("%d values", length)
		}
		need = lo
	case *arrow.StringType, *arrow.BinaryType:
		if uint64(len(raw[1]))/4 < uint64(length)+1 {
			return nil, fmt.Errorf("%d offset bytes for %d values", len(raw[1]), length)
		}
		if !offsetsOK {
			if err := checkOffsets(raw[1], raw[2], length); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("unsupported type %s", t)
	}
	if need > 0 && uint64(len(raw[len(raw)-1])) < need {
		return nil, fmt.Errorf("%d value bytes for %d values of %s", len(raw[len(raw)-1]), length, t)
	}
	bufs := make([]*memory.Buffer, len(raw))
	for j, r := range raw {
		if j == 0 && validity == nil {
			continue
		}
		bufs[j] = memory.NewBufferBytes(r)
	}
	data := array.NewData(t, int(length), bufs, nil, int(nulls), 0)
	a := array.MakeFromData(data)
	data.Release()
	return a, nil
}

// checkOffsets checks a string or binary column's length+1 offsets (the
// caller checked there are as many): the first 0 or more, none below the
// one before, the last within the values.
func checkOffsets(offsets, values []byte, length int64) error {
	if length == 0 {
		return nil
	}
	o := arrow.Int32Traits.CastFromBytes(offsets)[:length+1]
	bad := o[0] < 0
	for i := 1; i < len(o); i++ {
		bad = bad || o[i] < o[i-1]
	}
	if bad || int64(o[length]) > int64(len(values)) {
		return fmt.Errorf("offsets out of order or past %d value bytes", len(values))
	}
	return nil
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// The RecordBatch fields decode reads (vtable offsets, Message.fbs).
const (
	fbBatchLength      = 4
	fbBatchNodes       = 6
	fbBatchCompression = 10
)

// fbTable is a bounds-checked view of a flatbuffer table in b: unlike the
// flatbuffers package, which trusts its input and panics or reads garbage
// on a bad offset, every read checks its position against b and reports
// ok=false. base is added to the positions structs returns (where b starts
// in the caller's buffer).
type fbTable struct {
	b             []byte
	pos, vt       uint64 // the table and its vtable
	vtLen, objLen uint64
	base          uint64
}

// fbRoot is the root table of the flatbuffer b.
func fbRoot(b []byte) (fbTable, bool) {
	if len(b) < 4 {
		return fbTable{}, false
	}
	return fbAt(b, uint64(binary.LittleEndian.Uint32(b)))
}

// fbAt is the table at pos of b: a signed offset back to its vtable, whose
// size and the object's size are checked against b.
func fbAt(b []byte, pos uint64) (fbTable, bool) {
	n := uint64(len(b))
	if pos > n || n-pos < 4 {
		return fbTable{}, false
	}
	vt := int64(pos) - int64(int32(binary.LittleEndian.Uint32(b[pos:])))
	if vt < 0 || uint64(vt) > n || n-uint64(vt) < 4 {
		return fbTable{}, false
	}
	t := fbTable{b: b, pos: pos, vt: uint64(vt)}
	t.vtLen = uint64(binary.LittleEndian.Uint16(b[t.vt:]))
	t.objLen = uint64(binary.LittleEndian.Uint16(b[t.vt+2:]))
	if t.vtLen < 4 || t.vtLen > n-t.vt || t.objLen < 4 || t.objLen > n-pos {
		return fbTable{}, false
	}
	return t, true
}

// field is the position of the field at vtable offset slot, of size bytes
// inside the table's object; present is false for a field not written.
func (t fbTable) field(slot, size uint64) (at uint64, present, ok bool) {
	if slot+2 > t.vtLen {
		return 0, false, true
	}
	o := uint64(binary.LittleEndian.Uint16(t.b[t.vt+slot:]))
	if o == 0 {
		return 0, false, true
	}
	if o > t.objLen || t.objLen-o < size {
		return 0, true, false
	}
	return t.pos + o, true, true
}

func (t fbTable) u8(slot uint64) (byte, bool) {
	at, present, ok := t.field(slot, 1)
	if !present || !ok {
		return 0, ok
	}
	return t.b[at], true
}

func (t fbTable) i64(slot uint64) (int64, bool, bool) {
	at, present, ok := t.field(slot, 8)
	if !present || !ok {
		return 0, present, ok
	}
	return int64(le64(t.b[at:])), true, true
}

// ref follows the offset field at slot to the position it points at.
func (t fbTable) ref(slot uint64) (target uint64, present, ok bool) {
	at, present, ok := t.field(slot, 4)
	if !present || !ok {
		return 0, present, ok
	}
	target = at + uint64(binary.LittleEndian.Uint32(t.b[at:]))
	return target, true, target <= uint64(len(t.b))
}

// sub is the table the offset field at slot points at.
func (t fbTable) sub(slot uint64) (fbTable, bool, bool) {
	target, present, ok := t.ref(slot)
	if !present || !ok {
		return fbTable{}, present, ok
	}
	s, ok := fbAt(t.b, target)
	return s, true, ok
}

// structs is the vector of size-byte structs at slot: where its first
// element starts (plus base) and its length, all of it inside b. An absent
// vector is empty.
func (t fbTable) structs(slot, size uint64) (start, n uint64, present, ok bool) {
	target, present, ok := t.ref(slot)
	if !present || !ok {
		return 0, 0, present, ok
	}
	if uint64(len(t.b))-target < 4 {
		return 0, 0, true, false
	}
	n = uint64(binary.LittleEndian.Uint32(t.b[target:]))
	start = target + 4
	if n*size > uint64(len(t.b))-start { // n < 2^32, size small: no overflow
		return 0, 0, true, false
	}
	return start + t.base, n, true, true
}
