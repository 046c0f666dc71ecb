package sql

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// comparisons maps SQL operators to functions_comparison names.
var comparisons = map[string]string{
	"=": "equal", "<>": "not_equal", "!=": "not_equal",
	"<": "lt", "<=": "lte", ">": "gt", ">=": "gte",
}

var arithmetic = map[string]string{
	"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "%": "modulus",
}

// expr lowers one expression over scope s.
func (l *lowerer) expr(n *pg_query.Node, s *scope) (value, error) {
	if n == nil {
		return value{}, fmt.Errorf("%w: empty expression", ErrSyntax)
	}
	if v, ok := l.groupedExpr(n, s); ok { // over GROUP BY: a group key (groupby.go)
		return v, nil
	}
	switch x := n.Node.(type) {
	case *pg_query.Node_AConst:
		return l.constant(x.AConst)
	case *pg_query.Node_ColumnRef:
		return l.columnRef(x.ColumnRef, s)
	case *pg_query.Node_ParamRef:
		return l.paramRef(x.ParamRef)
	case *pg_query.Node_TypeCast:
		return l.typeCast(x.TypeCast, s)
	case *pg_query.Node_AExpr:
		return l.aExpr(x.AExpr, s)
	case *pg_query.Node_BoolExpr:
		return l.boolExpr(x.BoolExpr, s)
	case *pg_query.Node_NullTest:
		return l.nullTest(x.NullTest, s)
	case *pg_query.Node_FuncCall:
		return l.funcCall(x.FuncCall, s)
	case *pg_query.Node_SubLink:
		return l.subLink(x.SubLink, s)
	case *pg_query.Node_CaseExpr:
		return l.caseExpr(x.CaseExpr, s)
	case *pg_query.Node_CoalesceExpr:
		return l.coalesce(x.CoalesceExpr, s)
	case *pg_query.Node_MinMaxExpr:
		return l.minMax(x.MinMaxExpr, s)
	case *pg_query.Node_SqlvalueFunction:
		return l.sqlValueFunction(x.SqlvalueFunction) // now.go
	case *pg_query.Node_GroupingFunc:
		return l.groupingFunc(x.GroupingFunc, s) // groupingsets.go
	case *pg_query.Node_AArrayExpr:
		return value{}, fmt.Errorf("%w: ARRAY outside UNNEST%s", ErrUnsupported, l.src.at(x.AArrayExpr.Location))
	}
	return value{}, fmt.Errorf("%w: expression %s", ErrUnsupported, nodeName(n))
}

// nodeName names an AST node kind for error messages ("SubLink").
func nodeName(n *pg_query.Node) string {
	name := fmt.Sprintf("%T", n.GetNode())
	name = strings.TrimPrefix(name, "*pg_query.Node_")
	return name
}

func (l *lowerer) constant(c *pg_query.A_Const) (value, error) {
	if c.Isnull {
		return value{how: untypedNull, loc: c.Location}, nil
	}
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Ival:
		return value{e: expr.NewPrimitiveLiteral(v.Ival.Ival, false), loc: c.Location}, nil // integer, as in PostgreSQL
	case *pg_query.A_Const_Fval:
		// Integers beyond int32 arrive as Fval too; keep them integers.
		if i, err := strconv.ParseInt(v.Fval.Fval, 10, 64); err == nil {
			if i == int64(int32(i)) {
				// -2147483648 (the grammar folds the minus into the
				// digits): PostgreSQL's make_const gives an integer
				// that fits int4 type integer.
				return value{e: expr.NewPrimitiveLiteral(int32(i), false), loc: c.Location, num: v.Fval.Fval}, nil
			}
			return value{e: expr.NewPrimitiveLiteral(i, false), loc: c.Location, num: v.Fval.Fval}, nil
		}
		return l.decimalConstant(v.Fval.Fval, c.Location)
	case *pg_query.A_Const_Boolval:
		return value{e: expr.NewPrimitiveLiteral(v.Boolval.Boolval, false), loc: c.Location, name: "bool"}, nil
	case *pg_query.A_Const_Sval:
		return value{how: untypedString, str: v.Sval.Sval, loc: c.Location}, nil
	}
	return value{}, fmt.Errorf("%w: literal%s", ErrUnsupported, l.src.at(c.Location))
}

// refName splits a ColumnRef into qualifier and name; star reports a
// trailing '*'.
func (l *lowerer) refName(c *pg_query.ColumnRef) (qual, name string, star bool, err error) {
	var parts []string
	for i, f := range c.Fields {
		if _, ok := f.Node.(*pg_query.Node_AStar); ok {
			if i != len(c.Fields)-1 {
				return "", "", false, fmt.Errorf("%w: misplaced *%s", ErrSyntax, l.src.at(c.Location))
			}
			star = true
			continue
		}
		parts = append(parts, f.GetString_().GetSval())
	}
	switch {
	case star && len(parts) == 0:
		return "", "", true, nil
	case star && len(parts) == 1:
		return parts[0], "", true, nil
	case !star && len(parts) == 1:
		return "", parts[0], false, nil
	case !star && len(parts) == 2:
		return parts[0], parts[1], false, nil
	}
	return "", "", false, fmt.Errorf("%w: qualified name %s%s", ErrUnsupported, strings.Join(parts, "."), l.src.at(c.Location))
}

func (l *lowerer) columnRef(c *pg_query.ColumnRef, s *scope) (value, error) {
	qual, name, star, err := l.refName(c)
	if err != nil {
		return value{}, err
	}
	if star {
		return value{}, fmt.Errorf("%w: * in an expression%s", ErrUnsupported, l.src.at(c.Location))
	}
	if s.aggs != nil {
		// Over an aggregate, a name of an enclosing query is an outer
		// reference (a constant of this query level), as in PostgreSQL.
		if v, ok, err := l.outerColumn(s, qual, name, c.Location); ok || err != nil {
			return v, err
		}
		return value{}, fmt.Errorf("%w: column %q must appear in the GROUP BY clause or be used in an aggregate function%s", ErrInvalid, name, l.src.at(c.Location))
	}
	i, err := l.lookup(s, qual, name, c.Location)
	if errors.Is(err, errCorrelated) {
		if v, ok, oerr := l.outerColumn(s, qual, name, c.Location); ok || oerr != nil {
			return v, oerr
		}
	}
	if err != nil {
		return value{}, err
	}
	if k := s.cols[i].konst; k != nil {
		return value{e: k, loc: c.Location, name: s.cols[i].name}, nil // pullconst.go
	}
	e, err := s.ref(i)
	if err != nil {
		return value{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return value{e: e, loc: c.Location, name: s.cols[i].name}, nil
}

func (l *lowerer) paramRef(p *pg_query.ParamRef) (value, error) {
	n := int(p.Number)
	if n >= hiddenListBase && n-hiddenListBase < len(l.src.lists) {
		return value{}, l.errHiddenList(p)
	}
	if n < 1 || n > maxParams {
		return value{}, fmt.Errorf("%w: there is no parameter $%d%s", ErrParam, n, l.src.at(p.Location))
	}
	if k, ok := l.knownParam(n); ok {
		e, err := l.paramExpr(n, k, p.Location)
		return value{e: e, loc: p.Location, param: n}, err
	}
	if n <= len(l.params) && l.params[n-1].list {
		return value{}, fmt.Errorf("%w: list parameter %s used as a scalar%s", ErrParam, l.paramLabel(n), l.src.at(p.Location))
	}
	return value{how: untypedParam, param: n, loc: p.Location}, nil
}

func (l *lowerer) typeCast(tc *pg_query.TypeCast, s *scope) (value, error) {
	k, array, err := typeName(tc.TypeName)
	if err != nil {
		if bare, ok := l.bareNumericConstant(tc, s); ok {
			return bare()
		}
		return value{}, err
	}
	if array {
		return value{}, fmt.Errorf("%w: array cast outside UNNEST%s", ErrUnsupported, l.src.at(tc.Location))
	}
	v, err := l.expr(tc.Arg, s)
	if err != nil {
		return value{}, err
	}
	e, err := l.explicit(v, k)
	if err != nil {
		return value{}, err
	}
	return value{e: e, loc: tc.Location, name: v.name}, nil
}

// opName returns the operator of an A_Expr ("=", "+").
func opName(a *pg_query.A_Expr) string {
	if len(a.Name) == 1 {
		return a.Name[0].GetString_().GetSval()
	}
	return "?"
}

func (l *lowerer) aExpr(a *pg_query.A_Expr, s *scope) (value, error) {
	op := opName(a)
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP:
	case pg_query.A_Expr_Kind_AEXPR_IN:
		return l.inList(a, op, s)
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		return l.between(a, s)
	case pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		return l.like(a, s)
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return l.isDistinctFrom(a, s)
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		return l.nullIf(a, s)
	default:
		return value{}, fmt.Errorf("%w: operator form %s%s", ErrUnsupported, strings.TrimPrefix(a.Kind.String(), "AEXPR_"), l.src.at(a.Location))
	}
	if a.Lexpr == nil {
		return l.unary(a, op, s)
	}
	if v, ok, err := l.intervalArith(a, op, s); ok || err != nil { // interval.go
		return v, err
	}
	if a.Lexpr.GetRowExpr() != nil {
		return l.rowComparison(a, op, s) // rowcmp.go
	}
	lv, err := l.expr(a.Lexpr, s)
	if err != nil {
		return value{}, err
	}
	rv, err := l.expr(a.Rexpr, s)
	if err != nil {
		return value{}, err
	}
	if op == "||" {
		return l.concatOp(a, lv, rv)
	}
	if fn, ok := comparisons[op]; ok {
		lv, rv = midnightDate(lv, rv) // interval.go
		args, _, err := l.unify(lv, rv)
		if err != nil {
			return value{}, err
		}
		if fn == "equal" && s.nLeft > 0 && rightThenLeft(args, s.nLeft) {
			args[0], args[1] = args[1], args[0]
		}
		e, err := l.call(urnComparison, fn, a.Location, args...)
		return value{e: e, loc: a.Location}, err
	}
	if fn, ok := arithmetic[op]; ok {
		if v, ok := l.foldNumericConstants(op, lv, rv); ok { // numconst.go
			return v, nil
		}
		if v, ok, err := l.datetimeArith(op, lv, rv, a.Location); ok || err != nil {
			return v, err
		}
		if v, ok, err := l.numericArith(op, lv, rv, a.Location); ok || err != nil {
			return v, err
		}
		args, k, err := l.unifyNumbers(lv, rv)
		if err != nil {
			return value{}, err
		}
		if !k.Numeric() {
			return value{}, fmt.Errorf("%w: operator %s needs numbers, not %s%s", ErrType, op, k, l.src.at(a.Location))
		}
		if folded, ok := foldArithmetic(op, args[0], args[1]); ok {
			return value{e: folded, loc: a.Location}, nil
		}
		e, err := l.call(urnArithmetic, fn, a.Location, args...)
		return value{e: e, loc: a.Location}, err
	}
	return value{}, fmt.Errorf("%w: operator %s%s", ErrUnsupported, op, l.src.at(a.Location))
}

// rightThenLeft reports an equality written as right_input.col = left_input.col,
// which joins rewrite left-first so ON t._rowid = v.rowid reads as
// equal(v.rowid, t._rowid) when v is the left input.
func rightThenLeft(args []expr.Expression, nLeft int) bool {
	idx := func(e expr.Expression) int {
		f, ok := e.(*expr.FieldReference)
		if !ok {
			return -1
		}
		sf, ok := f.Reference.(*expr.StructFieldRef)
		if !ok {
			return -1
		}
		return int(sf.Field)
	}
	a, b := idx(args[0]), idx(args[1])
	return a >= nLeft && b >= 0 && b < nLeft
}

func (l *lowerer) unary(a *pg_query.A_Expr, op string, s *scope) (value, error) {
	v, err := l.expr(a.Rexpr, s)
	if err != nil {
		return value{}, err
	}
	if op != "-" && op != "+" {
		return value{}, fmt.Errorf("%w: prefix operator %s%s", ErrUnsupported, op, l.src.at(a.Location))
	}
	e, err := l.settleNumber(v)
	if err != nil {
		return value{}, err
	}
	if !kindOf(e.GetType()).Numeric() {
		return value{}, fmt.Errorf("%w: unary %s needs a number%s", ErrType, op, l.src.at(a.Location))
	}
	if op == "+" {
		return value{e: e, loc: a.Location}, nil
	}
	// Fold -literal so VALUES and generate_series see plain numbers.
	switch x := e.(type) {
	case *expr.PrimitiveLiteral[int64]:
		if x.Value != -x.Value || x.Value == 0 {
			return value{e: expr.NewPrimitiveLiteral(-x.Value, false), loc: a.Location}, nil
		}
	case *expr.PrimitiveLiteral[int32]:
		if x.Value != -x.Value || x.Value == 0 {
			return value{e: expr.NewPrimitiveLiteral(-x.Value, false), loc: a.Location}, nil
		}
	case *expr.PrimitiveLiteral[float64]:
		return value{e: expr.NewPrimitiveLiteral(-x.Value, false), loc: a.Location}, nil
	case *expr.PrimitiveLiteral[float32]:
		return value{e: expr.NewPrimitiveLiteral(-x.Value, false), loc: a.Location}, nil
	}
	if kindOf(e.GetType()).ID == idNumeric {
		neg, err := l.negateNumeric(e, a.Location)
		return value{e: neg, loc: a.Location}, err
	}
	neg, err := l.call(urnArithmetic, "negate", a.Location, e)
	return value{e: neg, loc: a.Location}, err
}

func (l *lowerer) inList(a *pg_query.A_Expr, op string, s *scope) (value, error) {
	list := a.Rexpr.GetList()
	if list == nil {
		return value{}, fmt.Errorf("%w: IN without a list%s", ErrUnsupported, l.src.at(a.Location))
	}
	lv, err := l.expr(a.Lexpr, s)
	if err != nil {
		return value{}, err
	}
	if items, ok := l.hiddenList(list); ok { // a long list of constants (constlist.go)
		return l.constInList(a, op, lv, items)
	}
	vs := []value{lv}
	for _, item := range list.Items {
		v, err := l.expr(item, s)
		if err != nil {
			return value{}, err
		}
		vs = append(vs, v)
	}
	es, _, err := l.unify(vs...)
	if err != nil {
		return value{}, err
	}
	if null, ok := nullInList(es[0], es[1:]); ok { // constfold.go
		return value{e: null, loc: a.Location}, nil
	}
	if e, ok, err := l.nullInSplit(es[0], es[1:], op == "<>", a.Location); ok || err != nil { // constfold.go
		return value{e: e, loc: a.Location}, err
	}
	if null, ok := nullSingleton(es[0], es[1:]); ok { // constfold.go
		return value{e: null, loc: a.Location}, nil
	}
	var e expr.Expression = &expr.SingularOrList{Value: es[0], Options: es[1:]}
	if lit, ok := constantInList(e.(*expr.SingularOrList)); ok {
		e = lit
	}
	if op == "<>" {
		if e, err = l.call(urnBoolean, "not", a.Location, e); err != nil {
			return value{}, err
		}
	}
	return value{e: e, loc: a.Location}, nil
}

// between lowers x [NOT] BETWEEN lo AND hi to lo <= x AND x <= hi.
func (l *lowerer) between(a *pg_query.A_Expr, s *scope) (value, error) {
	bounds := a.Rexpr.GetList()
	if bounds == nil || len(bounds.Items) != 2 {
		return value{}, fmt.Errorf("%w: BETWEEN form%s", ErrUnsupported, l.src.at(a.Location))
	}
	vs := make([]value, 3)
	var err error
	if vs[0], err = l.expr(a.Lexpr, s); err != nil {
		return value{}, err
	}
	for i, b := range bounds.Items {
		if vs[i+1], err = l.expr(b, s); err != nil {
			return value{}, err
		}
	}
	es, _, err := l.unify(vs...)
	if err != nil {
		return value{}, err
	}
	lo, err := l.call(urnComparison, "gte", a.Location, es[0], es[1])
	if err != nil {
		return value{}, err
	}
	hi, err := l.call(urnComparison, "lte", a.Location, es[0], es[2])
	if err != nil {
		return value{}, err
	}
	e, err := l.call(urnBoolean, "and", a.Location, lo, hi)
	if err == nil && a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN {
		e, err = l.call(urnBoolean, "not", a.Location, e)
	}
	return value{e: e, loc: a.Location}, err
}

func (l *lowerer) boolExpr(b *pg_query.BoolExpr, s *scope) (value, error) {
	args := make([]expr.Expression, len(b.Args))
	for i, n := range b.Args {
		v, err := l.expr(n, s)
		if err != nil {
			return value{}, err
		}
		if args[i], err = l.coerce(v, kindBool); err != nil {
			return value{}, err
		}
	}
	name := map[pg_query.BoolExprType]string{
		pg_query.BoolExprType_AND_EXPR: "and",
		pg_query.BoolExprType_OR_EXPR:  "or",
		pg_query.BoolExprType_NOT_EXPR: "not",
	}[b.Boolop]
	if name == "" {
		return value{}, fmt.Errorf("%w: boolean operator%s", ErrUnsupported, l.src.at(b.Location))
	}
	e, err := l.call(urnBoolean, name, b.Location, args...)
	return value{e: e, loc: b.Location}, err
}

func (l *lowerer) nullTest(t *pg_query.NullTest, s *scope) (value, error) {
	v, err := l.expr(t.Arg, s)
	if err != nil {
		return value{}, err
	}
	var e expr.Expression
	if v.how == untypedParam {
		e, err = l.openParam(v.param, v.loc)
	} else {
		e, err = l.settle(v)
	}
	if err != nil {
		return value{}, err
	}
	name := "is_null"
	if t.Nulltesttype == pg_query.NullTestType_IS_NOT_NULL {
		name = "is_not_null"
	}
	out, err := l.call(urnComparison, name, t.Location, e)
	return value{e: out, loc: t.Location}, err
}

// funcName is the lower-case, unqualified name of a function call.
func funcName(f *pg_query.FuncCall) string {
	var parts []string
	for _, n := range f.Funcname {
		parts = append(parts, n.GetString_().GetSval())
	}
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	return strings.ToLower(strings.Join(parts, "."))
}

func isAggregate(f *pg_query.FuncCall) bool { return aggregateNames[funcName(f)] }

func (l *lowerer) funcCall(f *pg_query.FuncCall, s *scope) (value, error) {
	if f.Over != nil {
		return l.windowCall(f, s) // window.go
	}
	if !isAggregate(f) {
		return l.scalarCall(f, s)
	}
	if l.outerAggs[f] {
		if v, ok, err := l.outerAggRef(f, s); ok || err != nil { // outeragg.go
			return v, err
		}
	}
	if s.aggs == nil {
		where := s.noAggs
		if where == "" {
			where = "here"
		}
		return value{}, fmt.Errorf("%w: aggregate functions are not allowed %s%s", ErrInvalid, where, l.src.at(f.Location))
	}
	i, ok := s.aggs[f]
	if !ok {
		return value{}, fmt.Errorf("%w: aggregate not collected%s", ErrInvalid, l.src.at(f.Location))
	}
	e, err := s.ref(int(i))
	return value{e: e, loc: f.Location, name: funcName(f)}, err
}

// bareNumericConstant lowers CAST(constant AS NUMERIC) without a
// precision, which a numeric column cannot have here (decimal128 has one
// scale) but a constant can: the numeric of exactly its digits, as
// numeric_in reads them ('1.50'::numeric is 1.50, 1e3::numeric 1000).
// 'NaN'::numeric is sqlvalue.ErrNumericSpecial. ok is false for anything
// else, which keeps the precision error.
func (l *lowerer) bareNumericConstant(tc *pg_query.TypeCast, s *scope) (func() (value, error), bool) {
	name := ""
	if n := len(tc.TypeName.GetNames()); n > 0 {
		name = tc.TypeName.Names[n-1].GetString_().GetSval()
	}
	if (name != "numeric" && name != "decimal") || len(tc.TypeName.Typmods) > 0 || len(tc.TypeName.ArrayBounds) > 0 {
		return nil, false
	}
	v, err := l.expr(tc.Arg, s)
	if err != nil {
		return nil, false
	}
	text := v.num
	if v.how == untypedString {
		text = strings.Trim(v.str, " \t\n\r\f\v")
	} else if n, isInt := literalOf(v.e); v.how == typed && isInt && text == "" {
		i, ok := intOf(n)
		if !ok {
			return nil, false
		}
		text = strconv.FormatInt(i, 10)
	}
	if text == "" {
		return nil, false
	}
	return func() (value, error) {
		num, ok := plainDecimal(strings.TrimPrefix(text, "+"))
		if !ok {
			// NaN, Infinity: ErrNumericSpecial; anything else numeric_in's
			// syntax error.
			_, err := sqlvalue.ParseDecimal(text, sqlvalue.MaxDecimalPrecision, 0)
			return value{}, fmt.Errorf("%w: %w%s", ErrType, err, l.src.at(tc.Location))
		}
		k, fits := numericConstantKind(num)
		if !fits {
			return value{}, fmt.Errorf("%w: NUMERIC constant %s of more than %d digits%s", ErrUnsupported, text, sqlvalue.MaxDecimalPrecision, l.src.at(tc.Location))
		}
		e, err := l.parseLiteral(num, k, tc.Location)
		return value{e: e, loc: tc.Location, name: "numeric", num: num}, err
	}, true
}
