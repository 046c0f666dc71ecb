package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// tokens is every record of data as text ("line: fields" per record, a
// quoted field marked), then the error that ended it, if any.
func tokens(data []byte, delim, quote byte, slowOnly bool) string {
	t := newCSVTokenizer(bytes.NewReader(data), delim, quote)
	t.slowOnly = slowOnly
	var b strings.Builder
	for range len(data) + 2 {
		rec, line, err := t.next()
		if errors.Is(err, io.EOF) {
			return b.String()
		}
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			return b.String()
		}
		fmt.Fprintf(&b, "%d:", line)
		for _, f := range rec {
			fmt.Fprintf(&b, " %q/%v", f.text, f.quoted)
		}
		b.WriteByte('\n')
	}
	return b.String() + "no end"
}

// FuzzCSVTokenizerPaths: the one-pass path for plain lines and the
// byte-wise path give the same records, line numbers and errors on any
// input (the byte-wise path alone is the reference).
func FuzzCSVTokenizerPaths(f *testing.F) {
	f.Add([]byte("1,a,b\n2,,\n"), byte(','), byte('"'))
	f.Add([]byte("1,\"a\nb\",c\r\n2,\"x\"\"y\",\n3\r4\n"), byte(','), byte('"'))
	f.Add([]byte("a|b|\nc|d|"), byte('|'), byte('"'))
	f.Add([]byte("\n\n\"\n"), byte(','), byte('"'))
	f.Add([]byte("x\"y,1\n\"a\"b\n"), byte(','), byte('"'))
	f.Add([]byte("a\tb\"c\r"), byte('\t'), byte(0))
	f.Add(append(bytes.Repeat([]byte("abcdefgh,"), 9000), []byte("\"q\"\nz\n")...), byte(','), byte('"'))
	f.Fuzz(func(t *testing.T, data []byte, delim, quote byte) {
		if delim == '\n' || delim == '\r' || (quote != 0 && (quote == delim || quote == '\n' || quote == '\r')) {
			return
		}
		fast, slow := tokens(data, delim, quote, false), tokens(data, delim, quote, true)
		if fast != slow {
			t.Fatalf("paths differ on %q (delim %q, quote %q):\nfast:\n%s\nslow:\n%s", data, delim, quote, fast, slow)
		}
	})
}
