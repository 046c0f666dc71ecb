package sql

import (
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
)

// Long IN lists of constants (issue 26 item 6). `k IN (0, 7, 14, ...)`
// with 100K values cost a node per value in every layer: pg_query's
// protobuf tree, the lowering, the Substrait plan, substrait-go's reading
// of it and the planner's. The scanner pass that runs before the parser
// (rewrite) already sees the values as flat tokens, so there a list of
// plain constants is cut out of the text the parser gets: it is replaced,
// byte for byte in length, by one placeholder parameter $n (n from
// hiddenListBase, a number no caller's parameter can have) padded with
// blanks, and the tokens are kept on the source. The lowerer meets the
// placeholder as the only item of an IN list and types the kept
// constants exactly as it types the items of a parsed list (each becomes
// the A_Const the parser would have built, then unify: the same common
// type, the same errors at the same positions), and emits one Substrait
// list literal as the SingularOrList's only option, which the planner
// reads into one typed hash set (exec.InValues).
//
// Because the placeholder has the list's length, every offset in the
// text is unchanged: an error about the 70,000th value names its own line
// and column, and positions after the list need no shift.

// minConstList is the shortest IN list that takes this path. Shorter lists
// keep the parser's path, where each value is an option of its own: the
// plans and EXPLAIN output of hand-written lists stay as they were, and
// below this length the per-node cost is a few microseconds.
const minConstList = 64

// hiddenListBase numbers the placeholders: $hiddenListBase+i stands for
// the statement text's i-th distinct long list. It is above maxParams, so
// a caller's $k never collides, and fits the parser's int32.
const hiddenListBase = 1 << 30

// constItem is one constant of a cut-out list, as its tokens were.
type constItem struct {
	start, end int32 // the constant's token in the original text
	from       int32 // where the constant starts in the original text (a '-' included)
	loc        int32 // from, in the rewritten text
	tok        pg_query.Token
	neg        bool // a '-' before a number
}

// constList recognises `IN ( c, c, ... )` at toks[open] == '(' where each
// c is a plain constant: an unsigned or '-'-negated integer or decimal
// number, a plain '...' string, NULL, TRUE or FALSE. It returns the
// constants and the index of the closing ')', or ok false for anything
// else (an expression, a cast, a parameter, a subquery, escape or dollar-quoted strings,
// a list shorter than minConstList): such lists keep the parser's path.
func constList(sql string, toks []*pg_query.ScanToken, open int) (items []constItem, close int, ok bool) {
	i := open + 1
	for {
		if i >= len(toks) {
			return nil, 0, false
		}
		it := constItem{from: toks[i].Start}
		if toks[i].Token == pg_query.Token_ASCII_45 { // '-'
			it.neg = true
			i++
			if i >= len(toks) {
				return nil, 0, false
			}
		}
		t := toks[i]
		it.start, it.end, it.tok = t.Start, t.End, t.Token
		if !plainConstant(sql, t, it.neg) {
			return nil, 0, false
		}
		items = append(items, it)
		i++
		if i >= len(toks) {
			return nil, 0, false
		}
		switch toks[i].Token {
		case pg_query.Token_ASCII_44: // ','
			i++
			continue
		case pg_query.Token_ASCII_41: // ')'
			if len(items) < minConstList {
				return nil, 0, false
			}
			return items, i, true
		}
		return nil, 0, false
	}
}

// plainConstant reports whether token t is a constant whose A_Const this
// file can build exactly as the parser would: decimal digits only for an
// integer (PostgreSQL 15 has no 0x or 1_000 literals; leave those to the
// parser), digits, '.', and an exponent for a decimal, and a '...'
// string whose only quotes are doubled ones (no escape, Unicode or dollar-quoted strings, and no
// two strings continued across a newline).
func plainConstant(sql string, t *pg_query.ScanToken, neg bool) bool {
	text := sql[t.Start:t.End]
	switch t.Token {
	case pg_query.Token_ICONST:
		return allDigits(text)
	case pg_query.Token_FCONST:
		for _, c := range []byte(text) {
			if !('0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
				return false
			}
		}
		return true
	case pg_query.Token_SCONST:
		if neg || len(text) < 2 || text[0] != '\'' || text[len(text)-1] != '\'' {
			return false
		}
		inner := text[1 : len(text)-1]
		for j := 0; j < len(inner); j++ {
			if inner[j] == '\'' {
				if j+1 >= len(inner) || inner[j+1] != '\'' {
					return false
				}
				j++
			}
		}
		return true
	case pg_query.Token_NULL_P, pg_query.Token_TRUE_P, pg_query.Token_FALSE_P:
		return !neg
	}
	return false
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// aConst builds the A_Const the parser makes of the item (gram.y's
// makeIntConst, makeFloatConst, makeStringConst, makeNullAConst,
// makeBoolAConst, and doNegate for a '-'), so lowering types it as it
// types a parsed one.
//
// The nodes are the scratch's, overwritten by the next call: lowering a
// constant keeps none of them, and a million values allocate none.
func (s *source) aConst(it constItem, sc *constScratch) *pg_query.A_Const {
	text := s.orig[it.start:it.end]
	c := &sc.c
	*c = pg_query.A_Const{Location: it.loc}
	switch it.tok {
	case pg_query.Token_ICONST:
		n, _ := strconv.ParseInt(text, 10, 32) // the scanner made it ICONST: it fits
		if it.neg {
			n = -n
		}
		sc.i.Ival = int32(n)
		sc.ival.Ival = &sc.i
		c.Val = &sc.ival
	case pg_query.Token_FCONST:
		if it.neg {
			text = "-" + text
		}
		sc.f.Fval = text
		sc.fval.Fval = &sc.f
		c.Val = &sc.fval
	case pg_query.Token_SCONST:
		text = text[1 : len(text)-1]
		if strings.Contains(text, "''") {
			text = strings.ReplaceAll(text, "''", "'")
		}
		sc.s.Sval = text
		sc.sval.Sval = &sc.s
		c.Val = &sc.sval
	case pg_query.Token_NULL_P:
		c.Isnull = true
	case pg_query.Token_TRUE_P, pg_query.Token_FALSE_P:
		sc.b.Boolval = it.tok == pg_query.Token_TRUE_P
		sc.bval.Boolval = &sc.b
		c.Val = &sc.bval
	}
	return c
}

// constScratch holds the nodes aConst fills.
type constScratch struct {
	c    pg_query.A_Const
	i    pg_query.Integer
	ival pg_query.A_Const_Ival
	f    pg_query.Float
	fval pg_query.A_Const_Fval
	s    pg_query.String
	sval pg_query.A_Const_Sval
	b    pg_query.Boolean
	bval pg_query.A_Const_Boolval
}

// hiddenList returns the constants a placeholder IN list stands for.
func (l *lowerer) hiddenList(list *pg_query.List) ([]constItem, bool) {
	if len(list.Items) != 1 {
		return nil, false
	}
	p := list.Items[0].GetParamRef()
	if p == nil {
		return nil, false
	}
	i := int(p.Number) - hiddenListBase
	if i < 0 || i >= len(l.src.lists) {
		return nil, false
	}
	return l.src.lists[i], true
}

// constInList lowers lv IN (items...) for a cut-out list: the values and
// their common type as inList finds them, then, when the type has a set
// in the planner, one list literal in place of the options.
func (l *lowerer) constInList(a *pg_query.A_Expr, op string, lv value, items []constItem) (value, error) {
	vs := make([]value, 0, len(items)+1)
	vs = append(vs, lv)
	var sc constScratch
	for _, it := range items {
		v, err := l.constant(l.src.aConst(it, &sc))
		if err != nil {
			return value{}, err
		}
		vs = append(vs, v)
	}
	es, k, err := l.unify(vs...)
	if err != nil {
		return value{}, err
	}
	vs = nil
	if null, ok := nullInList(es[0], es[1:]); ok { // constfold.go
		return value{e: null, loc: a.Location}, nil
	}
	options := es[1:]
	if list, ok := listLiteral(k, options); ok {
		options = []expr.Expression{list}
	}
	var e expr.Expression = &expr.SingularOrList{Value: es[0], Options: options}
	if op == "<>" {
		if e, err = l.call(urnBoolean, "not", a.Location, e); err != nil {
			return value{}, err
		}
	}
	return value{e: e, loc: a.Location}, nil
}

// listLiteral makes one list literal of the options when they are all
// plain literals (or NULLs) of a type the planner keeps as a typed set:
// integer, bigint, double precision, text. Others (numeric, dates,
// character(n) comparisons that coerce to bpchar) keep one option per
// value: exact, only slower.
func listLiteral(k kind, options []expr.Expression) (expr.Literal, bool) {
	switch k.id {
	case idI32, idI64, idF64, idString:
	default:
		return nil, false
	}
	want := k.typ(false)
	vals := make(expr.ListLiteralValue, len(options))
	for i, o := range options {
		lit, ok := o.(expr.Literal)
		if !ok {
			return nil, false
		}
		if _, null := lit.(*expr.NullLiteral); !null && !lit.GetType().Equals(want) {
			return nil, false
		}
		vals[i] = lit
	}
	return &expr.ListLiteral{Value: vals, Type: &types.ListType{Nullability: types.NullabilityRequired, Type: k.typ(true)}}, true
}

// errHiddenList is a placeholder met anywhere but as an IN list's only
// item (IN_P is also a keyword of position(a IN b)).
func (l *lowerer) errHiddenList(p *pg_query.ParamRef) error {
	return fmt.Errorf("%w: a list of constants here%s", ErrUnsupported, l.src.at(p.Location))
}
