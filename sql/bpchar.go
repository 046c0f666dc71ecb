package sql

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"

	"github.com/stablerow/stablerow/internal/substraitfn"
	sqlvalue "github.com/stablerow/stablerow/value"
)

// PostgreSQL's choices between bpchar and text, for character(n) (the
// engine's form of its values, without trailing blanks, and where the
// blanks come back: value/bpchar.go and plan/bpchar.go).
//
//   - A comparison (=, <, IN, BETWEEN, IS DISTINCT FROM ...) with a
//     character(n) operand and no text one resolves to bpchar's operators:
//     PostgreSQL's operator resolution prefers bpchar = bpchar, one exact
//     argument, over text = text, none, and casts a varchar operand (or an
//     untyped literal or parameter) to bpchar, whose trailing blanks then
//     do not count: char(4) 'ab' = varchar 'ab ' is true. Here the
//     char(n) operands are already in that form and the others lose
//     their trailing blanks (asBpchar).
//   - With a text operand, text = text wins (text is the preferred string
//     type): char(n) becomes text, 'ab', and 'ab' = text 'ab ' is false;
//     that is no conversion at all here.
//   - LIKE and ILIKE on a character(n) operand are bpcharlike: they see
//     the value blank-padded to n ('ab' LIKE 'ab' is false for char(4)),
//     padded here with rpad (likeOperand); the pattern is text.
//   - length and char_length count without the trailing blanks (the
//     engine's form, as is), octet_length with them (octetLength); ||,
//     upper, substr and the other text functions take bpchar as text.

// bpcharOperands reports whether vs, a comparison's operands (compare),
// compare as bpchar: a character(n) among them and, but for varchar,
// nothing else typed. Results meeting at a common type (CASE, COALESCE)
// keep the older rule: all character(n), untyped values aside.
func bpcharOperands(vs []value, compare bool) bool {
	char := false
	for _, v := range vs {
		if v.how != typed {
			continue
		}
		switch v.kind().ID {
		case idChar:
			char = true
		case idVarchar:
			if !compare {
				return false
			}
		default:
			return false
		}
	}
	return char
}

// untypedAsBpchar gives the untyped string literals among vs bpchar's
// meaning: without their trailing blanks ('x  ' = 'x'). The caller's
// values stay as written.
func untypedAsBpchar(vs []value) []value {
	vs = slices.Clone(vs)
	for i, v := range vs {
		if v.how == untypedString {
			vs[i].str = strings.TrimRight(v.str, " ")
		}
	}
	return vs
}

// asBpchar casts the varchar operands and parameters among vs (lowered as
// out, in text) to bpchar: without their trailing blanks. A constant is
// converted here, anything else by rtrim per row.
func (l *lowerer) asBpchar(vs []value, out []expr.Expression) ([]expr.Expression, error) {
	for i, v := range vs {
		if !(v.how == typed && v.kind().ID == idVarchar || v.how == untypedParam) {
			continue
		}
		if lit, ok := literalOf(out[i]); ok {
			if s, isStr := lit.(string); isStr {
				out[i] = expr.NewPrimitiveLiteral(sqlvalue.TrimBlanks(s), isNullable(out[i].GetType()))
			}
			continue
		}
		e, err := l.callOpts(urnString, "rtrim", v.loc, nil, out[i], expr.NewPrimitiveLiteral(" ", false))
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// likeOperand lowers LIKE's left operand: text, or a character(n) value
// blank-padded to n (bpcharlike).
func (l *lowerer) likeOperand(v value) (expr.Expression, error) {
	e, err := l.coerce(v, kindString)
	if err != nil {
		return nil, err
	}
	return l.padded(v, e)
}

// padded is e, v lowered as text, blank-padded back to n when v is
// character(n).
func (l *lowerer) padded(v value, e expr.Expression) (expr.Expression, error) {
	k := v.kind()
	if k.ID != idChar {
		return e, nil
	}
	if lit, ok := literalOf(e); ok {
		if s, isStr := lit.(string); isStr {
			return expr.NewPrimitiveLiteral(sqlvalue.PadBlanks(s, int(k.N)), isNullable(e.GetType())), nil
		}
		return e, nil
	}
	return l.callOpts(urnString, "rpad", v.loc, nil, e, expr.NewPrimitiveLiteral(k.N, false), expr.NewPrimitiveLiteral(" ", false))
}

// lowerOctetLength: octet_length(s), the bytes of s; of a character(n),
// with its blank padding.
func lowerOctetLength(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
	e, err := l.likeOperand(args[0])
	if err != nil {
		return nil, err
	}
	return l.callOpts(urnString, "octet_length", f.Location, nil, e)
}

// lowerRpad: rpad(s, n [, fill]), fill ' ' by default.
func lowerRpad(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
	s, err := l.coerce(args[0], kindString)
	if err != nil {
		return nil, err
	}
	n, err := l.int32Arg(args[1])
	if err != nil {
		return nil, err
	}
	fill := expr.Expression(expr.NewPrimitiveLiteral(" ", false))
	if len(args) == 3 {
		if fill, err = l.coerce(args[2], kindString); err != nil {
			return nil, err
		}
	}
	return l.callOpts(urnString, "rpad", f.Location, []substraitfn.Option(nil), s, n, fill)
}

// DeclaredCast is the assignment cast of a value stored into a column f
// when f's declared type (value.SQLTypeKey) checks or changes strings:
// varchar(n) checks the length, char(n) checks it and drops the trailing
// blanks (the engine's form). COPY FROM applies it to the column
// (physexpr.CharCast), as PostgreSQL's COPY applies the column's type
// modifier. It is a value conversion, so the front end names no executor
// expression.
func DeclaredCast(f arrow.Field) (sqlvalue.CharCast, bool) {
	k := fieldKind(f)
	switch {
	case k.ID == idChar:
		return sqlvalue.CharCast{Len: int(k.N), Char: true}, true
	case k.ID == idVarchar && k.N > 0:
		return sqlvalue.CharCast{Len: int(k.N)}, true
	}
	return sqlvalue.CharCast{}, false
}
