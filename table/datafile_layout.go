package table

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/stablerow/stablerow/errkind"
)

// batchParts splits the bytes one record batch's write added to a data
// file (sp; for the first batch also the file's magic and schema message)
// into the FormatColumns parts: the head, up to the batch body, and one
// range of the body per column, found from the buffer directory in the
// batch's IPC metadata:
//
//	[magic, schema message,] 0xFFFFFFFF | meta len | Message{RecordBatch{buffers}} | body
//	<----------------------------- head ------------------------------------------> <- parts ->
//
// Column c's part runs from its first buffer to column c+1's first buffer
// (the last to the body's end), so the parts tile the body, padding
// included; every buffer of c must lie inside it. Only the writer parses
// this (its own, just written, bytes): a reader verifies the parts from
// the manifest and checks that the buffers arrow-go hands it lie in the
// parts it verified (inVerified). A mismatch is an internal error.
func batchParts(sp []byte, first bool, types []arrow.DataType) (head uint64, lens []uint64, err error) {
	defer func() {
		if p := recover(); p != nil { // flatbuffers panics on out-of-range reads
			err = fmt.Errorf("%w: table: data file writer: batch metadata: %v", errkind.Internal, p)
		}
	}()
	pos := 0
	if first {
		if len(sp) < 8 || string(sp[:6]) != "ARROW1" {
			return 0, nil, fmt.Errorf("%w: table: data file writer: no file magic", errkind.Internal)
		}
		pos = 8
		meta, next, err := ipcMessage(sp, pos)
		if err != nil {
			return 0, nil, err
		}
		if msgHeaderType(meta) != headerSchema {
			return 0, nil, fmt.Errorf("%w: table: data file writer: first message is not the schema", errkind.Internal)
		}
		pos = next
	}
	meta, bodyStart, err := ipcMessage(sp, pos)
	if err != nil {
		return 0, nil, err
	}
	bodyLen := uint64(len(sp) - bodyStart)
	bufs, bl, ok := recordBatchBuffers(meta)
	if !ok || bl != bodyLen {
		return 0, nil, fmt.Errorf("%w: table: data file writer: batch message is not a record batch of a %d-byte body", errkind.Internal, bodyLen)
	}
	want := 0
	for _, t := range types {
		want += bufferCount(t)
	}
	if len(bufs) != want {
		return 0, nil, fmt.Errorf("%w: table: data file writer: batch has %d buffers, its columns %d", errkind.Internal, len(bufs), want)
	}
	lens = make([]uint64, len(types))
	var start uint64
	k := 0
	for c, t := range types {
		n := bufferCount(t)
		end := bodyLen
		if c+1 < len(types) {
			end = bufs[k+n][0]
		}
		if end < start || end > bodyLen {
			return 0, nil, fmt.Errorf("%w: table: data file writer: column %d's buffers out of order", errkind.Internal, c)
		}
		for _, b := range bufs[k : k+n] {
			if b[1] > 0 && (b[0] < start || b[0] > end || b[1] > end-b[0]) {
				return 0, nil, fmt.Errorf("%w: table: data file writer: a buffer of column %d lies outside its part", errkind.Internal, c)
			}
		}
		lens[c] = end - start
		start, k = end, k+n
	}
	return uint64(bodyStart), lens, nil
}

// bufferCount is the number of IPC buffers of a column of type t (the
// table's types are flat): validity and values, plus offsets for the
// variable-width ones.
func bufferCount(t arrow.DataType) int {
	switch t.ID() {
	case arrow.STRING, arrow.BINARY:
		return 3
	default:
		return 2
	}
}

// ipcMessage reads the encapsulated message at pos: continuation marker,
// metadata length, metadata. It returns the metadata and where the
// message's body starts.
func ipcMessage(b []byte, pos int) (meta []byte, body int, err error) {
	if pos < 0 || len(b)-pos < 8 || binary.LittleEndian.Uint32(b[pos:]) != 0xFFFFFFFF {
		return nil, 0, fmt.Errorf("%w: table: data file writer: no IPC message at %d", errkind.Internal, pos)
	}
	n := int(binary.LittleEndian.Uint32(b[pos+4:]))
	if n <= 0 || n > len(b)-pos-8 {
		return nil, 0, fmt.Errorf("%w: table: data file writer: IPC metadata of %d bytes at %d", errkind.Internal, n, pos)
	}
	return b[pos+8 : pos+8+n], pos + 8 + n, nil
}

// The fields of Arrow's Message and RecordBatch flatbuffer tables used here
// (vtable offsets: 4 + 2 × field index, Message.fbs), and the header union
// values.
const (
	fbMessageHeaderType = 6
	fbMessageHeader     = 8
	fbMessageBodyLength = 10
	fbBatchBuffers      = 8
	headerSchema        = 1
	headerRecordBatch   = 3
)

func msgRoot(meta []byte) flatbuffers.Table {
	return flatbuffers.Table{Bytes: meta, Pos: flatbuffers.GetUOffsetT(meta)}
}

func msgHeaderType(meta []byte) byte {
	t := msgRoot(meta)
	if o := flatbuffers.UOffsetT(t.Offset(fbMessageHeaderType)); o != 0 {
		return t.GetByte(o + t.Pos)
	}
	return 0
}

// recordBatchBuffers returns the (offset, length) of each body buffer of a
// RecordBatch message, and its body length.
func recordBatchBuffers(meta []byte) (bufs [][2]uint64, bodyLen uint64, ok bool) {
	t := msgRoot(meta)
	if msgHeaderType(meta) != headerRecordBatch {
		return nil, 0, false
	}
	if o := flatbuffers.UOffsetT(t.Offset(fbMessageBodyLength)); o != 0 {
		bodyLen = uint64(t.GetInt64(o + t.Pos))
	}
	o := flatbuffers.UOffsetT(t.Offset(fbMessageHeader))
	if o == 0 {
		return nil, 0, false
	}
	var rb flatbuffers.Table
	t.Union(&rb, o)
	o = flatbuffers.UOffsetT(rb.Offset(fbBatchBuffers))
	if o == 0 {
		return nil, bodyLen, true
	}
	v, n := rb.Vector(o), rb.VectorLen(o)
	bufs = make([][2]uint64, n)
	for i := range bufs {
		at := v + flatbuffers.UOffsetT(16*i) // struct Buffer { offset: long; length: long }
		bufs[i] = [2]uint64{uint64(rb.GetInt64(at)), uint64(rb.GetInt64(at + 8))}
	}
	return bufs, bodyLen, true
}
