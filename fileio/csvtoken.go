package fileio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// csvField is one field of a record and whether it was quoted: PostgreSQL
// reads an unquoted field equal to the NULL string as NULL, a quoted one
// as text, so the tokenizer must keep the difference encoding/csv drops.
type csvField struct {
	text   string
	quoted bool
}

// csvTokenizer cuts RFC 4180 records (CRLF or LF line ends, "" for a quote
// inside quotes, newlines allowed inside quotes) and counts lines so every
// error names the line its record starts on.
type csvTokenizer struct {
	r     *bufio.Reader
	delim byte
	// quote opens and closes a quoted field (PostgreSQL's QUOTE, '"' by
	// default); 0 reads every byte as data (the sniffer's "no quoting").
	quote byte
	line  int // lines consumed so far
	buf   bytes.Buffer
	rec   []csvField
}

func newCSVTokenizer(r io.Reader, delim, quote byte) *csvTokenizer {
	return &csvTokenizer{r: bufio.NewReaderSize(r, 64<<10), delim: delim, quote: quote}
}

// next returns the next record and the line it starts on; io.EOF at the
// end. The fields are valid until the next call.
func (t *csvTokenizer) next() ([]csvField, int, error) {
	start := t.line + 1
	t.rec = t.rec[:0]
	t.buf.Reset()
	quoted, inQuotes, any := false, false, false
	for {
		c, err := t.r.ReadByte()
		if err == io.EOF {
			if inQuotes {
				return nil, start, fmt.Errorf("%w: line %d: unterminated CSV quoted field", ErrFormat, start)
			}
			if !any {
				return nil, start, io.EOF
			}
			t.line++
			t.rec = append(t.rec, csvField{t.buf.String(), quoted})
			return t.rec, start, nil
		}
		if err != nil {
			return nil, start, err
		}
		any = true
		if inQuotes {
			if c == t.quote {
				n, err := t.r.ReadByte()
				if err == nil && n == t.quote {
					t.buf.WriteByte(t.quote)
					continue
				}
				if err == nil {
					_ = t.r.UnreadByte()
				}
				inQuotes = false
				continue
			}
			if c == '\n' {
				t.line++
			}
			t.buf.WriteByte(c)
			continue
		}
		switch {
		case c == t.quote && t.quote != 0:
			if t.buf.Len() > 0 || quoted {
				return nil, start, fmt.Errorf("%w: line %d: quote inside an unquoted CSV field", ErrFormat, start)
			}
			quoted, inQuotes = true, true
		case c == t.delim:
			t.rec = append(t.rec, csvField{t.buf.String(), quoted})
			t.buf.Reset()
			quoted = false
		case c == '\r':
			if n, err := t.r.ReadByte(); err == nil && n != '\n' {
				_ = t.r.UnreadByte()
			}
			fallthrough
		case c == '\n':
			t.line++
			t.rec = append(t.rec, csvField{t.buf.String(), quoted})
			return t.rec, start, nil
		default:
			if quoted {
				return nil, start, fmt.Errorf("%w: line %d: text after the closing quote of a CSV field", ErrFormat, start)
			}
			t.buf.WriteByte(c)
		}
	}
}
