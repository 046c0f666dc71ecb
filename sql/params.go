package sql

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/stablerow/stablerow/errkind"
)

// maxParams bounds $k like Postgres does (65535), so a hostile "$999999999"
// cannot make ParamNames allocate gigabytes.
const maxParams = 65535

// source is the caller's SQL after the :name -> $k rewrite, with what is
// needed to report positions in the caller's own text.
type source struct {
	orig, text string
	// start is where orig begins in the caller's script (ParseAt).
	start Pos
	// shifts records, for each rewrite, the rewritten offset just after it
	// and the cumulative (original - rewritten) length difference from there.
	shifts []shift
	// segments are the ';'-separated pieces of text, with the names given
	// to $1..$n inside each one.
	segments []segment
	// lists[i] are the constants of the long IN list that
	// $hiddenListBase+i stands for in text (constlist.go); cuts are the
	// shifts of cutting them out (offsets in the cut text, before the
	// :name rewrite), and placeholders the cut text's offsets of their $.
	lists        [][]constItem
	cuts         []shift
	placeholders map[int32]bool
	// places are the positions rendered into error messages so far
	// (origPosition), so the error Parse returns can be marked with the
	// one it names (locate).
	places []place
}

// place is one rendered position: the text an error message holds and
// the line and column it stands for.
type place struct {
	text         string
	line, column int
}

type shift struct{ at, delta int }

type segment struct {
	end        int // offset in text of the ';' closing it (or len(text))
	names      []string
	positional int // offset+1 in the original text of the first $k, 0 if none
}

// rewrite replaces each :name (an identifier or keyword glued to a lone ':'
// token; '::' casts are a different token) by $k, numbering names per
// statement in order of first appearance. The scanner already skips string
// literals, quoted identifiers and comments.
func rewrite(sql string, start Pos) (*source, error) {
	src := &source{orig: sql, text: sql, start: start}
	// Long IN lists of constants are cut out before the scanner sees
	// them (constlist.go): text is sql without them.
	text := src.cutLists(sql)
	scan, err := pg_query.Scan(text)
	if err != nil {
		// The scanner's messages carry no position; the parser's do.
		if _, perr := pg_query.Parse(sql); perr != nil {
			return nil, src.locate(src.syntaxError(perr))
		}
		return nil, src.locate(fmt.Errorf("%w: %w", ErrSyntax, err))
	}
	if err := src.checkDepth(scan.Tokens); err != nil {
		return nil, src.locate(err)
	}
	var b strings.Builder
	last := 0
	seg := segment{}
	index := map[string]int{}
	toks := scan.Tokens
	files := fileScans(toks, text)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case files[i].fn != "":
			// A file name in FROM (fromfile.go): fn('name') [AS "stem"],
			// the function's position mapped to the string's.
			fs := files[i]
			b.WriteString(text[last:t.Start])
			b.WriteString(fs.fn + "(")
			src.shifts = append(src.shifts, shift{at: b.Len(), delta: int(t.Start) - b.Len()})
			b.WriteString(text[t.Start:t.End])
			b.WriteString(")")
			if fs.alias != "" {
				b.WriteString(" AS " + quoteIdent(fs.alias))
			}
			last = int(t.End)
			src.shifts = append(src.shifts, shift{at: b.Len(), delta: last - b.Len()})
		case isDescribe(toks, i, text):
			// DESCRIBE t (DuckDB's) has no PostgreSQL grammar: it is
			// read as SHOW describe.t, which show (infoschema.go)
			// answers; positions after it map back to the original.
			b.WriteString(text[last:t.Start])
			src.shifts = append(src.shifts, shift{at: b.Len(), delta: int(t.Start) - b.Len()})
			b.WriteString("SHOW " + describePrefix)
			last = int(toks[i+1].Start)
			src.shifts = append(src.shifts, shift{at: b.Len(), delta: last - b.Len()})
		case t.Token == pg_query.Token_ASCII_59: // ';'
			seg.end = b.Len() + int(t.Start) - last
			src.segments = append(src.segments, seg)
			seg = segment{}
			clear(index)
		case t.Token == pg_query.Token_PARAM && src.placeholders[t.Start]:
			// A long list's placeholder.
		case t.Token == pg_query.Token_PARAM:
			// A $k the caller wrote can never be read as a placeholder.
			if n, err := strconv.ParseInt(text[t.Start+1:t.End], 10, 64); err == nil && n >= hiddenListBase {
				return nil, src.locate(fmt.Errorf("%w: there is no parameter $%d at %s", ErrParam, n, src.origPosition(src.uncut(int(t.Start)))))
			}
			if seg.positional == 0 {
				seg.positional = src.uncut(int(t.Start)) + 1
			}
		case t.Token == pg_query.Token_ASCII_58 && i+1 < len(toks) && toks[i+1].Start == t.End && isWord(toks[i+1]):
			next := toks[i+1]
			name := strings.ToLower(text[next.Start:next.End])
			if strings.HasPrefix(name, `"`) {
				name = strings.Trim(text[next.Start:next.End], `"`)
			}
			k, ok := index[name]
			if !ok {
				seg.names = append(seg.names, name)
				k = len(seg.names)
				index[name] = k
			}
			b.WriteString(text[last:t.Start])
			repl := "$" + strconv.Itoa(k)
			b.WriteString(repl)
			last = int(next.End)
			src.shifts = append(src.shifts, shift{at: b.Len(), delta: last - b.Len()})
			i++
		}
	}
	b.WriteString(text[last:])
	src.text = b.String()
	seg.end = len(src.text)
	src.segments = append(src.segments, seg)
	for _, s := range src.segments {
		if s.positional > 0 && len(s.names) > 0 {
			return nil, src.locate(fmt.Errorf("%w: cannot mix :name and $k parameters in one statement (the $k at %s)", ErrParam, src.origPosition(s.positional-1)))
		}
	}
	return src, nil
}

// isDescribe reports whether toks[i] is an unquoted DESCRIBE starting a
// statement and followed by one name ending it.
func isDescribe(toks []*pg_query.ScanToken, i int, text string) bool {
	t := toks[i]
	if t.Token != pg_query.Token_IDENT || !strings.EqualFold(text[t.Start:t.End], "describe") {
		return false
	}
	if i > 0 && toks[i-1].Token != pg_query.Token_ASCII_59 {
		return false
	}
	if i+1 >= len(toks) || !isWord(toks[i+1]) {
		return false
	}
	return i+2 == len(toks) || toks[i+2].Token == pg_query.Token_ASCII_59
}

// isWord reports whether a token can follow ':' as a parameter name.
func isWord(t *pg_query.ScanToken) bool {
	return t.Token == pg_query.Token_IDENT || t.KeywordKind != pg_query.KeywordKind_NO_KEYWORD
}

// segmentAt returns the statement piece holding rewritten offset off.
func (s *source) segmentAt(off int) segment {
	for _, seg := range s.segments {
		if off < seg.end || seg.end == len(s.text) {
			return seg
		}
	}
	return segment{}
}

// origOffset maps a byte offset in the rewritten text back to the original.
func (s *source) origOffset(off int) int {
	return min(max(s.uncut(unshift(s.shifts, off)), 0), len(s.orig))
}

// uncut maps an offset in the text with the long lists cut out
// (constlist.go) to the original's.
func (s *source) uncut(off int) int { return unshift(s.cuts, off) }

// unshift undoes the rewrites that shifts records.
func unshift(shifts []shift, off int) int {
	d := 0
	for _, sh := range shifts {
		if off < sh.at {
			break
		}
		d = sh.delta
	}
	return off + d
}

// position renders a rewritten byte offset as "line L, column C" of the
// original text (both 1-based, columns in characters).
func (s *source) position(off int) string { return s.origPosition(s.origOffset(off)) }

// origPosition renders a byte offset of the original text.
func (s *source) origPosition(o int) string {
	before := s.orig[:o]
	nl := strings.Count(before, "\n")
	col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
	if nl == 0 {
		col += s.start.Column - 1
	}
	line := s.start.Line + nl
	text := fmt.Sprintf("line %d, column %d", line, col)
	if len(s.places) < maxPlaces {
		s.places = append(s.places, place{text: text, line: line, column: col})
	}
	return text
}

// maxPlaces bounds the positions remembered for locate: a statement that
// renders more (errors made and dropped while trying alternatives) keeps
// its first ones, which is where a failing statement's error comes from.
const maxPlaces = 64

// locate marks err with the position its message names, the earliest
// " at line L, column C" of this text that the message holds
// (errkind.Located), so a caller can echo the line with a caret. An
// error that names no position, or one already located, is returned as
// it is.
func (s *source) locate(err error) error {
	var loc *errkind.Located
	if err == nil || errors.As(err, &loc) {
		return err
	}
	msg := err.Error()
	best, bestAt := place{}, -1
	for _, p := range s.places {
		if i := strings.Index(msg, " at "+p.text); i >= 0 && (bestAt < 0 || i < bestAt) {
			best, bestAt = p, i
		}
	}
	if bestAt < 0 {
		return err
	}
	return &errkind.Located{Line: best.line, Column: best.column, At: " at " + best.text, Err: err}
}

// at renders an AST location (-1 when unknown) as " at line L, column C".
func (s *source) at(loc int32) string {
	if loc <= -2 { // a long list's constant: -2 - its offset in the original (constlist.go)
		return " at " + s.origPosition(int(-2-loc))
	}
	if loc < 0 {
		return ""
	}
	return " at " + s.position(int(loc))
}

// syntaxError wraps a parser error with its position. Postgres reports the
// cursor as a 1-based character index into the text it was given.
func (s *source) syntaxError(err error) error {
	var pe *parser.Error
	if errors.As(err, &pe) && pe.Cursorpos > 0 {
		off := charToByte(s.text, pe.Cursorpos-1)
		return fmt.Errorf("%w at %s: %s", ErrSyntax, s.position(off), pe.Message)
	}
	return fmt.Errorf("%w: %w", ErrSyntax, err)
}

// charToByte converts a character index into a byte offset of text.
func charToByte(text string, n int) int {
	for off := range text {
		if n == 0 {
			return off
		}
		n--
	}
	return len(text)
}
