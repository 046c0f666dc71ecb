package sql

import (
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql/sqltype"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// Long IN lists of constants (issue 26 item 6). `k IN (0, 7, 14, ...)`
// with 100K values cost a node per value in every layer: pg_query's
// protobuf tree, the lowering, the Substrait plan, substrait-go's reading
// of it and the planner's. The scanner pass that runs before the parser
// (rewrite) reads the text first, so there a list of plain constants is
// cut out of the text the scanner and the parser get (cutLists): its
// inside is replaced by one placeholder parameter $n (n from
// hiddenListBase, a number no caller's parameter can have), and the
// constants are kept on the source. The lowerer meets the placeholder as
// the only item of an IN list and types the kept constants exactly as it
// types the items of a parsed list (each becomes the A_Const the parser
// would have built, then unify: the same common type, the same errors),
// or, for the common bigint, integer and text cases, makes the literals
// straight from the text (directInList); either way it emits one packed
// list literal (plan/packedlist.go: the values in one byte payload, no
// Go object or protobuf message per value) as the SingularOrList's only
// option, which the planner reads into one typed set (physexpr.InValues).
//
// The cut is recorded as a shift (source.cuts), so positions after the
// list map back to the caller's text; a constant's own position is its
// offset in the original text, coded in its location (source.at), so an
// error about the 70,000th value names its own line and column.

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
	tok        pg_query.Token
	neg        bool // a '-' before a number
}

// cutLists finds the long IN lists of plain constants in sql and returns
// the text with each one's inside replaced by its placeholder, keeping
// the constants in s.lists and the shifts in s.cuts. It reads the text as
// PostgreSQL's scanner does only as far as needed to know what is code:
// '...' and E'...' strings (backslash escapes in the latter, and their
// continuation across a newline), "..." identifiers, -- and nested /* */
// comments, and $tag$ quoting; a list inside any of them is not a list.
// A list is `IN (c, c, ...)` with only white space between its tokens,
// each c a plain constant (constAt) and at least minConstList of them;
// anything else is left to the parser. The same list text twice in a
// statement gets one placeholder (a SELECT item repeated in GROUP BY
// still matches).
func (s *source) cutLists(sql string) string {
	var out strings.Builder // the cut text, from the first cut on
	last := 0               // sql[:last] is in out
	seen := map[string]int{}
	n := len(sql)
	for i := 0; i < n; {
		c := sql[i]
		switch {
		case c == '\'':
			i = skipString(sql, i, false)
		case c == '"':
			i = skipString(sql, i, false)
		case c == '-' && i+1 < n && sql[i+1] == '-':
			i = skipLineComment(sql, i)
		case c == '/' && i+1 < n && sql[i+1] == '*':
			i = skipBlockComment(sql, i)
		case c == '$':
			i = skipDollar(sql, i)
		case c == ';':
			clear(seen) // placeholders are shared within a statement
			i++
		case isDigit(c) || c == '.':
			for i++; i < n && (identCont(sql[i]) || sql[i] == '.'); i++ {
			}
		case identStart(c):
			j := i + 1
			for j < n && identCont(sql[j]) {
				j++
			}
			if j == i+1 && (c == 'e' || c == 'E') && j < n && sql[j] == '\'' {
				i = skipString(sql, j, true)
				continue
			}
			if j == i+2 && strings.EqualFold(sql[i:j], "in") {
				if items, open, end, ok := constListAt(sql, j); ok {
					inside := sql[open+1 : end]
					k, dup := seen[inside]
					if !dup {
						k = len(s.lists)
						s.lists = append(s.lists, items)
						seen[inside] = k
					}
					if s.placeholders == nil {
						s.placeholders = map[int32]bool{}
						out.Grow(len(sql))
					}
					out.WriteString(sql[last : open+1])
					s.placeholders[int32(out.Len())] = true
					out.WriteString("$" + strconv.Itoa(hiddenListBase+k))
					last = end
					s.cuts = append(s.cuts, shift{at: out.Len(), delta: last - out.Len()})
					i = end
					continue
				}
			}
			i = j
		default:
			i++
		}
	}
	if s.placeholders == nil {
		return sql
	}
	out.WriteString(sql[last:])
	return out.String()
}

// constListAt reads `( c, c, ... )` from sql[j:] (after IN): the
// constants, the offsets of the parentheses, and ok when it is a list of
// at least minConstList plain constants with only white space around
// them.
func constListAt(sql string, j int) (items []constItem, open, end int, ok bool) {
	k := skipSpace(sql, j)
	if k >= len(sql) || sql[k] != '(' {
		return nil, 0, 0, false
	}
	open = k
	k++
	// Sized once: the commas before the first ')' bound the count (a
	// string holding one only makes append grow the rest).
	if end := strings.IndexByte(sql[k:], ')'); end > 0 {
		if c := strings.Count(sql[k:k+end], ","); c+1 >= minConstList {
			items = make([]constItem, 0, c+1)
		}
	}
	for {
		k = skipSpace(sql, k)
		it, next, ok := constAt(sql, k)
		if !ok {
			return nil, 0, 0, false
		}
		items = append(items, it)
		k = skipSpace(sql, next)
		if k >= len(sql) {
			return nil, 0, 0, false
		}
		switch sql[k] {
		case ',':
			k++
			continue
		case ')':
			if len(items) < minConstList {
				return nil, 0, 0, false
			}
			return items, open, k, true
		}
		return nil, 0, 0, false
	}
}

// constAt reads one plain constant at sql[k:]: an integer or decimal
// number (digits, '.', an exponent; PostgreSQL 15 has no 0x or 1_000
// literals, so those are left to the parser) with an optional '-' before
// it, a '...' string whose only quotes are doubled ones, or NULL, TRUE,
// FALSE. The token after it must start at a separator: "1abc", "1.2.3" or
// a string continued on the next line are not plain.
func constAt(sql string, k int) (it constItem, next int, ok bool) {
	n := len(sql)
	it.from = int32(k)
	if k < n && sql[k] == '-' {
		it.neg = true
		k = skipSpace(sql, k+1)
		if k >= n || !(isDigit(sql[k]) || sql[k] == '.') {
			return it, 0, false
		}
	}
	if k >= n {
		return it, 0, false
	}
	start := k
	c := sql[k]
	switch {
	case isDigit(c) || c == '.':
		digits := func() int {
			d := 0
			for k < n && isDigit(sql[k]) {
				k, d = k+1, d+1
			}
			return d
		}
		whole := digits()
		frac, decimal := 0, false
		if k < n && sql[k] == '.' {
			k++
			decimal = true
			frac = digits()
		}
		if whole+frac == 0 {
			return it, 0, false
		}
		if k < n && (sql[k] == 'e' || sql[k] == 'E') {
			decimal = true
			k++
			if k < n && (sql[k] == '+' || sql[k] == '-') {
				k++
			}
			if digits() == 0 {
				return it, 0, false
			}
		}
		if k < n && (identCont(sql[k]) || sql[k] == '.') {
			return it, 0, false
		}
		it.tok = pg_query.Token_FCONST
		if _, err := strconv.ParseInt(sql[start:k], 10, 32); !decimal && err == nil {
			it.tok = pg_query.Token_ICONST // the scanner's ICONST: an integer that fits int4
		}
	case c == '\'' && !it.neg:
		for k++; ; k++ {
			if k >= n {
				return it, 0, false
			}
			if sql[k] == '\'' {
				if k+1 < n && sql[k+1] == '\'' {
					k++
					continue
				}
				k++
				break
			}
		}
		it.tok = pg_query.Token_SCONST
	case identStart(c) && !it.neg:
		for k++; k < n && identCont(sql[k]); k++ {
		}
		switch strings.ToLower(sql[start:k]) {
		case "null":
			it.tok = pg_query.Token_NULL_P
		case "true":
			it.tok = pg_query.Token_TRUE_P
		case "false":
			it.tok = pg_query.Token_FALSE_P
		default:
			return it, 0, false
		}
	default:
		return it, 0, false
	}
	it.start, it.end = int32(start), int32(k)
	return it, k, true
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if !isDigit(c) {
			return false
		}
	}
	return s != ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// identStart and identCont are the scanner's identifier bytes (any byte
// of a multi-byte character counts as a letter).
func identStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c >= 0x80
}

func identCont(c byte) bool { return identStart(c) || isDigit(c) || c == '$' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func skipSpace(sql string, k int) int {
	for k < len(sql) && isSpace(sql[k]) {
		k++
	}
	return k
}

// skipString skips the quoted text at sql[i] (its quote character is
// doubled inside); with escapes, a backslash escapes the next byte, and a
// string continued after a newline (PostgreSQL joins 'a'<newline>'b')
// continues in the same mode.
func skipString(sql string, i int, escapes bool) int {
	q := sql[i]
	n := len(sql)
	for i++; i < n; i++ {
		switch {
		case escapes && sql[i] == '\\':
			i++
		case sql[i] == q:
			if i+1 < n && sql[i+1] == q {
				i++
				continue
			}
			if !escapes {
				return i + 1
			}
			// A continuation: white space with a newline, then a quote.
			j, newline := i+1, false
			for j < n && isSpace(sql[j]) {
				newline = newline || sql[j] == '\n' || sql[j] == '\r'
				j++
			}
			if !newline || j >= n || sql[j] != q {
				return i + 1
			}
			i = j
		}
	}
	return n
}

func skipLineComment(sql string, i int) int {
	for i < len(sql) && sql[i] != '\n' {
		i++
	}
	return i
}

// skipBlockComment skips a /* */ comment, nested ones included.
func skipBlockComment(sql string, i int) int {
	depth := 0
	for i < len(sql) {
		switch {
		case strings.HasPrefix(sql[i:], "/*"):
			depth, i = depth+1, i+2
		case strings.HasPrefix(sql[i:], "*/"):
			depth, i = depth-1, i+2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return i
}

// skipDollar skips what starts at a '$' outside an identifier: $k, or a
// $tag$...$tag$ string, or the '$' alone.
func skipDollar(sql string, i int) int {
	n := len(sql)
	j := i + 1
	if j < n && isDigit(sql[j]) {
		for j < n && isDigit(sql[j]) {
			j++
		}
		return j
	}
	for j < n && identCont(sql[j]) && sql[j] != '$' {
		j++
	}
	if j >= n || sql[j] != '$' {
		return i + 1
	}
	delim := sql[i : j+1]
	end := strings.Index(sql[j+1:], delim)
	if end < 0 {
		return n
	}
	return j + 1 + end + len(delim)
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
	// The location is the original text's offset, coded below -1 as
	// source.at reads it: the constant is in no text the parser saw.
	*c = pg_query.A_Const{Location: -2 - it.from}
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
	// A constant operand takes the general path, whose options are
	// expressions: the IN is then a constant folded to its value, as
	// PostgreSQL folds a ScalarArrayOpExpr over constants whatever the
	// list's length (seed 5 case 4524: a CASE arm it decides drops out).
	constant := lv.how == untypedString || lv.how == untypedNull
	if lv.how == typed && lv.param == 0 {
		_, constant = literalOf(lv.e)
	}
	if !constant {
		if e, ok, err := l.directInList(lv, items); ok || err != nil {
			return l.inResult(a, op, e, err)
		}
	}
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
	if lit, ok := constantInList(&expr.SingularOrList{Value: es[0], Options: options}); ok { // constfold.go
		return l.inResult(a, op, lit, nil)
	}
	list, ok, err := l.listLiteral(k, options)
	if err != nil {
		return value{}, err
	}
	if ok {
		options = []expr.Expression{list}
	}
	return l.inResult(a, op, &expr.SingularOrList{Value: es[0], Options: options}, nil)
}

// inResult is the IN's value, negated for NOT IN.
func (l *lowerer) inResult(a *pg_query.A_Expr, op string, e expr.Expression, err error) (value, error) {
	if err != nil {
		return value{}, err
	}
	if op == "<>" {
		if e, err = l.call(urnBoolean, "not", a.Location, e); err != nil {
			return value{}, err
		}
	}
	return value{e: e, loc: a.Location}, nil
}

// directInList is the common case without a value per constant: a
// bigint operand against integers, an integer one against int4
// integers, a text one against strings, NULLs among them anywhere. The
// common type is then the operand's (PostgreSQL's select_common_type of
// int8 and int4/int8 constants is int8, of int4 and int4 ones int4, of
// text and unknown ones text), no constant can fail to convert, and the
// values go straight from the text into the packed list's payload. ok is false for any other
// list, which takes the general path.
func (l *lowerer) directInList(lv value, items []constItem) (expr.Expression, bool, error) {
	if lv.how != typed || lv.param > 0 {
		return nil, false, nil
	}
	k := lv.kind()
	want := map[kind]pg_query.Token{kindI64: pg_query.Token_FCONST, kindI32: pg_query.Token_ICONST, kindString: pg_query.Token_SCONST}
	tok, ok := want[k]
	if !ok {
		return nil, false, nil
	}
	for _, it := range items {
		switch {
		case it.tok == pg_query.Token_NULL_P, it.tok == tok, tok == pg_query.Token_FCONST && it.tok == pg_query.Token_ICONST:
			if it.tok == pg_query.Token_FCONST && !integral(l.src.orig[it.start:it.end]) {
				return nil, false, nil // a decimal: numeric
			}
		default:
			return nil, false, nil
		}
	}
	value, err := l.coerce(lv, k)
	if err != nil {
		return nil, true, err
	}
	if null, ok := nullInList(value, nil); ok { // constfold.go
		return null, true, nil
	}
	w := plan.NewPackedWriter(packedKinds[k.ID], len(items), l.textBytes(items))
	for _, it := range items {
		text := l.src.orig[it.start:it.end]
		switch {
		case it.tok == pg_query.Token_NULL_P:
			w.Null()
		case k == kindString:
			text = text[1 : len(text)-1]
			if strings.Contains(text, "''") {
				text = strings.ReplaceAll(text, "''", "'")
			}
			w.String(text)
		default:
			n, _ := strconv.ParseInt(text, 10, 64) // integral: checked above
			if it.neg {
				n = -n
			}
			w.Int(n)
		}
	}
	list, err := l.packed(w)
	if err != nil {
		return nil, true, err
	}
	return &expr.SingularOrList{Value: value, Options: []expr.Expression{list}}, true, nil
}

// packedKinds are the packed list element kinds of the types listLiteral
// and directInList pack.
var packedKinds = map[sqltype.ID]plan.PackedKind{idI32: plan.PackedI32, idI64: plan.PackedI64, idF64: plan.PackedF64, idString: plan.PackedString}

// textBytes bounds the string data of a list's constants: their text.
func (l *lowerer) textBytes(items []constItem) int {
	if len(items) == 0 {
		return 0
	}
	return int(items[len(items)-1].end - items[0].start)
}

// packed finishes a packed list as the plan's literal, declaring its type.
func (l *lowerer) packed(w *plan.PackedWriter) (expr.Literal, error) {
	a, err := w.Any()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return plan.PackedLiteral(l.b.GetExprBuilder().Reg, a), nil
}

// integral reports whether a number's text is digits that fit a bigint
// (so PostgreSQL's constant is int8 and not numeric).
func integral(text string) bool {
	if !allDigits(text) {
		return false
	}
	_, err := strconv.ParseInt(text, 10, 64)
	return err == nil
}

// listLiteral makes one packed list literal of the options when they are
// all plain literals (or NULLs) of a type the planner keeps as a typed
// set: integer, bigint, double precision, text. Others (numeric, dates,
// character(n) comparisons that coerce to bpchar) keep one option per
// value: exact, only slower.
func (l *lowerer) listLiteral(k kind, options []expr.Expression) (expr.Literal, bool, error) {
	pk, ok := packedKinds[k.ID]
	if !ok {
		return nil, false, nil
	}
	want := k.Type(false)
	w := plan.NewPackedWriter(pk, len(options), 0)
	for _, o := range options {
		lit, ok := o.(expr.Literal)
		if !ok {
			return nil, false, nil
		}
		if _, null := lit.(*expr.NullLiteral); null {
			w.Null()
			continue
		}
		if !lit.GetType().Equals(want) {
			return nil, false, nil
		}
		switch x := lit.(type) {
		case *expr.PrimitiveLiteral[int32]:
			w.Int(int64(x.Value))
		case *expr.PrimitiveLiteral[int64]:
			w.Int(x.Value)
		case *expr.PrimitiveLiteral[float64]:
			w.Float(x.Value)
		case *expr.PrimitiveLiteral[string]:
			w.String(x.Value)
		default:
			return nil, false, nil
		}
	}
	list, err := l.packed(w)
	return list, err == nil, err
}

// errHiddenList is a placeholder met anywhere but as an IN list's only
// item (IN_P is also a keyword of position(a IN b)).
func (l *lowerer) errHiddenList(p *pg_query.ParamRef) error {
	return fmt.Errorf("%w: a list of constants here%s", ErrUnsupported, l.src.at(p.Location))
}
