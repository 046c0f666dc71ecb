package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FuzzFormatSinks: whatever a text and a float hold, the json sink writes
// one line that decodes back to them (text exactly, null for NULL, a
// finite float to itself, NaN/Infinity as strings) and the csv sink one
// record that encoding/csv reads back to the text, and the arrow sink a
// stream arrow-go's IPC reader reads back to the same values, bit for bit.
func FuzzFormatSinks(f *testing.F) {
	for _, s := range []string{"", "a,\"b\"", "x<y>&", "line\nbreak", "\r\n", "\x00\xff", "日本", `\u0000`} {
		f.Add(s, 0.1, false)
	}
	f.Add("n", math.NaN(), true)
	f.Add("i", math.Inf(-1), false)
	f.Add("e", 1e-300, false)
	f.Fuzz(func(t *testing.T, s string, x float64, null bool) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "f", Type: arrow.PrimitiveTypes.Float64}}, nil)
		bld := array.NewRecordBuilder(mem, schema)
		defer bld.Release()
		if null {
			bld.Field(0).AppendNull()
		} else {
			bld.Field(0).(*array.StringBuilder).Append(s)
		}
		bld.Field(1).(*array.Float64Builder).Append(x)
		rec := bld.NewRecordBatch()
		defer rec.Release()

		var jb bytes.Buffer
		js := newJSONSink(&jb, schema)
		js.row(rec, 0)
		if err := js.finish(); err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(jb.Bytes(), []byte("\n")); n != 1 {
			t.Fatalf("%d lines: %q", n, jb.String())
		}
		var got struct {
			S *string
			F any
		}
		if err := json.Unmarshal(jb.Bytes(), &got); err != nil {
			t.Fatalf("invalid JSON %q: %v", jb.String(), err)
		}
		switch {
		case null && got.S != nil, !null && (got.S == nil || *got.S != toValidUTF8(s)):
			t.Fatalf("text %q (null %v) came back as %v from %q", s, null, got.S, jb.String())
		}
		switch v := got.F.(type) {
		case float64:
			if v != x && !(v == 0 && x == 0) {
				t.Fatalf("float %v came back as %v", x, v)
			}
		case string:
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				t.Fatalf("finite float %v written as a string %q", x, v)
			}
		default:
			t.Fatalf("float %v came back as %T", x, got.F)
		}

		var cb bytes.Buffer
		cs := newCSVSink(&cb, schema)
		cs.row(rec, 0)
		if err := cs.finish(); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&cb).ReadAll()
		if err != nil || len(recs) != 2 {
			t.Fatalf("csv %q: %v, %d records", cb.String(), err, len(recs))
		}
		want := s
		if null {
			want = ""
		}
		if recs[1][0] != csvRoundTrip(want) {
			t.Fatalf("csv text %q came back as %q", want, recs[1][0])
		}

		// arrow: the batch comes back bit for bit through arrow-go's reader.
		var ab bytes.Buffer
		as := newArrowSink(&ab, schema)
		as.batch(rec, 1)
		if err := as.finish(); err != nil {
			t.Fatal(err)
		}
		rd, err := ipc.NewReader(&ab, ipc.WithAllocator(mem))
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Release()
		if !rd.Next() {
			t.Fatalf("arrow: no batch: %v", rd.Err())
		}
		back := rd.RecordBatch()
		bs, bf := back.Column(0).(*array.String), back.Column(1).(*array.Float64)
		if back.NumRows() != 1 || bs.IsNull(0) != null || !null && bs.Value(0) != s || math.Float64bits(bf.Value(0)) != math.Float64bits(x) {
			t.Fatalf("arrow: (%q null %v, %v) came back as %v", s, null, x, back)
		}
		if rd.Next() {
			t.Fatal("arrow: a second batch")
		}
	})
}

// toValidUTF8 is what encoding/json decodes invalid UTF-8 to: each bad
// byte a U+FFFD.
func toValidUTF8(s string) string {
	var b []byte
	b, _ = json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// csvRoundTrip: encoding/csv's reader turns \r\n inside a quoted field
// into \n (documented); everything else comes back as written.
func csvRoundTrip(s string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte("\r\n"), []byte("\n")))
}
