package physexpr_test

import (
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
)

// FuzzScalarExprs is FuzzEval (same batches, same check against a
// row-at-a-time reference written apart from the engine) over trees whose
// upper levels are issue 18's expressions: CASE and COALESCE (the
// reference evaluates an arm or argument only for the rows that reach it,
// as PostgreSQL; the engine does it by selecting rows, and must raise
// exactly when the reference does), NULLIF, IS [NOT] DISTINCT FROM, LIKE
// and ILIKE (the reference is a regular expression), the string functions
// (the reference works on []rune), abs/round/floor/ceil/sqrt/mod and
// GREATEST/LEAST (the reference skips NULLs and keeps the first of equals).
func FuzzScalarExprs(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 0, 0},
		{3, 1, 0, 4, 2, 1, 3, 0, 0, 9},
		{4, 2, 7, 1, 2, 3, 1, 5, 5, 5, 5, 0, 2, 1},
		{2, 9, 3, 3, 1, 0, 6, 2, 0, 0, 8, 8, 1, 200},
		{1, 255, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &sgen{gen: &gen{data: data}}
		nrows := g.next() % 6
		rows := make([][]any, nrows+1)
		for i := range rows {
			rows[i] = []any{g.pick(intPool), g.pick(intPool), g.pick(floatPool), g.pick(floatPool), g.pick(likeText)}
		}
		typ := []arrow.DataType{i64, f64, bln, str}[g.next()%4]
		e, ref := g.sexpr(typ, 3)
		checkEval(t, rows, e, ref, typ)
	})
}

// likeText are the texts of column s: case pairs beyond ASCII, LIKE's
// wildcards as data.
var likeText = []any{nil, "", "abc", "ABC", "Héllo", "ÉCOLE", "école", "ß", "ǅ", "a%b", "a_b", "  x  ", "xax", "日本語", "42"}

var likePatterns = []any{nil, "%", "_", "", "a%", "%c", "%é%", "É%", "_b_", `%\%%`, `a\_b`, "%x%", "ǆ", "a%b", "__%", "%%"}

type sgen struct{ *gen }

func (g *sgen) sexpr(t arrow.DataType, depth int) (physexpr.Expr, refExpr) {
	if depth <= 0 || g.next()%4 == 0 {
		return g.expr(t, 1)
	}
	sub := func(t arrow.DataType) (physexpr.Expr, refExpr) { return g.sexpr(t, depth-1) }
	switch g.next() % 4 {
	case 0: // CASE
		c := physexpr.Case{}
		var conds, vals []refExpr
		for i, n := 0, 1+g.next()%3; i < n; i++ {
			ce, cr := sub(bln)
			ve, vr := sub(t)
			c.Whens = append(c.Whens, physexpr.When{Cond: ce, Then: ve})
			conds, vals = append(conds, cr), append(vals, vr)
		}
		var els refExpr
		if g.next()%2 == 0 {
			var ee physexpr.Expr
			ee, els = sub(t)
			c.Else = ee
		}
		return c, func(r []any) (any, error) {
			for i, cr := range conds {
				v, err := cr(r)
				if err != nil {
					return nil, err
				}
				if v == true {
					return vals[i](r)
				}
			}
			if els == nil {
				return nil, nil
			}
			return els(r)
		}
	case 1: // COALESCE
		c := physexpr.Coalesce{}
		var refs []refExpr
		for i, n := 0, 1+g.next()%3; i < n; i++ {
			ae, ar := sub(t)
			c.Args, refs = append(c.Args, ae), append(refs, ar)
		}
		return c, func(r []any) (any, error) {
			for _, ar := range refs {
				v, err := ar(r)
				if err != nil || v != nil {
					return v, err
				}
			}
			return nil, nil
		}
	case 2: // NULLIF, or GREATEST/LEAST
		if g.next()%2 == 0 {
			m := physexpr.MinMax{Greatest: g.next()%2 == 0}
			var refs []refExpr
			for i, n := 0, 1+g.next()%3; i < n; i++ {
				ae, ar := sub(t)
				m.Args, refs = append(m.Args, ae), append(refs, ar)
			}
			op := physexpr.OpLt
			if m.Greatest {
				op = physexpr.OpGt
			}
			return m, func(r []any) (any, error) {
				var best any
				var errs []error
				for _, ar := range refs {
					v, err := ar(r)
					errs = append(errs, err)
					if v != nil && (best == nil || refCmp(op, v, best) == true) {
						best = v
					}
				}
				if err := errors.Join(errs...); err != nil {
					return nil, err
				}
				return best, nil
			}
		}
		a, ar := sub(t)
		b, br := sub(t)
		return physexpr.NullIf{A: a, B: b}, func(r []any) (any, error) {
			x, errA := ar(r)
			y, errB := br(r)
			if err := errors.Join(errA, errB); err != nil {
				return nil, err
			}
			if x != nil && y != nil && refCmp(physexpr.OpEq, x, y) == true {
				return nil, nil
			}
			return x, nil
		}
	}
	switch t.ID() {
	case arrow.BOOL:
		switch g.next() % 2 {
		case 0:
			ot := []arrow.DataType{i64, f64, str, bln}[g.next()%4]
			a, ar := sub(ot)
			b, br := sub(ot)
			not := g.next()%2 == 0
			return physexpr.Distinct{A: a, B: b, Not: not}, func(r []any) (any, error) {
				x, errA := ar(r)
				y, errB := br(r)
				if err := errors.Join(errA, errB); err != nil {
					return nil, err
				}
				same := x == nil && y == nil
				if x != nil && y != nil {
					same = refCmp(physexpr.OpEq, x, y) == true
				}
				return same == not, nil
			}
		default:
			x, xr := sub(str)
			var p physexpr.Expr = physexpr.Col{Index: 4, Name: "s"}
			pr := func(r []any) (any, error) { return r[4], nil }
			if g.next()%3 != 0 {
				v := g.pick(likePatterns)
				p, pr = physexpr.Lit{Value: v, Type: str}, func([]any) (any, error) { return v, nil }
			}
			ci, not := g.next()%2 == 0, g.next()%2 == 0
			return physexpr.Like{E: x, Pattern: p, CaseInsensitive: ci, Not: not}, refStrict2(xr, pr, func(a, b any) (any, error) {
				return refLike(a.(string), b.(string), ci) != not, nil
			})
		}
	case arrow.STRING:
		x, xr := sub(str)
		switch k := g.next() % 5; k {
		case 0, 1:
			name := []string{"lower", "upper"}[k]
			m := map[string]func(rune) rune{"lower": unicode.ToLower, "upper": unicode.ToUpper}[name]
			return physexpr.Func{Name: name, Args: []physexpr.Expr{x}}, refStrict1(xr, func(v any) (any, error) { return strings.Map(m, v.(string)), nil })
		case 2:
			from, count := int64(g.next()%9)-3, int64(g.next()%9)-2
			return physexpr.Func{Name: "substr", Args: []physexpr.Expr{x, physexpr.Lit{Value: from}, physexpr.Lit{Value: count}}},
				refStrict1(xr, func(v any) (any, error) { return refSubstr(v.(string), from, count) })
		case 3:
			side := []string{"btrim", "ltrim", "rtrim"}[g.next()%3]
			chars := []string{" ", "x", "aé", "ǅ"}[g.next()%4]
			return physexpr.Func{Name: side, Args: []physexpr.Expr{x, physexpr.Lit{Value: chars}}},
				refStrict1(xr, func(v any) (any, error) { return refTrim(side, v.(string), chars), nil })
		}
		y, yr := sub(str)
		return physexpr.Func{Name: "textcat", Args: []physexpr.Expr{x, y}}, refStrict2(xr, yr, func(a, b any) (any, error) { return a.(string) + b.(string), nil })
	case arrow.INT64:
		switch g.next() % 4 {
		case 0:
			x, xr := sub(str)
			return physexpr.Func{Name: "char_length", Args: []physexpr.Expr{x}}, refStrict1(xr, func(v any) (any, error) { return int64(len([]rune(v.(string)))), nil })
		case 1:
			x, xr := sub(str)
			y, yr := sub(str)
			return physexpr.Func{Name: "strpos", Args: []physexpr.Expr{x, y}}, refStrict2(xr, yr, func(a, b any) (any, error) { return refStrpos(a.(string), b.(string)), nil })
		case 2:
			x, xr := sub(i64)
			return physexpr.Func{Name: "abs", Args: []physexpr.Expr{x}}, refStrict1(xr, func(v any) (any, error) {
				if n := v.(int64); n == math.MinInt64 {
					return nil, errRefRange
				} else if n < 0 {
					return -n, nil
				}
				return v, nil
			})
		}
		x, xr := sub(i64)
		y, yr := sub(i64)
		return physexpr.Func{Name: "mod", Args: []physexpr.Expr{x, y}}, refStrict2(xr, yr, func(a, b any) (any, error) { return refIntOp(physexpr.OpMod, a.(int64), b.(int64)) })
	}
	x, xr := sub(f64)
	k := g.next() % 5
	name := []string{"round", "floor", "ceil", "sqrt", "abs"}[k]
	fn := []func(float64) float64{math.RoundToEven, math.Floor, math.Ceil, math.Sqrt, math.Abs}[k]
	return physexpr.Func{Name: name, Args: []physexpr.Expr{x}}, refStrict1(xr, func(v any) (any, error) {
		if name == "sqrt" && v.(float64) < 0 {
			return nil, errRefInput
		}
		return fn(v.(float64)), nil
	})
}

// refLike matches by a regular expression: % is .*, _ is one character,
// \ makes the next character literal.
func refLike(s, p string, ci bool) bool {
	if ci {
		s, p = strings.Map(unicode.ToLower, s), strings.Map(unicode.ToLower, p)
	}
	var re strings.Builder
	re.WriteString(`(?s)\A`)
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; {
		case c == '\\' && i+1 < len(rs):
			i++
			re.WriteString(regexp.QuoteMeta(string(rs[i])))
		case c == '%':
			re.WriteString(`.*`)
		case c == '_':
			re.WriteString(`.`)
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString(`\z`)
	return regexp.MustCompile(re.String()).MatchString(s)
}

// refSubstr: the characters at positions from .. from+count-1 that exist.
func refSubstr(s string, from, count int64) (any, error) {
	if count < 0 {
		return nil, errRefInput
	}
	rs := []rune(s)
	lo, hi := max(from, 1), min(from+count-1, int64(len(rs)))
	if hi < lo {
		return "", nil
	}
	return string(rs[lo-1 : hi]), nil
}

func refTrim(side, s, chars string) string {
	in := func(r rune) bool { return strings.ContainsRune(chars, r) }
	rs := []rune(s)
	lo, hi := 0, len(rs)
	if side != "rtrim" {
		for lo < hi && in(rs[lo]) {
			lo++
		}
	}
	if side != "ltrim" {
		for hi > lo && in(rs[hi-1]) {
			hi--
		}
	}
	return string(rs[lo:hi])
}

func refStrpos(s, sub string) int64 {
	rs, ss := []rune(s), []rune(sub)
	for i := 0; i+len(ss) <= len(rs); i++ {
		if string(rs[i:i+len(ss)]) == sub {
			return int64(i + 1)
		}
	}
	return 0
}

var _ = utf8.RuneLen
