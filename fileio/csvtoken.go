package fileio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
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
//
// Most records are one line with no quote in it: those are cut from the
// line in one pass (fast), with one string allocation per record whose
// fields are substrings of it. A line with a quote or a carriage return
// before its end, or longer than the buffer, goes through the byte-wise
// state machine (slow), which reads the line's bytes first (pend) and
// then the reader; both give the same records (FuzzCSVTokenizerPaths).
type csvTokenizer struct {
	r     *bufio.Reader
	delim byte
	// quote opens and closes a quoted field (PostgreSQL's QUOTE, '"' by
	// default); 0 reads every byte as data (the sniffer's "no quoting").
	quote byte
	line  int // lines consumed so far
	buf   bytes.Buffer
	rec   []csvField
	// pend is a line read ahead for the byte-wise path, pi the next of
	// its bytes to read; fromPend: the last byte read came from pend.
	pend     []byte
	pi       int
	fromPend bool
	// slowOnly keeps every record on the byte-wise path (the fuzz
	// target's reference).
	slowOnly bool
}

func newCSVTokenizer(r io.Reader, delim, quote byte) *csvTokenizer {
	return &csvTokenizer{r: bufio.NewReaderSize(r, 64<<10), delim: delim, quote: quote}
}

// next returns the next record and the line it starts on; io.EOF at the
// end. The fields are valid until the next call.
func (t *csvTokenizer) next() ([]csvField, int, error) {
	if t.slowOnly || t.pi < len(t.pend) {
		return t.slow()
	}
	line, err := t.r.ReadSlice('\n')
	switch {
	case err == io.EOF && len(line) == 0:
		return nil, t.line + 1, io.EOF
	case err != nil && err != io.EOF:
		// bufio.ErrBufferFull (a line over 64 KB) or a read error: the
		// byte-wise path reads on from what was read.
		t.pend, t.pi = append(t.pend[:0], line...), 0
		if err != bufio.ErrBufferFull {
			return nil, t.line + 1, err
		}
		return t.slow()
	}
	body := line
	if n := len(body); n > 0 && body[n-1] == '\n' {
		body = body[:n-1]
		if n := len(body); n > 0 && body[n-1] == '\r' {
			body = body[:n-1]
		}
	}
	if (t.quote != 0 && bytes.IndexByte(body, t.quote) >= 0) || bytes.IndexByte(body, '\r') >= 0 {
		t.pend, t.pi = append(t.pend[:0], line...), 0
		return t.slow()
	}
	t.line++
	t.rec = t.rec[:0]
	text := string(body)
	for {
		i := strings.IndexByte(text, t.delim)
		if i < 0 {
			t.rec = append(t.rec, csvField{text: text})
			return t.rec, t.line, nil
		}
		t.rec = append(t.rec, csvField{text: text[:i]})
		text = text[i+1:]
	}
}

// readByte is the next byte of pend, then of the reader.
func (t *csvTokenizer) readByte() (byte, error) {
	if t.pi < len(t.pend) {
		c := t.pend[t.pi]
		t.pi++
		t.fromPend = true
		return c, nil
	}
	t.fromPend = false
	return t.r.ReadByte()
}

// unreadByte puts back the byte readByte returned last.
func (t *csvTokenizer) unreadByte() {
	if t.fromPend {
		t.pi--
		return
	}
	_ = t.r.UnreadByte()
}

// slow is next, byte by byte: quoted fields (with "" inside, newlines
// inside), carriage returns, lines of any length.
func (t *csvTokenizer) slow() ([]csvField, int, error) {
	start := t.line + 1
	t.rec = t.rec[:0]
	t.buf.Reset()
	quoted, inQuotes, any := false, false, false
	for {
		c, err := t.readByte()
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
				n, err := t.readByte()
				if err == nil && n == t.quote {
					t.buf.WriteByte(t.quote)
					continue
				}
				if err == nil {
					t.unreadByte()
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
			if n, err := t.readByte(); err == nil && n != '\n' {
				t.unreadByte()
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
