package engine

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/stablerow/stablerow/sql"
)

// Statement is one statement of a script: its text (without the ';' that
// ends it), the byte offset where it starts in the script and the line
// (from 1) of its first token, to place its errors.
type Statement struct {
	Text   string
	Offset int
	Line   int
	// start is the line and column of Offset itself, so the parser's
	// positions are the script's (sql.ParseAt).
	start sql.Pos
}

// Err places an error of statement i (from 0) of a script that holds more
// than one: "statement 2 (line 3): ...". The error keeps its identity.
func (st Statement) Err(i int, err error) error {
	return fmt.Errorf("statement %d (line %d): %w", i+1, st.Line, err)
}

// Shift places a statement of a piece of text that begins lines lines
// into a longer script (the prompt reads a script a few lines at a
// time): its Line and the positions its errors name move down by lines.
func (st Statement) Shift(lines int) Statement {
	st.Line += lines
	st.start.Line += lines
	return st
}

// CheckSyntax parses every statement of a script without running any of
// them (sql.CheckSyntax: no table is looked up), so a script with a
// syntax error anywhere runs nothing, instead of failing after its first
// statements have committed. The error names the statement and line as
// Query's do.
func CheckSyntax(stmts []Statement) error {
	for i, st := range stmts {
		err := checkNUL(st)
		if err == nil {
			err = sql.CheckSyntax(st.Text, st.start)
		}
		if err != nil {
			if len(stmts) > 1 {
				err = st.Err(i, err)
			}
			return err
		}
	}
	return nil
}

// checkNUL refuses a NUL byte in a statement: the parser reads C strings,
// so text after a NUL would be dropped unseen. PostgreSQL refuses NUL in
// query text too.
func checkNUL(st Statement) error {
	if i := strings.IndexByte(st.Text, 0); i >= 0 {
		return fmt.Errorf("%w: NUL byte at line %d", sql.ErrSyntax, st.Line+strings.Count(strings.TrimLeft(st.Text[:i], " \t\n\r\f\v"), "\n"))
	}
	return nil
}

// SplitStatements cuts a script into statements at the semicolons that end
// them. A ';' inside a string ('...', E'...', U&'...'), a quoted identifier
// ("..."), a dollar-quoted string ($$...$$, $tag$...$tag$) or a comment
// (-- to end of line, nested /* */) does not end a statement; these follow
// PostgreSQL's lexer (scan.l, standard_conforming_strings on).
//
// Every non-empty piece of text is returned, whether or not it parses: the
// parser, not the splitter, decides what is valid, so a statement with a
// syntax error is reported rather than skipped (libpg_query's scanner split
// silently drops such statements, which is why this exists). Pieces holding
// only white space and comments are dropped. rest is the text after the last
// top-level ';' when it holds more than white space and comments (a last
// statement without ';', or one still open inside a literal or comment); an
// interactive prompt keeps reading until rest is empty.
//
// The splitter never fails: an unterminated literal runs to the end of the
// text, and the parser then reports it with its position.
func SplitStatements(script string) (stmts []Statement, rest Statement) {
	seps, tokens := separators(script)
	start, line, counted := 0, 1, 0
	// at is the position of offset o (o never decreases between calls).
	atLine, atCounted, lineStart := 1, 0, 0
	at := func(o int) sql.Pos {
		seg := script[atCounted:o]
		if n := strings.Count(seg, "\n"); n > 0 {
			atLine += n
			lineStart = atCounted + strings.LastIndexByte(seg, '\n') + 1
		}
		atCounted = o
		return sql.Pos{Line: atLine, Column: utf8.RuneCountInString(script[lineStart:o]) + 1}
	}
	piece := func(end int) Statement {
		first := start + len(script[start:end]) - len(strings.TrimLeft(script[start:end], " \t\n\r\f\v"))
		line += strings.Count(script[counted:first], "\n")
		counted = first
		return Statement{Text: script[start:end], Offset: start, Line: line, start: at(start)}
	}
	for k, sep := range seps {
		if tokens[k] {
			stmts = append(stmts, piece(sep))
		}
		start = sep + 1
	}
	if tokens[len(seps)] {
		rest = piece(len(script))
	}
	return stmts, rest
}

// OpenAtEnd reports whether text ends inside a string, a quoted
// identifier, a dollar-quoted string or a block comment: there a newline
// and a backslash are text, so an interactive prompt must not take a line
// that starts with '\' for a backslash command (psql does the same).
func OpenAtEnd(text string) bool {
	sp := splitter{s: text}
	for sp.i < len(text) {
		switch c := text[sp.i]; {
		case c == '-' && sp.peek(1) == '-':
			sp.lineComment()
		case c == '/' && sp.peek(1) == '*':
			if !sp.blockComment() {
				return true
			}
		case c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			sp.i++
		default:
			sp.token()
		}
	}
	return sp.open
}

// separators returns the offsets of the semicolons that end statements and,
// for each of the len(seps)+1 pieces they cut, whether it holds a token
// other than white space and comments.
func separators(script string) (seps []int, tokens []bool) {
	sp := splitter{s: script}
	token := false
	for sp.i < len(script) {
		switch c := script[sp.i]; {
		case c == ';':
			seps, tokens = append(seps, sp.i), append(tokens, token)
			sp.i++
			token = false
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			sp.i++
		case c == '-' && sp.peek(1) == '-':
			sp.lineComment()
		case c == '/' && sp.peek(1) == '*':
			if !sp.blockComment() {
				token = true // unterminated: the parser must report it
			}
		default:
			token = true
			sp.token()
		}
	}
	return seps, append(tokens, token)
}

// splitter is the position of SplitStatements in its script.
type splitter struct {
	s    string
	i    int
	open bool // a literal ran to the end of s unclosed
}

func (sp *splitter) peek(k int) byte {
	if sp.i+k < len(sp.s) {
		return sp.s[sp.i+k]
	}
	return 0
}

// identCont reports whether c continues an identifier (scan.l ident_cont:
// letters, digits, '_', '$' and every byte of a multibyte character).
func identCont(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

func identStart(c byte) bool {
	return c == '_' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func (sp *splitter) lineComment() {
	if j := strings.IndexByte(sp.s[sp.i:], '\n'); j >= 0 {
		sp.i += j + 1
	} else {
		sp.i = len(sp.s)
	}
}

// blockComment skips a /* */ comment (they nest in PostgreSQL) and reports
// whether it was closed.
func (sp *splitter) blockComment() bool {
	depth := 0
	for sp.i < len(sp.s) {
		switch {
		case sp.s[sp.i] == '/' && sp.peek(1) == '*':
			depth++
			sp.i += 2
		case sp.s[sp.i] == '*' && sp.peek(1) == '/':
			depth--
			sp.i += 2
			if depth == 0 {
				return true
			}
		default:
			sp.i++
		}
	}
	return false
}

// token skips one token that is not white space, a comment or ';'.
func (sp *splitter) token() {
	c := sp.s[sp.i]
	switch {
	case c == '\'':
		sp.quoted('\'', false)
	case c == '"':
		sp.quoted('"', false)
	case c == '$':
		if !sp.dollarQuote() {
			// A parameter ($1) or a lone '$': the digits that follow are
			// plain characters to the splitter.
			sp.i++
		}
	case identCont(c):
		// A word or a number (with any junk PostgreSQL would reject glued
		// to it); E'...' (and e'...') is an escape string when the E starts
		// the word, U&'...' and B/X/N prefixes are ordinary strings.
		j := sp.i
		for j < len(sp.s) && identCont(sp.s[j]) {
			j++
		}
		if j-sp.i == 1 && (c == 'e' || c == 'E') && j < len(sp.s) && sp.s[j] == '\'' {
			sp.i = j
			sp.quoted('\'', true)
			return
		}
		sp.i = j
	default:
		sp.i++
	}
}

// quoted skips a literal closed by q, where a doubled q stands for itself;
// in an escape string a backslash escapes the next byte.
func (sp *splitter) quoted(q byte, backslash bool) {
	sp.i++ // the opening quote
	for sp.i < len(sp.s) {
		c := sp.s[sp.i]
		switch {
		case backslash && c == '\\':
			sp.i += 2
		case c == q && sp.peek(1) == q:
			sp.i += 2
		case c == q:
			sp.i++
			return
		default:
			sp.i++
		}
	}
	sp.i = min(sp.i, len(sp.s))
	sp.open = true
}

// dollarQuote skips $tag$...$tag$ if one starts here and reports whether it
// did. The tag is empty or an identifier without '$' (scan.l dolq_start).
func (sp *splitter) dollarQuote() bool {
	j := sp.i + 1
	if j < len(sp.s) && identStart(sp.s[j]) {
		for j < len(sp.s) && identCont(sp.s[j]) && sp.s[j] != '$' {
			j++
		}
	}
	if j >= len(sp.s) || sp.s[j] != '$' {
		return false
	}
	tag := sp.s[sp.i : j+1]
	if end := strings.Index(sp.s[j+1:], tag); end >= 0 {
		sp.i = j + 1 + end + len(tag)
	} else {
		sp.i = len(sp.s)
		sp.open = true
	}
	return true
}
