package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// MaxDepth bounds how deeply one statement may nest, in parse-tree levels
// as checkDepth counts them from the tokens. Deeper text is refused with
// ErrTooDeep before it reaches the C parser.
//
// Why: libpg_query turns the parse tree into protobuf with a recursion of
// its own (pg_query_outfuncs_protobuf.c) that has no stack check, on the
// C stack of the OS thread the cgo call runs on. Past that stack's end
// the process dies with SIGSEGV, which no recover can catch: before this
// check `SELECT 1+1+...+1` of 25,000 terms killed `stablerow serve`.
//
// Measured on linux/amd64, glibc, pg_query_go v6.2.5 (a goroutine on a
// thread the Go runtime made, as in the server; a probe program bisecting
// the term count of each shape until SIGSEGV):
//
//   - every tree level costs about 354 bytes of C stack, whatever the
//     operator: 1+1+..., 'a'||'a'||..., 1::int::int..., x ~ x ~ ...,
//     COLLATE chains crash at 23,800 terms with an 8 MB stack and at
//     2,950 with 1 MB; abs(abs(...)), ARRAY[ARRAY[...]], NOT NOT ...,
//     1+(1+(...)) and 1<(1<(...)) at 2,950 nestings with 1 MB;
//   - CASE WHEN .. THEN CASE ... is two levels (1,480 with 1 MB), a
//     scalar subquery (SELECT (SELECT ...)) three (985 with 1 MB), a
//     UNION chain half a level (47,500 with 8 MB);
//   - plain parentheses and - - -1 build no tree levels; right-nested
//     shapes stop in the grammar first at about 10,000 open constructs
//     (bison's YYMAXDEPTH: "memory exhausted", a syntax error) and
//     anything past 10,000 protobuf message levels is refused by the Go
//     protobuf decoder (2 per tree level), so no statement deeper than
//     about 5,000 levels could parse before this check either.
//
// The thread's stack is what the C code gets: with glibc a thread the Go
// runtime creates has the soft RLIMIT_STACK (`ulimit -s`, 8 MB here and on
// most Linux machines) or 2 MB when that is unlimited; on macOS Go gives
// it the main thread's size (8 MB by default). 1000 levels use about
// 354 KB plus the parser's own frames: under a fifth of a 2 MB stack.
// Probed with `ulimit -s 512` and `ulimit -s 1024`, the deepest statement
// the count admits of each of 52 shapes (deepsql classes and shapes,
// nested VALUES, EXISTS, IN, ARRAY and FROM subqueries, WITH, JOIN
// chains, AT TIME ZONE, COLLATE, IS NULL, LIKE, ROW, field selection)
// parses. Smaller stacks are not covered (musl's default thread stack is
// 128 KB: link with -extldflags=-Wl,-z,stack-size=8388608 there).
//
// 1000 levels is far beyond hand-written SQL; flat lists are not depth (an
// IN list of a million values, VALUES with 100,000 rows, a WHERE of
// thousands of AND-ed conditions, a SELECT list of thousands of columns).
const MaxDepth = 1000

// checkDepth refuses a statement whose parse tree would nest deeper than
// MaxDepth, from the scanner's flat tokens (no recursion, so the check
// itself cannot overflow). The count is an upper bound of the tree levels
// of well-formed SQL, made of:
//
//   - a frame for each open '(', '[' (one level) and CASE (two: the CASE
//     and its WHEN arm), and two more for a '(' that opens a query (a
//     subquery is a SubLink over a SelectStmt over its target);
//   - in each frame, the binary, prefix and postfix operators since the
//     last list separator (',', AND, OR, WHEN, THEN, ELSE, the clause
//     keywords): `a + b + c` nests left-deep, one level per operator,
//     while a list's elements and AND/OR operands (which the grammar
//     flattens into one BoolExpr) are siblings; a closed frame is an
//     operand at least as deep as it was inside, so the operators after
//     `(...)` count from there;
//   - in each frame, the UNION/INTERSECT/EXCEPT and JOIN keywords, which
//     nest their left side (never reset by a separator).
//
// Malformed text (an unbalanced ')') is counted as best it can be; the
// grammar rejects it before anything recursive runs.
func (s *source) checkDepth(toks []*pg_query.ScanToken) error {
	type frame struct {
		base  int // this frame's own levels and its set operations and joins
		ops   int // operators since the last separator
		start int // depth before the frame opened
		peak  int // the deepest depth reached inside it
		open  pg_query.Token
	}
	stack := []frame{{}}
	depth := 0 // the sum of base+ops over stack
	top := func() *frame { return &stack[len(stack)-1] }
	reset := func() { f := top(); depth -= f.ops; f.ops = 0 }
	push := func(base int, open pg_query.Token) {
		stack = append(stack, frame{base: base, start: depth, peak: depth + base, open: open})
		depth += base
	}
	for i, t := range toks {
		switch t.Token {
		case pg_query.Token_ASCII_40, pg_query.Token_ASCII_91: // '(' '['
			base := 1
			if t.Token == pg_query.Token_ASCII_40 && i+1 < len(toks) && opensQuery(toks[i+1].Token) {
				base = 3
			}
			push(base, t.Token)
		case pg_query.Token_CASE:
			push(2, t.Token)
		case pg_query.Token_ASCII_41, pg_query.Token_ASCII_93, pg_query.Token_END_P: // ')' ']' END
			if len(stack) > 1 && (t.Token != pg_query.Token_END_P || top().open == pg_query.Token_CASE) {
				f := *top()
				depth -= f.base + f.ops
				stack = stack[:len(stack)-1]
				// What was inside is an operand here: an operator after it
				// nests over all of it, (((x) op y) op z) ... included.
				parent := top()
				parent.peak = max(parent.peak, f.peak)
				if p := f.peak - f.start; p > parent.ops {
					depth += p - parent.ops
					parent.ops = p
				}
			}
		case pg_query.Token_ASCII_59: // ';': the next statement starts from nothing
			stack, depth = stack[:1], 0
			stack[0] = frame{}
		case pg_query.Token_ASCII_44, pg_query.Token_AND, pg_query.Token_OR,
			pg_query.Token_WHEN, pg_query.Token_THEN, pg_query.Token_ELSE,
			pg_query.Token_SELECT, pg_query.Token_FROM, pg_query.Token_WHERE,
			pg_query.Token_GROUP_P, pg_query.Token_HAVING, pg_query.Token_ORDER,
			pg_query.Token_BY, pg_query.Token_LIMIT, pg_query.Token_OFFSET,
			pg_query.Token_ON, pg_query.Token_USING, pg_query.Token_VALUES,
			pg_query.Token_SET, pg_query.Token_RETURNING, pg_query.Token_INTO:
			reset()
		case pg_query.Token_UNION, pg_query.Token_INTERSECT, pg_query.Token_EXCEPT, pg_query.Token_JOIN:
			top().base++
			depth++
		default:
			if !nests(t.Token) {
				continue
			}
			top().ops++
			depth++
		}
		if f := top(); depth > f.peak {
			f.peak = depth
		}
		if depth > MaxDepth {
			return fmt.Errorf("%w: the statement nests more than %d levels deep at %s (operators, parentheses, CASE, subqueries, set operations and joins each add one or more)",
				ErrTooDeep, MaxDepth, s.origPosition(s.uncut(int(t.Start))))
		}
	}
	return nil
}

// nests reports whether a token is an operator whose result is a node over
// its operands: a chain of them is a chain of nested nodes.
func nests(t pg_query.Token) bool {
	switch t {
	case pg_query.Token_ASCII_37, pg_query.Token_ASCII_42, pg_query.Token_ASCII_43, // % * +
		pg_query.Token_ASCII_45, pg_query.Token_ASCII_47, pg_query.Token_ASCII_60, // - / <
		pg_query.Token_ASCII_61, pg_query.Token_ASCII_62, pg_query.Token_ASCII_94, // = > ^
		pg_query.Token_Op, pg_query.Token_TYPECAST, pg_query.Token_LESS_EQUALS,
		pg_query.Token_GREATER_EQUALS, pg_query.Token_NOT_EQUALS,
		pg_query.Token_NOT, pg_query.Token_NOT_LA, pg_query.Token_IS, pg_query.Token_ISNULL,
		pg_query.Token_NOTNULL, pg_query.Token_LIKE, pg_query.Token_ILIKE,
		pg_query.Token_SIMILAR, pg_query.Token_BETWEEN, pg_query.Token_IN_P,
		pg_query.Token_OPERATOR, pg_query.Token_COLLATE, pg_query.Token_AT,
		pg_query.Token_ESCAPE, pg_query.Token_OVERLAPS:
		return true
	}
	return false
}

// opensQuery reports whether a token after '(' starts a subquery.
func opensQuery(t pg_query.Token) bool {
	switch t {
	case pg_query.Token_SELECT, pg_query.Token_VALUES, pg_query.Token_WITH, pg_query.Token_TABLE:
		return true
	}
	return false
}
