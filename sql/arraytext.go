package sql

import (
	"fmt"
	"strings"
)

// parseArrayText reads PostgreSQL's text form of a one-dimensional array
// ('{1,2,NULL}', '{"a b",c}'), the input of '{...}'::int[]: elements split
// on commas, blanks around an unquoted element dropped, double quotes and
// backslashes escaping, an unquoted NULL (any case) a NULL. A nil element
// is NULL. Nested braces (more dimensions) and dimension decorations are
// not read: the UNNEST lists are one-dimensional.
func parseArrayText(s string) ([]*string, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: malformed array literal: %q: %s", ErrInvalid, s, why)
	}
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") {
		return nil, bad(`array value must start with "{"`)
	}
	if !strings.HasSuffix(t, "}") || len(t) < 2 {
		return nil, bad(`missing "}"`)
	}
	body := t[1 : len(t)-1]
	if strings.TrimSpace(body) == "" {
		return []*string{}, nil
	}
	var out []*string
	i := 0
	for {
		for i < len(body) && isArraySpace(body[i]) {
			i++
		}
		var b strings.Builder
		quoted, any := false, false
		keep := 0 // b's length without trailing unquoted blanks
		for i < len(body) {
			c := body[i]
			switch {
			case c == '"':
				quoted, any = !quoted, true
				keep = b.Len()
				i++
				continue
			case c == '\\':
				if i+1 >= len(body) {
					return nil, bad("unexpected end of input")
				}
				b.WriteByte(body[i+1])
				any, keep = true, b.Len()
				i += 2
				continue
			case (c == '{' || c == '}') && !quoted:
				return nil, bad("multidimensional arrays are not supported")
			case c == ',' && !quoted:
			default:
				b.WriteByte(c)
				if quoted || !isArraySpace(c) {
					keep = b.Len()
				}
				i++
				continue
			}
			break
		}
		if quoted {
			return nil, bad("unexpected end of input")
		}
		raw := b.String()[:keep]
		if !any && raw == "" {
			return nil, bad("unexpected \",\" character")
		}
		if !any && strings.EqualFold(raw, "NULL") {
			out = append(out, nil)
		} else {
			out = append(out, &raw)
		}
		if i >= len(body) {
			return out, nil
		}
		i++ // the comma
	}
}

// isArraySpace is array_in's scanner_isspace.
func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
