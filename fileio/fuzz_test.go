package fileio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/stablerow/stablerow/errkind"
)

// FuzzCSVReader reads arbitrary bytes with arbitrary options: it must
// return typed errors (never panic, never leak), and whatever it reads
// must write back and read again to the same rows (the writer's quoting
// is the reader's inverse).
func FuzzCSVReader(f *testing.F) {
	f.Add([]byte("1,1.5,a,t\n,,,\n"), false, byte(','), "")
	f.Add([]byte("k,f,s,b\n\"1\",\"2\",\"x\"\"y\",\"on\"\r\n"), true, byte(','), "")
	f.Add([]byte("1;NaN;NULL;f\n2;-Infinity;\"NULL\";yes\n"), false, byte(';'), "NULL")
	f.Add([]byte("1\t1e308\t\"multi\nline\"\tt\n"), false, byte('\t'), `\N`)
	f.Add([]byte("1,1,\"open\n"), false, byte(','), "")
	f.Add([]byte("99999999999999999999,1,a,t\n"), false, byte(','), "")
	f.Fuzz(func(t *testing.T, data []byte, header bool, delim byte, null string) {
		opt := Options{Header: header, Delimiter: rune(delim), Null: null}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		r, err := NewCSVReader(bytes.NewReader(data), testSchema, opt, mem, 2)
		if err != nil {
			if errkind.Of(err) == nil {
				t.Fatalf("untyped option error: %v", err)
			}
			return
		}
		got := drain(t, r)
		defer release(got)
		if got == nil {
			return
		}
		var buf bytes.Buffer
		w, err := NewCSVWriter(&buf, testSchema, Options{Delimiter: rune(delim), Null: null})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range got {
			if err := w.Write(b); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		r2, _ := NewCSVReader(bytes.NewReader(buf.Bytes()), testSchema, Options{Delimiter: rune(delim), Null: null}, mem, 3)
		again := drain(t, r2)
		defer release(again)
		if again == nil {
			t.Fatalf("rewritten CSV does not read back:\n%q", buf.String())
		}
		if a, b := rowsText(got), rowsText(again); a != b {
			t.Fatalf("round trip changed the rows:\n%s\n%s\nvia %q", a, b, buf.String())
		}
	})
}

// drain reads r to the end; nil when it fails with a typed error.
func drain(t *testing.T, r *CSVReader) []arrow.RecordBatch {
	defer r.Close()
	var out []arrow.RecordBatch
	for {
		b, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			if out == nil {
				out = []arrow.RecordBatch{}
			}
			return out
		}
		if err != nil {
			if errkind.Of(err) == nil {
				t.Fatalf("untyped error: %v", err)
			}
			release(out)
			return nil
		}
		out = append(out, b)
	}
}

func rowsText(bs []arrow.RecordBatch) string {
	var buf bytes.Buffer
	for _, b := range bs {
		for r := 0; r < int(b.NumRows()); r++ {
			for c := 0; c < int(b.NumCols()); c++ {
				col := b.Column(c)
				if col.IsNull(r) {
					buf.WriteString("<null>|")
				} else {
					buf.WriteString(text(col, r) + "|")
				}
			}
			buf.WriteByte('\n')
		}
	}
	return buf.String()
}
