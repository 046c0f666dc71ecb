package value

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// LikeEscape is PostgreSQL's like_escape: pat written with escape
// character esc, rewritten for the '\' escape LIKE reads. An empty esc
// means no escape character (each '\' becomes a literal '\\'); an escape
// of more than one character is an error.
func LikeEscape(pat, esc string) (string, error) {
	if esc == "" {
		return strings.ReplaceAll(pat, `\`, `\\`), nil
	}
	e, n := utf8.DecodeRuneInString(esc)
	if n != len(esc) {
		return "", fmt.Errorf("%w: invalid escape string (escape string must be empty or one character)", ErrEscape)
	}
	if e == '\\' {
		return pat, nil
	}
	var b strings.Builder
	after := false
	for _, c := range pat {
		switch {
		case c == e && !after:
			b.WriteByte('\\')
			after = true
		case c == '\\':
			b.WriteByte('\\')
			if !after {
				b.WriteByte('\\')
			}
			after = false
		default:
			b.WriteRune(c)
			after = false
		}
	}
	return b.String(), nil
}
