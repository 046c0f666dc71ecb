package difftest

// character(n) and varchar(n) values with trailing blanks, where
// PostgreSQL's bpchar rules and text's differ (issue 26 item 1): char =
// varchar compares as bpchar (blanks insignificant on both sides), char =
// text as text, LIKE on char(n) sees the value padded to n, length leaves
// char(n)'s blanks out and octet_length counts them, and the result shows
// char(n) padded. The draws here feed the columns' values and literals
// (stringValue), LIKE's operand and patterns (likeOperandType,
// charLikePatterns), the lengths (lengthFn) and join keys (joinKeys).

// charPool are strings with trailing (and leading) blanks, at most 4
// characters but for the blanks, so CHAR(4) and VARCHAR(6) take them.
var charPool = []string{
	"ab", "ab ", "ab  ", "ab    ", "a", "a ", " a", " a ", "x y ", "é ", "é", "", " ", "  ",
	"abc ", "abcd", "abcd  ", "日本 ", "A", "a\t ",
}

// charLikePatterns see the blanks of a padded char(4): wildcards at the
// blanks' places and blanks in the pattern.
var charLikePatterns = []string{"ab", "ab__", "ab  ", "ab%", "%  ", "% ", "a___", "_ %", "%b_", "é___", "%"}

// stringValue is a value for a string column or literal of type t: more
// often one with trailing blanks for char(n) and varchar(n).
func (g *Gen) stringValue(t Type) string {
	switch {
	case (t == TChar || t == TVarchar) && g.p(0.5), t == TText && g.p(0.15):
		return pick(g, charPool)
	}
	return pick(g, textPool)
}

// likeOperandType is the type of LIKE's left operand: text mostly,
// char(n) (matched padded) and varchar(n) (as it is) too.
func (g *Gen) likeOperandType() Type {
	return pick(g, []Type{TText, TText, TText, TChar, TChar, TVarchar})
}

// likePattern is a pattern literal: likePatterns, or one about blanks.
func (g *Gen) likePattern() string {
	if g.p(0.3) {
		return pick(g, charLikePatterns)
	}
	return pick(g, likePatterns)
}

// lengthFn is a length function of a string: length and char_length
// leave char(n)'s trailing blanks out, octet_length counts them.
func (g *Gen) lengthFn() string {
	return pick(g, []string{"length", "char_length", "octet_length"})
}

// joinKeys picks ON a.x = b.y over the columns of a (as) and b (bs): of
// one type, or a char(n) beside a varchar(n) or text (compared as bpchar
// and as text); l, r unchanged when no pair is found.
func (g *Gen) joinKeys(as, bs scope, l, r string) (string, string) {
	lt := pick(g, []Type{TInt, TFloat, TText, TBool, TI16, TI32, TF32, TVarchar, TChar, TChar})
	rt := lt
	if lt == TChar && g.p(0.5) {
		rt = pick(g, []Type{TVarchar, TText})
		if g.p(0.5) {
			lt, rt = rt, lt
		}
	}
	ls, rs := as.ofType(lt), bs.ofType(rt)
	if len(ls) == 0 || len(rs) == 0 {
		return l, r
	}
	return pick(g, ls).name, pick(g, rs).name
}
