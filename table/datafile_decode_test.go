package table

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/stablerow/stablerow/internal/fuzzseed"
	"github.com/stablerow/stablerow/table/store"
)

// spanSchema has a column of each way batchSpan decodes: fixed width
// (8 and 16 bytes, 4 and 8 byte non-null), bit-packed booleans, and
// offsets plus values (string and binary), with nulls.
var spanSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "d", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
	{Name: "t", Type: arrow.FixedWidthTypes.Date32},
	{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64},
}, nil)

func spanTypes() []arrow.DataType {
	types := make([]arrow.DataType, spanSchema.NumFields())
	for c, fld := range spanSchema.Fields() {
		types[c] = fld.Type
	}
	return types
}

// decodeRows is the fixture's row count: batches of 8, 8 and 4 rows.
const decodeRows = 20

// decodeFixture is a one-fragment table of spanSchema in a memory
// store, and its data file's bytes.
func decodeFixture(t testing.TB, mem memory.Allocator) (*Table, *Fragment, []byte) {
	ctx := context.Background()
	tb, err := Create(ctx, store.NewMemory(), spanSchema, Options{BatchRows: 8})
	require.NoError(t, err)
	rb := array.NewRecordBuilder(mem, spanSchema)
	defer rb.Release()
	for r := range decodeRows {
		if r%5 == 3 {
			for c := range 4 {
				rb.Field(c).AppendNull()
			}
		} else {
			rb.Field(0).(*array.Int64Builder).Append(int64(r * 1000))
			rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row %d%s", r, bytes.Repeat([]byte{'x'}, r)))
			rb.Field(2).(*array.BooleanBuilder).Append(r%3 == 0)
			rb.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(r) * 101))
		}
		rb.Field(4).(*array.Date32Builder).Append(arrow.Date32(9000 + r))
		if r%4 == 1 {
			rb.Field(5).AppendNull()
		} else {
			rb.Field(5).(*array.BinaryBuilder).Append(bytes.Repeat([]byte{byte(r)}, r%6))
		}
		rb.Field(6).(*array.Float64Builder).Append(float64(r) / 8)
	}
	b := rb.NewRecordBatch()
	defer b.Release()
	tb, err = tb.AppendBatches(ctx, []arrow.RecordBatch{b}, mem)
	require.NoError(t, err)
	require.Len(t, tb.Fragments(), 1)
	f := tb.Fragments()[0]
	data, err := tb.st.Get(ctx, f.DataFile)
	require.NoError(t, err)
	return tb, f, data
}

// spanOf is batch i of f's file data as the reader cuts it.
func spanOf(f *Fragment, data []byte, i int) batchSpan {
	start, end := f.File.span(i)
	sp := f.File.Spans[i]
	return batchSpan{b: data[start:end], first: i == 0, head: sp.Head, parts: slices.Clone(sp.Cols)}
}

// inSpanPart reports whether every buffer of a lies inside column c's part
// of s.
func inSpanPart(s batchSpan, c int, a arrow.Array) bool {
	lo := s.head
	for _, p := range s.parts[:c] {
		lo += p.Len
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s.b)))
	start, end := base+uintptr(lo), base+uintptr(lo+s.parts[c].Len)
	for _, buf := range a.Data().Buffers() {
		if buf == nil || buf.Len() == 0 {
			continue
		}
		p := uintptr(unsafe.Pointer(unsafe.SliceData(buf.Bytes())))
		if p < start || p+uintptr(buf.Len()) > end {
			return false
		}
	}
	return true
}

// bufferAt is where buffer j of column c of s (an 8-row batch) starts in
// s.b, as decoded.
func bufferAt(t testing.TB, s batchSpan, c, j int) uint64 {
	out, err := s.decode(spanTypes(), []int{c}, 8, nil)
	require.NoError(t, err)
	defer releaseAll(out)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(out[0].Data().Buffers()[j].Bytes())))
	return uint64(p - uintptr(unsafe.Pointer(unsafe.SliceData(s.b))))
}

// TestBatchSpanDecodesLikeArrow: every batch, for single columns, all
// columns and all in reverse order, decodes to exactly what arrow-go's IPC
// reader makes of the batch, with every buffer inside the column's own
// part (a mutation that reads the part or the buffers of the neighbouring
// column, or the field node of another, fails here).
func TestBatchSpanDecodesLikeArrow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, f, data := decodeFixture(t, mem)
	fr, err := ipc.NewFileReader(bytes.NewReader(data), ipc.WithAllocator(mem))
	require.NoError(t, err)
	defer fr.Close()
	types := spanTypes()
	all := []int{0, 1, 2, 3, 4, 5, 6}
	sets := [][]int{all, {6, 5, 4, 3, 2, 1, 0}, {1, 1}}
	for c := range all {
		sets = append(sets, []int{c})
	}
	for i := range f.File.Spans {
		want, err := fr.RecordBatchAt(i)
		require.NoError(t, err)
		rows := int64(min(8, decodeRows-8*i))
		s := spanOf(f, data, i)
		for _, cols := range sets {
			out, err := s.decode(types, cols, rows, nil)
			require.NoError(t, err, "batch %d cols %v", i, cols)
			for k, c := range cols {
				require.Truef(t, array.Equal(want.Column(c), out[k]), "batch %d column %d: %v, want %v", i, c, out[k], want.Column(c))
				require.True(t, inSpanPart(s, c, out[k]), "batch %d column %d", i, c)
			}
			releaseAll(out)
		}
		want.Release()
	}
}

// TestBatchSpanRefuses: damage the reader's other checks would not catch
// (each case's bytes or description are consistent with their CRCs) is an
// error from decode, not an array over the wrong bytes.
func TestBatchSpanRefuses(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, f, data := decodeFixture(t, mem)
	types := spanTypes()
	offsetsAt := func(s batchSpan) uint64 { return bufferAt(t, s, 1, 1) }
	for _, tc := range []struct {
		name string
		cols []int
		rows int64
		edit func(s *batchSpan)
		want string
	}{
		{"rows", []int{0}, 9, func(*batchSpan) {}, "rows"},
		{"head short", []int{0}, 8, func(s *batchSpan) { s.head-- }, ""},
		{"parts shifted", []int{0}, 8, func(s *batchSpan) { s.parts[0].Len -= 8; s.parts[1].Len += 8 }, errOutsidePart.Error()},
		{"parts not the body", []int{0}, 8, func(s *batchSpan) { s.parts[6].Len-- }, "body"},
		{"parts missing", []int{0}, 8, func(s *batchSpan) { s.parts = s.parts[:6] }, "column parts"},
		{"offsets fall", []int{1}, 8, func(s *batchSpan) {
			at := offsetsAt(*s) + 4*3
			binary.LittleEndian.PutUint32(s.b[at:], binary.LittleEndian.Uint32(s.b[at+4:])+1)
		}, "offsets"},
		{"offsets past values", []int{1}, 8, func(s *batchSpan) {
			binary.LittleEndian.PutUint32(s.b[offsetsAt(*s)+4*8:], 1<<20)
		}, "offsets"},
		{"first offset negative", []int{1}, 8, func(s *batchSpan) {
			binary.LittleEndian.PutUint32(s.b[offsetsAt(*s):], 0xFFFFFFFF)
		}, "offsets"},
		{"not a message", []int{0}, 8, func(s *batchSpan) { s.b[0] = 0 }, "no IPC message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spanOf(f, bytes.Clone(data), 1)
			s.b = bytes.Clone(s.b)
			tc.edit(&s)
			out, err := s.decode(types, tc.cols, tc.rows, nil)
			require.Error(t, err)
			require.Nil(t, out)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestBatchSpanMarksDecoded: a string column's offsets are checked once
// per mapping: decode marks the column part, and a decode with the mark
// set trusts them (the mark, not the bytes, decides: damaged offsets
// under a mark decode, without it they do not).
func TestBatchSpanMarksDecoded(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, f, data := decodeFixture(t, mem)
	types := spanTypes()
	s := spanOf(f, bytes.Clone(data), 1)
	s.marks = make([]atomic.Uint32, 1+len(types))
	out, err := s.decode(types, []int{1, 4}, 8, nil)
	require.NoError(t, err)
	releaseAll(out)
	got := make([]uint32, len(s.marks))
	for k := range s.marks {
		got[k] = s.marks[k].Load()
	}
	require.Equal(t, []uint32{0, 0, markDecoded, 0, 0, markDecoded, 0, 0}, got)
	at := bufferAt(t, s, 1, 1) + 4*3
	binary.LittleEndian.PutUint32(s.b[at:], binary.LittleEndian.Uint32(s.b[at+4:])+1)
	out, err = s.decode(types, []int{1}, 8, nil)
	require.NoError(t, err, "marked: not checked again")
	releaseAll(out)
	s.marks[2].Store(0)
	_, err = s.decode(types, []int{1}, 8, nil)
	require.ErrorContains(t, err, "offsets")
}

// decodeFuzzInput packs a span for FuzzDecodeBatch: a flag byte (1: the
// file's first batch), the head length and each column part's length as
// little-endian uint32s, then the span's bytes.
func decodeFuzzInput(s batchSpan) []byte {
	var b []byte
	if s.first {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(s.head))
	for _, p := range s.parts {
		b = binary.LittleEndian.AppendUint32(b, uint32(p.Len))
	}
	return append(b, s.b...)
}

// decodeFuzzSeeds are the fixture's first two batches and damaged
// variants: a flipped metadata byte, a flipped offset, a cut span.
func decodeFuzzSeeds(t testing.TB) [][]byte {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, f, data := decodeFixture(t, mem)
	s0, s1 := spanOf(f, data, 0), spanOf(f, data, 1)
	flip := func(s batchSpan, at uint64) []byte {
		s.b = bytes.Clone(s.b)
		s.b[at] ^= 0x10
		return decodeFuzzInput(s)
	}
	cut := s1
	cut.b = cut.b[:len(cut.b)/2]
	return [][]byte{
		decodeFuzzInput(s0), decodeFuzzInput(s1),
		flip(s1, s1.head-40), flip(s1, s1.head-17), flip(s0, s0.head-24),
		flip(s1, bufferAt(t, s1, 1, 1)+12), decodeFuzzInput(cut), {},
	}
}

// FuzzDecodeBatch: any span bytes and any cut into head and parts. decode
// must not panic, and what it returns must be arrays of the asked rows
// whose buffers lie inside their own column's part and whose every value
// reads without leaving its buffers.
func FuzzDecodeBatch(f *testing.F) {
	for _, s := range decodeFuzzSeeds(f) {
		f.Add(s)
	}
	types := spanTypes()
	f.Fuzz(func(t *testing.T, in []byte) {
		hdr := 1 + 4*(1+len(types))
		if len(in) < hdr {
			return
		}
		s := batchSpan{first: in[0]&1 != 0, head: uint64(binary.LittleEndian.Uint32(in[1:])), b: in[hdr:]}
		for c := range types {
			s.parts = append(s.parts, ColumnPart{Len: uint64(binary.LittleEndian.Uint32(in[5+4*c:]))})
		}
		for _, cols := range [][]int{{0, 1, 2, 3, 4, 5, 6}, {5, 1}} {
			out, err := s.decode(types, cols, 8, nil)
			if err != nil {
				require.Nil(t, out)
				continue
			}
			for k, c := range cols {
				a := out[k]
				require.Equal(t, 8, a.Len())
				require.True(t, inSpanPart(s, c, a), "column %d", c)
				for r := range a.Len() {
					_ = a.ValueStr(r)
				}
			}
			releaseAll(out)
		}
	})
}

func TestDecodeBatchCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzDecodeBatch", decodeFuzzSeeds(t))
}
