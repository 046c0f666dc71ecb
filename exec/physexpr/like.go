package physexpr

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Like is E [NOT] LIKE Pattern, or ILIKE when CaseInsensitive, with
// PostgreSQL's semantics: '_' matches one character, '%' any run of
// characters, '\' makes the next pattern character literal (an ESCAPE
// clause is turned into this form first: LikeEscape). A pattern that ends
// in '\' where a character must follow raises "LIKE pattern must not end
// with escape character" (PostgreSQL raises it only when the matcher
// reaches that point, so 'a' LIKE 'a\' is false and 'ab' LIKE 'a\'
// raises). ILIKE lowers both sides per character, as PostgreSQL does with
// a UTF-8 LC_CTYPE. NULL on either side gives NULL.
type Like struct {
	E, Pattern      Expr
	CaseInsensitive bool
	Not             bool
}

func (e Like) String() string {
	op := "LIKE"
	if e.CaseInsensitive {
		op = "ILIKE"
	}
	if e.Not {
		op = "NOT " + op
	}
	return fmt.Sprintf("%s %s %s", e.E, op, e.Pattern)
}
func (e Like) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(e, s) }
func (e Like) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, e, b)
}

// Bind checks both sides are text. A literal pattern is prepared once
// (folded to lower case for ILIKE) instead of once per row, and one of
// literal runs and '%' only is matched on raw bytes (like_fast.go).
func (e Like) Bind(s *arrow.Schema) (Bound, error) {
	x, err := Bind(e.E, s)
	if err != nil {
		return nil, err
	}
	p, err := Bind(e.Pattern, s)
	if err != nil {
		return nil, err
	}
	if !isString(x.Type()) || !isString(p.Type()) {
		return nil, fmt.Errorf("%w: %s needs text operands, got %s and %s", ErrSchema, e, x.Type(), p.Type())
	}
	bl := boundLike{exprOf: exprOf[Like]{e}, x: x, p: p}
	if l, ok := p.(boundLit); ok {
		if sv, ok := l.s.(*scalar.String); ok && sv.IsValid() {
			pat := string(sv.Value.Bytes())
			if e.CaseInsensitive {
				pat = strings.ToLower(pat)
			}
			bl.lit, bl.hasLit = pat, true
			if pl, ok := planLike(pat); ok {
				bl.plan = &pl
			}
		}
	}
	return bl, nil
}

type boundLike struct {
	exprOf[Like]
	predicate
	x, p   Bound
	lit    string // the literal pattern, prepared
	hasLit bool
	plan   *likePlan // the literal pattern's fast path (like_fast.go), if it has one
}

// Eval names the value errors this node raises (evalNamed).
func (e boundLike) Eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	return evalNamed(ctx, mem, b, e, e.eval)
}

func (e boundLike) eval(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (compute.Datum, error) {
	if e.plan != nil {
		d, err := e.x.Eval(ctx, mem, b)
		if err != nil {
			return nil, err
		}
		res, ok := likeColumn(mem, e.plan, e.src.CaseInsensitive, e.src.Not, d)
		d.Release()
		if ok {
			return res, nil
		}
	}
	ds, err := evalBound(ctx, mem, b, e.x, e.p)
	if err != nil {
		return nil, err
	}
	defer releaseDatums(ds)
	n, asScalar := rowsFor(int(b.NumRows()), ds...)
	ci := e.src.CaseInsensitive
	a, err := boolRows(func(a []arg, i int) (bool, error) {
		s := a[0].s(i)
		pat := e.lit
		if !e.hasLit {
			pat = a[1].s(i)
			if ci {
				pat = strings.ToLower(pat)
			}
		}
		if ci {
			s = strings.ToLower(s)
		}
		m, err := LikeMatch(s, pat)
		return m != e.src.Not, err
	})(mem, n, ds)
	if err != nil {
		return nil, err
	}
	return result(a, asScalar)
}

// LikeMatch reports whether s matches the LIKE pattern pat ('\' escapes).
func LikeMatch(s, pat string) (bool, error) {
	r, err := likeMatch(s, pat)
	return r == likeTrue, err
}

const (
	likeFalse = iota
	likeTrue
	likeAbort // no later start position can match either
)

// likeMatch is PostgreSQL's MatchText (like_match.c), over UTF-8 bytes:
// a '%' skips the wildcards after it, then tries each text position whose
// character equals the next literal pattern character, recursing on the
// rest; likeAbort cuts the search when the text ran out, which keeps the
// work polynomial for patterns like '%a%a%a%b'.
func likeMatch(t, p string) (int, error) {
	if p == "%" {
		return likeTrue, nil
	}
	for len(t) > 0 && len(p) > 0 {
		switch p[0] {
		case '\\':
			p = p[1:]
			if len(p) == 0 {
				return likeFalse, errLikeEnd
			}
			if p[0] != t[0] {
				return likeFalse, nil
			}
		case '%':
			p = p[1:]
			for len(p) > 0 {
				if p[0] == '%' {
					p = p[1:]
				} else if p[0] == '_' {
					if len(t) == 0 {
						return likeAbort, nil
					}
					t = nextChar(t)
					p = p[1:]
				} else {
					break
				}
			}
			if len(p) == 0 {
				return likeTrue, nil
			}
			first := p[0]
			if first == '\\' {
				if len(p) < 2 {
					return likeFalse, errLikeEnd
				}
				first = p[1]
			}
			for len(t) > 0 {
				if t[0] == first {
					m, err := likeMatch(t, p)
					if err != nil || m != likeFalse {
						return m, err
					}
				}
				t = nextChar(t)
			}
			return likeAbort, nil
		case '_':
			t = nextChar(t)
			p = p[1:]
			continue
		default:
			if p[0] != t[0] {
				return likeFalse, nil
			}
		}
		// Literal bytes matched: advancing by bytes is safe in UTF-8 (a
		// wildcard byte never occurs inside a multibyte character).
		t, p = t[1:], p[1:]
	}
	if len(t) > 0 {
		return likeFalse, nil
	}
	for len(p) > 0 && p[0] == '%' {
		p = p[1:]
	}
	if len(p) == 0 {
		return likeTrue, nil
	}
	return likeAbort, nil
}

var errLikeEnd = fmt.Errorf("%w: LIKE pattern must not end with escape character", ErrEscape)

// nextChar drops t's first character (one byte of invalid UTF-8).
func nextChar(t string) string {
	_, n := utf8.DecodeRuneInString(t)
	return t[n:]
}
