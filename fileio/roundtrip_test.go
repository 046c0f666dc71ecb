package fileio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/stablerow/stablerow/errkind"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

// row is the source of truth the files are checked against.
type row struct {
	k *int64
	f *float64
	s *string
	b *bool
}

func ptr[T any](v T) *T { return &v }

var testRows = []row{
	{ptr(int64(1)), ptr(1.5), ptr("plain"), ptr(true)},
	{ptr(int64(math.MaxInt64)), ptr(math.MaxFloat64), ptr("ünïcödé ✓ 日本"), ptr(false)},
	{ptr(int64(math.MinInt64)), ptr(-math.SmallestNonzeroFloat64), ptr(`quote " comma , newline
and CR` + "\r"), nil},
	{nil, nil, nil, nil},
	{ptr(int64(0)), ptr(math.Inf(1)), ptr(""), ptr(true)},      // empty string is not NULL
	{ptr(int64(-1)), ptr(math.Inf(-1)), ptr(`\.`), ptr(false)}, // PostgreSQL's end-of-data marker, quoted
	{ptr(int64(7)), ptr(math.NaN()), ptr("NULL"), ptr(true)},
	{ptr(int64(8)), ptr(0.1), ptr(" lead and trail "), nil},
}

func buildRows(mem memory.Allocator, rows []row) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, testSchema)
	defer b.Release()
	for _, r := range rows {
		if r.k == nil {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(*r.k)
		}
		if r.f == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Float64Builder).Append(*r.f)
		}
		if r.s == nil {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.StringBuilder).Append(*r.s)
		}
		if r.b == nil {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.BooleanBuilder).Append(*r.b)
		}
	}
	return b.NewRecordBatch()
}

// checkRows compares read batches with the source rows, value by value
// (NaN equal to NaN, NULL only where the source has NULL).
func checkRows(t *testing.T, got []arrow.RecordBatch, want []row) {
	t.Helper()
	i := 0
	for _, b := range got {
		for r := 0; r < int(b.NumRows()); r++ {
			if i >= len(want) {
				t.Fatalf("more rows than written")
			}
			w := want[i]
			k, f, s, bl := b.Column(0).(*array.Int64), b.Column(1).(*array.Float64), b.Column(2).(*array.String), b.Column(3).(*array.Boolean)
			if (w.k == nil) != k.IsNull(r) || (w.k != nil && *w.k != k.Value(r)) {
				t.Errorf("row %d k: got %v", i, k.ValueStr(r))
			}
			if (w.f == nil) != f.IsNull(r) || (w.f != nil && !(*w.f == f.Value(r) || math.IsNaN(*w.f) && math.IsNaN(f.Value(r)))) {
				t.Errorf("row %d f: got %v", i, f.ValueStr(r))
			}
			if (w.s == nil) != s.IsNull(r) || (w.s != nil && *w.s != s.Value(r)) {
				t.Errorf("row %d s: got null=%v %q", i, s.IsNull(r), s.ValueStr(r))
			}
			if (w.b == nil) != bl.IsNull(r) || (w.b != nil && *w.b != bl.Value(r)) {
				t.Errorf("row %d b: got %v", i, bl.ValueStr(r))
			}
			i++
		}
	}
	if i != len(want) {
		t.Fatalf("read %d rows, wrote %d", i, len(want))
	}
}

type stream interface {
	Next(context.Context) (arrow.RecordBatch, error)
	Close() error
}

func readAll(t *testing.T, s stream) []arrow.RecordBatch {
	t.Helper()
	var out []arrow.RecordBatch
	for {
		b, err := s.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func release(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

func TestCSVRoundTrip(t *testing.T) {
	for _, opt := range []Options{
		{},
		{Header: true},
		{Delimiter: ';', Null: "NULL"}, // the text "NULL" must come back as text: it is quoted
		{Delimiter: '\t', Null: `\N`, Header: true},
	} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		src := buildRows(mem, testRows)
		var buf bytes.Buffer
		w, err := NewCSVWriter(&buf, testSchema, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(src); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		src.Release()
		r, err := NewCSVReader(bytes.NewReader(buf.Bytes()), testSchema, opt, mem, 3)
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(t, r)
		checkRows(t, got, testRows)
		release(got)
		mem.AssertSize(t, 0)
	}
}

// TestCSVWritesPostgresText checks the writer's text against what
// PostgreSQL 15's COPY (SELECT ...) TO STDOUT (FORMAT csv, HEADER) prints
// for the same values (hand-checked).
func TestCSVWritesPostgresText(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := buildRows(mem, []row{
		{ptr(int64(1)), ptr(1e15), ptr(""), ptr(true)},
		{nil, ptr(0.1), ptr(`a"b`), ptr(false)},
		{ptr(int64(-3)), ptr(math.Inf(-1)), nil, nil},
	})
	defer src.Release()
	var buf bytes.Buffer
	w, _ := NewCSVWriter(&buf, testSchema, Options{Header: true})
	if err := w.Write(src); err != nil {
		t.Fatal(err)
	}
	w.Close()
	want := "k,f,s,b\n1,1e+15,\"\",t\n,0.1,\"a\"\"b\",f\n-3,-Infinity,,\n"
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestCSVErrorsNameLineAndColumn(t *testing.T) {
	cases := []struct {
		in   string
		kind *errkind.Kind
		want string
	}{
		{"1,1,a,t\n2,x,b,t\n", errkind.InvalidArgument, `line 2, column "f"`},
		{"k,f,s,b\n1,1,a,t\n\"multi\nline\",1,a,t\n", errkind.InvalidArgument, `line 3, column "k"`},
		{"1,1,a,t\n1,1,\"multi\nline\",t\n3,1,a,maybe\n", errkind.InvalidArgument, `line 4, column "b"`},
		{"1,1,a\n", errkind.InvalidArgument, `line 1: missing data for column "b"`},
		{"1,1,a,t,5\n", errkind.InvalidArgument, "line 1: extra data"},
		{"1,1,\"open,t\n", errkind.InvalidArgument, "line 1: unterminated"},
		{"1,1,a\"b,t\n", errkind.InvalidArgument, "line 1: quote inside"},
		{"99999999999999999999,1,a,t\n", errkind.OutOfRange, `line 1, column "k"`},
		{"1,1e400,a,t\n", errkind.OutOfRange, `line 1, column "f"`},
	}
	for _, c := range cases {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		r, err := NewCSVReader(strings.NewReader(c.in), testSchema, Options{Header: strings.HasPrefix(c.in, "k,")}, mem, 2)
		if err != nil {
			t.Fatal(err)
		}
		var got error
		for {
			b, err := r.Next(context.Background())
			if err != nil {
				if !errors.Is(err, io.EOF) {
					got = err
				}
				break
			}
			b.Release()
		}
		r.Close()
		if got == nil || !errors.Is(got, c.kind) || !strings.Contains(got.Error(), c.want) {
			t.Errorf("%q: got %v, want %v containing %q", c.in, got, c.kind, c.want)
		}
		mem.AssertSize(t, 0)
	}
}

func TestParquetRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := buildRows(mem, testRows)
	var buf bytes.Buffer
	w, err := NewParquetWriter(&buf, testSchema, mem)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(src); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(src); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	src.Release()
	s, err := ParquetSchema(bytes.NewReader(buf.Bytes()))
	if err != nil || !s.Equal(testSchema) {
		t.Fatalf("schema %v, %v", s, err)
	}
	r, err := NewParquetReader(context.Background(), bytes.NewReader(buf.Bytes()), mem, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, r)
	checkRows(t, got, append(append([]row{}, testRows...), testRows...))
	release(got)
}

// TestParquetWidensAndRefuses: each engine type round-trips as itself
// (int32 is integer, float32 real, date32 date, timestamp[us] timestamp,
// decimal128 numeric: no widening to bigint or double); the widths the
// engine lacks widen to the type holding every value (int8 to smallint,
// uint16 to integer); a type with no engine type (a time zone, a list)
// is Unsupported naming the column. The file is also read by pqarrow
// itself, apart from fileio's reader, which must see the same types and
// values.
func TestParquetWidensAndRefuses(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dec := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "r", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "s", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: ts, Nullable: true},
		{Name: "n", Type: dec, Nullable: true},
		{Name: "u8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{math.MinInt32, 0, math.MaxInt32}, nil)
	b.Field(1).(*array.Float32Builder).AppendValues([]float32{1.5, -0.25, math.MaxFloat32}, []bool{true, false, true})
	b.Field(2).(*array.Int16Builder).AppendValues([]int16{math.MinInt16, 7, math.MaxInt16}, nil)
	b.Field(3).(*array.Date32Builder).AppendValues([]arrow.Date32{-719162, 0, 19782}, []bool{true, true, false})
	b.Field(4).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{-1, 1709633472500000, 0}, nil)
	b.Field(5).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(-9999999999), decimal128.FromI64(1234), decimal128.FromI64(0)}, []bool{true, true, false})
	b.Field(6).(*array.Int8Builder).AppendValues([]int8{-128, 0, 127}, nil)
	b.Field(7).(*array.Uint16Builder).AppendValues([]uint16{0, 1, 65535}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	var buf bytes.Buffer
	w, err := NewParquetWriter(&buf, sch, mem)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Close()
	rec.Release()
	r, err := NewParquetReader(context.Background(), bytes.NewReader(buf.Bytes()), mem, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, r)
	defer release(got)
	if len(got) != 1 {
		t.Fatalf("%d batches", len(got))
	}
	wantTypes := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int16,
		arrow.FixedWidthTypes.Date32, ts, dec, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32}
	for c, wt := range wantTypes {
		if !arrow.TypeEqual(got[0].Column(c).DataType(), wt) {
			t.Fatalf("column %d: %s, want %s", c, got[0].Column(c).DataType(), wt)
		}
	}
	i, f := got[0].Column(0).(*array.Int32), got[0].Column(1).(*array.Float32)
	if i.Value(0) != math.MinInt32 || i.Value(2) != math.MaxInt32 || f.Value(0) != 1.5 || !f.IsNull(1) || f.Value(2) != math.MaxFloat32 {
		t.Fatalf("values: %v %v", i, f)
	}
	wantText := [][]string{
		{"-2147483648", "1.5", "-32768", "0001-01-01", "1969-12-31 23:59:59.999999", "-99999999.99", "-128", "0"},
		{"0", "", "7", "1970-01-01", "2024-03-05 10:11:12.5", "12.34", "0", "1"},
		{"2147483647", "3.4028235e+38", "32767", "", "1970-01-01 00:00:00", "", "127", "65535"},
	}
	rowsText := func(rb arrow.RecordBatch) [][]string {
		out := make([][]string, rb.NumRows())
		for r := range out {
			for c := 0; c < int(rb.NumCols()); c++ {
				col := rb.Column(c)
				if col.IsNull(r) {
					out[r] = append(out[r], "")
					continue
				}
				switch a := col.(type) {
				case *array.Int8:
					out[r] = append(out[r], strconv.Itoa(int(a.Value(r))))
				case *array.Uint16:
					out[r] = append(out[r], strconv.Itoa(int(a.Value(r))))
				default:
					out[r] = append(out[r], text(col, r))
				}
			}
		}
		return out
	}
	if g := rowsText(got[0]); !reflect.DeepEqual(g, wantText) {
		t.Fatalf("rows %v\nwant %v", g, wantText)
	}
	// pqarrow's own reader: the file holds the Parquet logical types.
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	tr := array.NewTableReader(tbl, -1)
	defer tr.Release()
	if !tr.Next() {
		t.Fatal("pqarrow: no batch")
	}
	for c, f := range sch.Fields() {
		if g := tr.Schema().Field(c); g.Name != f.Name || !arrow.TypeEqual(g.Type, f.Type) {
			t.Fatalf("pqarrow column %d: %s %s, want %s %s", c, g.Name, g.Type, f.Name, f.Type)
		}
	}
	if g := rowsText(tr.RecordBatch()); !reflect.DeepEqual(g, wantText) {
		t.Fatalf("pqarrow rows %v\nwant %v", g, wantText)
	}
	pf.Close()

	for _, f := range []arrow.Field{
		{Name: "tz", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)},
	} {
		if _, err := EngineType(f); !errors.Is(err, errkind.Unsupported) || !strings.Contains(err.Error(), `"`+f.Name+`"`) {
			t.Fatalf("%s: %v", f.Type, err)
		}
	}
}

// TestConformChecksRanges: a file's bigint into an integer column is cast
// with its range checked (an error naming the column, never a wrapped
// value); a decimal is rescaled; text into a number column does not fit.
func TestConformChecksRanges(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, src)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, math.MaxInt32 + 1}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	target := arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
	_, err := Conform(context.Background(), mem, rec, target)
	if !errors.Is(err, errkind.OutOfRange) || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("int64 past int32: %v", err)
	}
	ok := rec.NewSlice(0, 1)
	defer ok.Release()
	out, err := Conform(context.Background(), mem, ok, target)
	if err != nil {
		t.Fatal(err)
	}
	if v := out.Column(0).(*array.Int32).Value(0); v != 1 {
		t.Fatalf("got %d", v)
	}
	out.Release()
	_, err = Conform(context.Background(), mem, ok, arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil))
	if !errors.Is(err, ErrSchema) {
		t.Fatalf("bigint into text: %v", err)
	}
}
