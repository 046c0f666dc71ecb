package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// concat(a, b, ...) and concat_ws(sep, a, b, ...), PostgreSQL's text_concat
// and text_concat_ws: each argument as its type's output function writes
// it (boolean t/f, a character(n) blank-padded to n: not the casts to
// text, which say true and drop the blanks), NULL arguments skipped, so
// concat is never NULL; concat_ws puts sep between the arguments that are
// not NULL, and is NULL when sep is. Lowered to Substrait's strict concat
// over arguments that cannot be NULL: each one coalesced to '' (concat),
// or with its separator folded in (concat_ws, below).

// lowerConcat lowers concat(args...).
func lowerConcat(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
	es := make([]expr.Expression, 0, len(args))
	for _, v := range args {
		e, err := l.outputText(v, f.Location)
		if err != nil {
			return nil, err
		}
		if e == nil {
			continue // a NULL constant adds nothing
		}
		if e, err = l.callOpts(urnComparison, "coalesce", f.Location, nil, e, expr.NewPrimitiveLiteral("", false)); err != nil {
			return nil, err
		}
		es = append(es, e)
	}
	switch len(es) {
	case 0:
		return expr.NewPrimitiveLiteral("", false), nil
	case 1:
		return es[0], nil
	}
	return l.callOpts(urnString, "concat", f.Location, nil, es...)
}

// lowerConcatWS lowers concat_ws(sep, args...). Argument i > 0 contributes
// sep || a_i when a_i is not NULL and an argument before it is not NULL,
// a_i alone when it is the first that is not, and ” when it is NULL: the
// "one before is not NULL" test is coalesce over the arguments before it
// (an argument list is short, so the quadratic size is no concern). The
// whole is NULL when sep is, as text_concat_ws is strict in sep.
func lowerConcatWS(l *lowerer, f *pg_query.FuncCall, args []value) (expr.Expression, error) {
	sep, err := l.coerce(args[0], kindString)
	if err != nil {
		return nil, err
	}
	var vals []expr.Expression
	for _, v := range args[1:] {
		e, err := l.outputText(v, f.Location)
		if err != nil {
			return nil, err
		}
		if e != nil {
			vals = append(vals, e)
		}
	}
	empty := expr.NewPrimitiveLiteral("", true)
	pieces := []expr.Expression{}
	for i, e := range vals {
		isNull, err := l.call(urnComparison, "is_null", f.Location, e)
		if err != nil {
			return nil, err
		}
		piece := nullable(e)
		if i > 0 {
			before := vals[0]
			if i > 1 {
				if before, err = l.callOpts(urnComparison, "coalesce", f.Location, nil, vals[:i]...); err != nil {
					return nil, err
				}
			}
			anyBefore, err := l.call(urnComparison, "is_not_null", f.Location, before)
			if err != nil {
				return nil, err
			}
			withSep, err := l.callOpts(urnString, "concat", f.Location, nil, sep, e)
			if err != nil {
				return nil, err
			}
			if piece, err = expr.NewIfThen(expr.IfThenPair{If: anyBefore, Then: nullable(withSep)}, piece); err != nil {
				return nil, fmt.Errorf("%w: concat_ws: %w", ErrType, err)
			}
		}
		if piece, err = expr.NewIfThen(expr.IfThenPair{If: isNull, Then: empty}, piece); err != nil {
			return nil, fmt.Errorf("%w: concat_ws: %w", ErrType, err)
		}
		pieces = append(pieces, piece)
	}
	// sep || '' || pieces... keeps the result NULL exactly when sep is:
	// concat is strict, and every piece is not NULL.
	var body expr.Expression = empty
	switch len(pieces) {
	case 0:
	case 1:
		body = pieces[0]
	default:
		if body, err = l.callOpts(urnString, "concat", f.Location, nil, pieces...); err != nil {
			return nil, err
		}
	}
	sepNull, err := l.call(urnComparison, "is_null", f.Location, sep)
	if err != nil {
		return nil, err
	}
	out, err := expr.NewIfThen(expr.IfThenPair{If: sepNull, Then: expr.NewNullLiteral(kindString.Type(true))}, nullable(body))
	if err != nil {
		return nil, fmt.Errorf("%w: concat_ws: %w", ErrType, err)
	}
	return out, nil
}

// outputText is v as its type's output function writes it, as text, or
// nil for a NULL constant: booleans t and f, a character(n) value padded
// to n, other values as their cast to text writes them (the casts of
// numbers, dates and timestamps are their output functions).
func (l *lowerer) outputText(v value, loc int32) (expr.Expression, error) {
	if v.how == untypedNull {
		return nil, nil
	}
	e, err := l.settle(v)
	if err != nil {
		return nil, err
	}
	if lit, ok := literalOf(e); ok && lit == nil {
		return nil, nil
	}
	switch k := kindOf(e.GetType()); {
	case k == kindUnknown:
		return nil, fmt.Errorf("%w: concat of %s%s", ErrType, e.GetType(), l.src.at(loc))
	case k.ID == idBool:
		not, err := l.call(urnBoolean, "not", loc, e)
		if err != nil {
			return nil, err
		}
		f, err := expr.NewIfThen(expr.IfThenPair{If: not, Then: expr.NewPrimitiveLiteral("f", true)}, expr.NewNullLiteral(kindString.Type(true)))
		if err != nil {
			return nil, fmt.Errorf("%w: concat: %w", ErrType, err)
		}
		out, err := expr.NewIfThen(expr.IfThenPair{If: e, Then: expr.NewPrimitiveLiteral("t", true)}, f)
		if err != nil {
			return nil, fmt.Errorf("%w: concat: %w", ErrType, err)
		}
		return out, nil
	case k.ID == idChar:
		t, err := l.cast(e, kindString, false, loc)
		if err != nil {
			return nil, err
		}
		return l.padded(value{e: e, loc: loc}, t)
	default:
		return l.cast(e, kindString, false, loc)
	}
}
