package errkind

import (
	"errors"
	"sort"
	"strings"
)

// Located is an error found at a place in the caller's text (a statement
// of a script): the line and column (from 1, the column in characters)
// that a person should look at. It changes nothing of the error it holds:
// Error is the same text, errors.Is and errors.As see through it. A
// program that shows the text can echo the line with a caret under the
// column, as psql does, and then leave out At, the part of the message
// that spelled the position out (" at line 1, column 15").
type Located struct {
	Line, Column int
	At           string
	Err          error
}

func (e *Located) Error() string { return e.Err.Error() }
func (e *Located) Unwrap() error { return e.Err }

// Message is err's text for a person rather than a log. The sentinels'
// texts that each layer's %w stacks in front of the message lose their
// package ("exec: division by zero" reads "division by zero"), and those
// that only sort the error (Category: "sql: type error", "engine: unknown
// table") go altogether when more text follows them, so what is left is
// what went wrong, where it was found and what to do. The full chain
// (err.Error()) is still what a log or -debug shows. If the chain holds a
// Located, its At is left out too when caret is true (the caller shows
// the position itself).
func Message(err error, caret bool) string {
	msg := err.Error()
	var loc *Located
	if caret && errors.As(err, &loc) && loc.At != "" {
		if i := strings.Index(msg, loc.At); i >= 0 {
			msg = msg[:i] + msg[i+len(loc.At):]
		}
	}
	sents := sentinels(err)
	// Longest first, so "sql: unknown table" goes before a shorter text
	// that is its prefix.
	sort.Slice(sents, func(i, j int) bool { return len(sents[i].msg) > len(sents[j].msg) })
	for _, s := range sents {
		t := s.msg
		if s.category {
			for {
				switch {
				case strings.HasPrefix(msg, t+": "):
					msg = msg[len(t)+2:]
					continue
				case strings.Contains(msg, ": "+t+": "):
					msg = strings.Replace(msg, ": "+t+": ", ": ", 1)
					continue
				}
				break
			}
		}
		// What is left of the sentinel keeps its words, not its package.
		pkg, what, ok := strings.Cut(t, ": ")
		if !ok || strings.ContainsAny(pkg, " \"") {
			continue
		}
		if strings.HasPrefix(msg, t) {
			msg = what + msg[len(t):]
		}
		msg = strings.ReplaceAll(msg, ": "+t, ": "+what)
	}
	return msg
}

// sentinels lists the sentinels (New, Category) in err's chain, each
// once.
func sentinels(err error) (out []*sentinel) {
	seen := map[string]bool{}
	var walk func(error)
	walk = func(e error) {
		for e != nil {
			if s, ok := e.(*sentinel); ok && !seen[s.msg] {
				seen[s.msg] = true
				out = append(out, s)
			}
			switch u := e.(type) {
			case interface{ Unwrap() []error }:
				for _, x := range u.Unwrap() {
					walk(x)
				}
				return
			case interface{ Unwrap() error }:
				e = u.Unwrap()
			default:
				return
			}
		}
	}
	walk(err)
	return out
}
