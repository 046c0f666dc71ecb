package sql

import (
	"slices"

	"github.com/substrait-io/substrait-go/v8/expr"
)

// A parameter's type, as PostgreSQL's parse analysis of a statement with
// parameters of unspecified type (parse_analyze_varparams) gives it: the
// first use that coerces it fixes it (variable_coerce_param_hook: $1
// compared with a bigint column is bigint), a use of any type leaves it
// unknown (IS NULL), and one still unknown at the end of the statement is
// an error (check_variable_parameters: "could not determine data type of
// parameter $1"). Where PostgreSQL resolves an unknown to text (a select
// list item, a sort or group key, operands that are all unknown) the
// lowerer does the same (defaultKind, unifyAs). Where PostgreSQL finds a
// numeric operator ambiguous over unknowns (unknown + unknown, - unknown,
// abs(unknown)) the parameter is bigint, as it was before any of this:
// an answer where PostgreSQL has an error, never another answer.

// openParam is $k where its use fixes no type: if an earlier use typed
// it, that type; else a parameter left open, typed when a later use fixes
// its type (fixOpenParam) and refused if none does (paramNames).
func (l *lowerer) openParam(n int, loc int32) (expr.Expression, error) {
	if k, ok := l.knownParam(n); ok {
		return l.paramExpr(n, k, loc)
	}
	if n >= 1 && n <= len(l.params) && l.params[n-1].list {
		return l.paramExpr(n, kindString, loc) // refused there: a list used as a scalar
	}
	if n < 1 || n > len(l.params) || !l.params[n-1].used {
		if err := l.useParam(n, false, kindString, loc); err != nil {
			return nil, err
		}
	}
	p := &l.params[n-1] // unused before, or open
	// A placeholder type (text) until a use fixes one: IS NULL takes any.
	e := &expr.DynamicParameter{OutputType: kindString.Type(true), ParameterReference: uint32(n)}
	p.open = append(p.open, e)
	return e, nil
}

// fixOpenParam gives an open parameter p the kind k of the first use that
// fixes one, and its earlier open uses too.
func (l *lowerer) fixOpenParam(p *paramUse, k kind) {
	for _, e := range p.open {
		e.OutputType = k.Type(true)
	}
	p.open, p.kind = nil, k
}

// knownAsTyped is v, a parameter an earlier use typed, as a typed value
// of that type, so the operands it meets take its type as PostgreSQL's
// Param of a fixed type gives it (k = $1 AND $1 = $2 makes $2 bigint);
// any other v as it is.
func (l *lowerer) knownAsTyped(v value) (value, error) {
	if v.how != untypedParam {
		return v, nil
	}
	k, ok := l.knownParam(v.param)
	if !ok {
		return v, nil
	}
	e, err := l.paramExpr(v.param, k, v.loc)
	return value{e: e, param: v.param, loc: v.loc}, err
}

// settleNumber settles v where a number is wanted: an untyped parameter
// nothing typed before is bigint.
func (l *lowerer) settleNumber(v value) (expr.Expression, error) {
	if v.how == untypedParam {
		if _, ok := l.knownParam(v.param); !ok {
			return l.coerce(v, kindI64)
		}
	}
	return l.settle(v)
}

// unifyNumbers is unify for arithmetic: operands none of which is typed
// meet at bigint, not text.
func (l *lowerer) unifyNumbers(vs ...value) ([]expr.Expression, kind, error) {
	for i := range vs {
		var err error
		if vs[i], err = l.knownAsTyped(vs[i]); err != nil {
			return nil, kindUnknown, err
		}
	}
	if slices.ContainsFunc(vs, func(v value) bool { return v.how == typed }) {
		return l.unify(vs...)
	}
	out := make([]expr.Expression, len(vs))
	for i, v := range vs {
		e, err := l.coerce(v, kindI64)
		if err != nil {
			return nil, kindUnknown, err
		}
		out[i] = e
	}
	return out, kindI64, nil
}
