package sql

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/stablerow/stablerow/internal/suggest"
)

// Extension-table relation names (substrait.md §4).
const (
	relUnnest         = "stablerow.unnest"
	relGenerateSeries = "stablerow.generate_series"
)

// maxExactInt bounds integers carried in a structpb detail, whose numbers
// are float64: beyond 2^53 they would silently change.
const maxExactInt = 1 << 53

// from lowers a FROM clause. No FROM is one row with no columns.
func (l *lowerer) from(items []*pg_query.Node) (plan.Rel, *scope, error) {
	switch len(items) {
	case 0:
		rel, err := l.b.VirtualTableFromExpr([]string{}, expr.VirtualTableExpressionValue{})
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return rel, &scope{outer: l.outer}, nil
	}
	// FROM a, b, c is a cross join of the items, left-deep.
	rel, sc, err := l.fromItem(items[0])
	if err != nil {
		return nil, nil, err
	}
	for _, item := range items[1:] {
		lateral := isLateral(item)
		var right plan.Rel
		var rs *scope
		if pl, ps, fr, fs, ok, ferr := l.lateralFunction(rel, sc, item); ferr != nil || ok { // lateralfn.go
			rel, sc, right, rs, lateral, err = pl, ps, fr, fs, true, ferr
		} else if lateral {
			right, rs, err = l.lateralItem(item, sc) // lateral.go
		} else {
			right, rs, err = l.fromItem(item)
		}
		if err != nil {
			return nil, nil, err
		}
		if err := l.distinctQuals(sc, rs); err != nil {
			return nil, nil, err
		}
		if lateral {
			if rel, err = l.lateralJoin(rel, right, nil, plan.JoinTypeInner); err != nil {
				return nil, nil, err
			}
		} else if rel, err = l.b.Cross(rel, right); err != nil {
			return nil, nil, fmt.Errorf("%w: cross join: %w", ErrInvalid, err)
		}
		sc = &scope{cols: append(append([]column{}, sc.cols...), rs.cols...)}
	}
	sc.outer = l.outer // a subquery's FROM may not see the outer query
	return rel, sc, nil
}

// distinctQuals refuses a FROM item name used on both sides of a join.
func (l *lowerer) distinctQuals(ls, rs *scope) error {
	for _, c := range rs.cols {
		if c.qual != "" && ls.hasQual(c.qual) {
			return fmt.Errorf("%w: table name %q specified more than once", ErrAmbiguous, c.qual)
		}
	}
	return nil
}

func (l *lowerer) fromItem(n *pg_query.Node) (plan.Rel, *scope, error) {
	switch x := n.Node.(type) {
	case *pg_query.Node_RangeVar:
		return l.table(x.RangeVar)
	case *pg_query.Node_RangeFunction:
		if rel, sc, ok, err := l.aloneFunction(n); err != nil || ok { // lateralfn.go
			return rel, sc, err
		}
		return l.rangeFunction(x.RangeFunction)
	case *pg_query.Node_JoinExpr:
		return l.join(x.JoinExpr)
	case *pg_query.Node_RangeSubselect:
		return l.derived(x.RangeSubselect) // cte.go
	}
	return nil, nil, fmt.Errorf("%w: FROM item %s", ErrUnsupported, nodeName(n))
}

// tableName checks a RangeVar names a plain table and returns its name.
func (l *lowerer) tableName(rv *pg_query.RangeVar) (string, error) {
	if rv.Catalogname != "" || (rv.Schemaname != "" && rv.Schemaname != "public") {
		return "", fmt.Errorf("%w: schema-qualified table %s.%s%s", ErrUnsupported, rv.Schemaname, rv.Relname, l.src.at(rv.Location))
	}
	if !rv.Inh {
		return "", fmt.Errorf("%w: ONLY%s", ErrUnsupported, l.src.at(rv.Location))
	}
	return rv.Relname, nil
}

// tableSchema asks the catalog and lays the table out as columns (substrait.md §2):
// user columns, then _rowid and _rowaddr as non-nullable i64.
func (l *lowerer) tableSchema(name string, loc int32) (types.NamedStruct, []column, error) {
	sch, err := l.cat.TableSchema(name)
	switch {
	case err != nil && !errors.Is(err, ErrUnknownTable):
		return types.NamedStruct{}, nil, fmt.Errorf("sql: table %q%s: %w", name, l.src.at(loc), err)
	case err != nil || sch == nil:
		return types.NamedStruct{}, nil, l.unknownTable(name, loc, err)
	}
	ns := types.NamedStruct{Struct: types.StructType{Nullability: types.NullabilityRequired}}
	var cols []column
	for _, f := range sch.Fields() {
		k := fieldKind(f)
		if k == kindUnknown {
			return types.NamedStruct{}, nil, fmt.Errorf("%w: column %s.%s of Arrow type %s", ErrUnsupported, name, f.Name, f.Type)
		}
		sys := isSystemColumn(f.Name)
		t := k.Type(f.Nullable && !sys)
		ns.Names = append(ns.Names, f.Name)
		ns.Struct.Types = append(ns.Struct.Types, t)
		cols = append(cols, column{qual: name, name: f.Name, typ: t, hidden: sys})
	}
	return ns, cols, nil
}

func (l *lowerer) table(rv *pg_query.RangeVar) (plan.Rel, *scope, error) {
	if rv.Schemaname == "" && rv.Catalogname == "" {
		if def, ok := l.cte(rv.Relname); ok {
			return l.cteRef(def, rv) // a WITH query shadows a table
		}
	}
	if isInfoSchema(rv) {
		return l.infoSchemaTable(rv) // infoschema.go
	}
	name, err := l.tableName(rv)
	if err != nil {
		return nil, nil, err
	}
	if def, ok, err := l.view(name); err != nil {
		return nil, nil, err
	} else if ok {
		return l.viewRef(def, rv) // view.go
	}
	ns, cols, err := l.tableSchema(name, rv.Location)
	if err != nil {
		return nil, nil, err
	}
	if err := l.alias(rv.Alias, cols); err != nil {
		return nil, nil, err
	}
	return l.b.NamedScan([]string{name}, ns), &scope{cols: cols}, nil
}

// alias applies AS name[(c1, c2, ...)] to a FROM item's columns; column
// aliases rename the visible columns in order.
func (l *lowerer) alias(a *pg_query.Alias, cols []column) error {
	if a == nil {
		return nil
	}
	for i := range cols {
		cols[i].qual = a.Aliasname
	}
	j := 0
	for _, n := range a.Colnames {
		for j < len(cols) && cols[j].hidden {
			j++
		}
		if j == len(cols) {
			return fmt.Errorf("%w: %q has fewer columns than the aliases given", ErrInvalid, a.Aliasname)
		}
		cols[j].name = n.GetString_().GetSval()
		j++
	}
	return nil
}

// rangeFunction lowers UNNEST(...) [WITH ORDINALITY] and generate_series(...)
// in FROM to extension-table reads (substrait.md §4).
func (l *lowerer) rangeFunction(rf *pg_query.RangeFunction) (plan.Rel, *scope, error) {
	if rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 {
		return nil, nil, fmt.Errorf("%w: this table function form (ROWS FROM, column definitions)", ErrUnsupported)
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 || items[0].GetFuncCall() == nil || (len(items) > 1 && items[1] != nil && items[1].Node != nil) {
		return nil, nil, fmt.Errorf("%w: table function form", ErrUnsupported)
	}
	fc := items[0].GetFuncCall()
	if fc.AggStar || fc.AggDistinct || fc.FuncVariadic || len(fc.AggOrder) > 0 || fc.AggFilter != nil || fc.Over != nil {
		return nil, nil, fmt.Errorf("%w: decorated table function call%s", ErrUnsupported, l.src.at(fc.Location))
	}
	switch name := funcName(fc); name {
	case "unnest":
		return l.unnest(fc, rf)
	case "generate_series":
		if rf.Ordinality {
			return nil, nil, fmt.Errorf("%w: generate_series WITH ORDINALITY%s", ErrUnsupported, l.src.at(fc.Location))
		}
		return l.generateSeries(fc, rf)
	case "read_parquet":
		return l.readParquet(fc, rf)
	case "read_csv", "read_csv_auto":
		return l.readCSV(fc, rf, name)
	default:
		return nil, nil, fmt.Errorf("%w: table function %s%s", ErrUnsupported, name, l.src.at(fc.Location))
	}
}

// functionColumns names a table function's output: alias column names
// first, else the alias itself (Postgres names a one-column function's
// column after the alias), else the function name; the ordinal column
// defaults to "ordinality".
func (l *lowerer) functionColumns(rf *pg_query.RangeFunction, fn string, n int) (qual string, names []string, err error) {
	qual, first := fn, fn
	var given []string
	if a := rf.Alias; a != nil {
		qual, first = a.Aliasname, a.Aliasname
		for _, c := range a.Colnames {
			given = append(given, c.GetString_().GetSval())
		}
	}
	if len(given) > n {
		return "", nil, fmt.Errorf("%w: %q has %d columns available but %d columns specified", ErrInvalid, qual, n, len(given))
	}
	names = []string{first, "ordinality"}[:n]
	copy(names, given)
	return qual, names, nil
}

func (l *lowerer) unnest(fc *pg_query.FuncCall, rf *pg_query.RangeFunction) (plan.Rel, *scope, error) {
	if len(fc.Args) != 1 {
		return nil, nil, fmt.Errorf("%w: UNNEST with %d arguments%s", ErrUnsupported, len(fc.Args), l.src.at(fc.Location))
	}
	detail := map[string]any{"relation": relUnnest, "ordinality": rf.Ordinality}
	sqlElem, err := l.unnestArg(fc.Args[0], kindUnknown, detail)
	if err != nil {
		return nil, nil, err
	}
	elem := listKind(sqlElem)
	detail["element_type"] = elem.SubstraitName()
	ncols := 1
	if rf.Ordinality {
		ncols = 2
	}
	qual, names, err := l.functionColumns(rf, "unnest", ncols)
	if err != nil {
		return nil, nil, err
	}
	ts := []types.Type{elem.Type(true), kindI64.Type(false)}[:ncols]
	rel, err := l.extensionTable(detail, names, ts)
	if err != nil {
		return nil, nil, err
	}
	if sqlElem != elem {
		// The list carries bigint (substrait.md §4); an integer[] or
		// smallint[] array's elements are PostgreSQL's integer or
		// smallint, so a projection narrows them (a value out of range
		// is an overflow error, as PostgreSQL's array cast raises).
		if rel, err = l.narrowUnnest(rel, ts, sqlElem, fc.Location); err != nil {
			return nil, nil, err
		}
		ts = append([]types.Type{sqlElem.Type(true)}, ts[1:]...) // a copy: the read's base schema holds ts
	}
	cols := make([]column, ncols)
	for i := range cols {
		cols[i] = column{qual: qual, name: names[i], typ: ts[i]}
	}
	return rel, &scope{cols: cols}, nil
}

// narrowUnnest casts an unnest's bigint element column to k (integer or
// smallint), keeping the ordinality column if there is one.
func (l *lowerer) narrowUnnest(rel plan.Rel, ts []types.Type, k kind, loc int32) (plan.Rel, error) {
	in := &scope{cols: make([]column, len(ts))}
	for i, t := range ts {
		in.cols[i] = column{typ: t}
	}
	ref, err := in.ref(0)
	if err != nil {
		return nil, fmt.Errorf("%w: unnest projection: %w", ErrInvalid, err)
	}
	e, err := l.cast(ref, k, true, loc)
	if err != nil {
		return nil, err
	}
	exprs := []expr.Expression{e}
	remap := []int32{int32(len(ts))}
	if len(ts) == 2 {
		remap = append(remap, 1)
	}
	out, err := l.b.ProjectRemap(rel, remap, exprs...)
	if err != nil {
		return nil, fmt.Errorf("%w: unnest projection: %w", ErrInvalid, err)
	}
	return out, nil
}

// unnestArg fills detail with the list UNNEST reads: a parameter ($k,
// optionally cast to T[]) or an ARRAY[...] of constants. want is the element
// kind a cast asked for, as the list carries it (listKind). The kind
// returned is the elements' SQL kind: integer for '{1,2}'::int[] or
// ARRAY[1, 2], though the list holds bigints.
func (l *lowerer) unnestArg(n *pg_query.Node, want kind, detail map[string]any) (kind, error) {
	switch x := n.Node.(type) {
	case *pg_query.Node_TypeCast:
		k, array, err := typeName(x.TypeCast.TypeName)
		if err != nil {
			return kindUnknown, err
		}
		if !array {
			return kindUnknown, fmt.Errorf("%w: UNNEST needs an array, not %s%s", ErrType, k, l.src.at(x.TypeCast.Location))
		}
		if want != kindUnknown && want != k {
			return kindUnknown, fmt.Errorf("%w: nested array casts%s", ErrUnsupported, l.src.at(x.TypeCast.Location))
		}
		inner, err := l.unnestArg(x.TypeCast.Arg, listKind(k), detail)
		if err != nil || !k.Integer() {
			return inner, err
		}
		return k, nil
	case *pg_query.Node_ParamRef:
		k := want
		if k == kindUnknown {
			k = kindI64 // substrait.md §6: a bare UNNEST($k) reads list<i64>
		}
		if k != kindI64 && k != kindString {
			// The planner unnests bigint and text parameter lists.
			return kindUnknown, fmt.Errorf("%w: UNNEST of a %s[] parameter (bigint[] and text[] are)%s", ErrUnsupported, k, l.src.at(x.ParamRef.Location))
		}
		p := int(x.ParamRef.Number)
		if p >= 1 && p <= len(l.params) && l.params[p-1].used && !l.params[p-1].list {
			return kindUnknown, fmt.Errorf("%w: scalar parameter %s used as a list%s", ErrParam, l.paramLabel(p), l.src.at(x.ParamRef.Location))
		}
		if err := l.useParam(p, true, k, x.ParamRef.Location); err != nil {
			return kindUnknown, err
		}
		detail["param"] = p
		return k, nil
	case *pg_query.Node_AArrayExpr:
		return l.arrayValues(x.AArrayExpr, want, detail)
	case *pg_query.Node_AConst:
		if sv := x.AConst.GetSval(); sv != nil && want != kindUnknown {
			return l.arrayText(sv.Sval, x.AConst.Location, want, detail)
		}
	}
	return kindUnknown, fmt.Errorf("%w: UNNEST argument %s (use a parameter or ARRAY[...])", ErrUnsupported, nodeName(n))
}

// arrayText lowers '{...}'::T[]: each element reads as a string literal
// of the list's kind want, as array_in reads it with T's input function.
func (l *lowerer) arrayText(text string, loc int32, want kind, detail map[string]any) (kind, error) {
	elems, err := parseArrayText(text)
	if err != nil {
		return kindUnknown, fmt.Errorf("%w%s", err, l.src.at(loc))
	}
	vs := make([]value, len(elems))
	for i, p := range elems {
		vs[i] = value{how: untypedNull, loc: loc}
		if p != nil {
			vs[i] = value{how: untypedString, str: *p, loc: loc}
		}
	}
	return l.constantList(vs, want, detail)
}

// arrayValues lowers ARRAY[c1, c2, ...] of constants into detail "values".
// The element kind is the cast's, else the typed elements' (bigint and
// double precision meet at double precision), else text for string
// literals, else bigint. The values are the list's kind (listKind); the
// kind returned is the SQL one (integer for ARRAY[1, 2]).
func (l *lowerer) arrayValues(a *pg_query.A_ArrayExpr, want kind, detail map[string]any) (kind, error) {
	vs := make([]value, len(a.Elements))
	for i, n := range a.Elements {
		v, err := l.expr(n, &scope{noAggs: "in ARRAY"})
		if err != nil {
			return kindUnknown, err
		}
		vs[i] = v
	}
	return l.constantList(vs, want, detail)
}

// constantList is arrayValues' choice of kind and conversion of the
// elements into detail "values".
func (l *lowerer) constantList(vs []value, want kind, detail map[string]any) (kind, error) {
	k, sqlK := want, want
	if k == kindUnknown {
		_, uk, err := l.unifyKinds(vs)
		if err != nil {
			return kindUnknown, err
		}
		k = listKind(uk)
		if uk.Integer() {
			sqlK = uk // ARRAY[1, 2] is integer[] (PostgreSQL's int4 constants)
		}
	}
	out := make([]any, len(vs))
	for i, v := range vs {
		var e expr.Expression
		var err error
		if want != kindUnknown {
			e, err = l.explicit(v, k)
		} else {
			e, err = l.coerce(v, k)
		}
		if err != nil {
			return kindUnknown, err
		}
		lit, ok := literalOf(e)
		if !ok {
			return kindUnknown, fmt.Errorf("%w: non-constant ARRAY element%s", ErrUnsupported, l.src.at(v.loc))
		}
		if n, isInt := lit.(int64); isInt && (n > maxExactInt || n < -maxExactInt) {
			// A structpb number is a float64: carry the digits instead
			// (the planner reads a string element of an i64 list exactly).
			lit = strconv.FormatInt(n, 10)
		}
		out[i] = lit
	}
	detail["values"] = out
	if sqlK == kindUnknown {
		sqlK = k
	}
	return sqlK, nil
}

// listKind is the element kind a list carries for elements of kind k:
// lists hold bigint, double precision, text or boolean (substrait.md §4).
func listKind(k kind) kind {
	switch {
	case k.Integer():
		return kindI64
	case k.Float(), k.ID == idNumeric:
		// No numeric list: a decimal constant (ARRAY[1, 2.5]) travels
		// as its nearest double precision.
		return kindF64
	case k.Stringy():
		return kindString
	}
	return k
}

// unifyKinds is unify's kind choice without building expressions.
func (l *lowerer) unifyKinds(vs []value) ([]value, kind, error) {
	k := kindUnknown
	for _, v := range vs {
		vk := v.kind()
		switch {
		case v.how != typed:
		case k == kindUnknown || k == vk:
			k = vk
		case k.Numeric() && vk.Numeric():
			k = promote(k, vk)
		default:
			return nil, kindUnknown, fmt.Errorf("%w: ARRAY mixes %s and %s%s", ErrType, k, vk, l.src.at(v.loc))
		}
	}
	if k == kindUnknown {
		k = kindI64
		for _, v := range vs {
			if v.how == untypedString {
				k = kindString
			}
		}
	}
	return vs, k, nil
}

func (l *lowerer) generateSeries(fc *pg_query.FuncCall, rf *pg_query.RangeFunction) (plan.Rel, *scope, error) {
	if len(fc.Args) < 2 || len(fc.Args) > 3 {
		return nil, nil, fmt.Errorf("%w: generate_series takes 2 or 3 arguments%s", ErrInvalid, l.src.at(fc.Location))
	}
	keys := []string{"start", "stop", "step"}
	detail := map[string]any{"relation": relGenerateSeries, "step": int64(1)}
	// PostgreSQL resolves generate_series(integer, integer [, integer])
	// when no argument is bigint: its column is integer, and arithmetic on
	// it overflows as integer does (g * 1000 * 3 * 1000 * 1000 raises;
	// seed 20261222 case 138033).
	narrow := true
	for i, n := range fc.Args {
		v, err := l.expr(n, &scope{noAggs: "in generate_series"})
		if err != nil {
			return nil, nil, err
		}
		if k := l.defaultKind(v); k != kindI32 && k != kindI16 {
			narrow = false
		}
		e, err := l.coerce(v, kindI64)
		if err != nil {
			return nil, nil, err
		}
		lit, ok := literalOf(e)
		num, isInt := lit.(int64)
		if !ok || !isInt {
			return nil, nil, fmt.Errorf("%w: generate_series needs integer constants%s", ErrUnsupported, l.src.at(v.loc))
		}
		if num > maxExactInt || num < -maxExactInt {
			return nil, nil, fmt.Errorf("%w: generate_series bound %d beyond 2^53%s", ErrUnsupported, num, l.src.at(v.loc))
		}
		detail[keys[i]] = num
	}
	if detail["step"] == int64(0) {
		return nil, nil, fmt.Errorf("%w: generate_series step size cannot equal zero%s", ErrInvalid, l.src.at(fc.Location))
	}
	qual, names, err := l.functionColumns(rf, "generate_series", 1)
	if err != nil {
		return nil, nil, err
	}
	t := kindI64.Type(false)
	if narrow {
		t = kindI32.Type(false)
	}
	rel, err := l.extensionTable(detail, names, []types.Type{t})
	return rel, &scope{cols: []column{{qual: qual, name: names[0], typ: t}}}, err
}

func (l *lowerer) extensionTable(detail map[string]any, names []string, ts []types.Type) (plan.Rel, error) {
	st, err := structpb.NewStruct(detail)
	if err != nil {
		return nil, fmt.Errorf("%w: extension detail: %w", ErrInvalid, err)
	}
	anyDetail, err := anypb.New(st)
	if err != nil {
		return nil, fmt.Errorf("%w: extension detail: %w", ErrInvalid, err)
	}
	ns := types.NamedStruct{Names: names, Struct: types.StructType{Nullability: types.NullabilityRequired, Types: ts}}
	return l.b.ExtensionTable(anyDetail, ns), nil
}

// join lowers [INNER | LEFT | RIGHT | FULL] JOIN ... ON and CROSS JOIN
// (substrait.md §7); the output is left ++ right, NULL-extended on the side whose
// unmatched rows the join keeps. USING and NATURAL joins are using.go's.
func (l *lowerer) join(j *pg_query.JoinExpr) (plan.Rel, *scope, error) {
	var jt plan.JoinType
	switch {
	case j.Alias != nil:
		return nil, nil, fmt.Errorf("%w: alias on a join", ErrUnsupported)
	case j.Jointype == pg_query.JoinType_JOIN_INNER:
		jt = plan.JoinTypeInner
	case j.Jointype == pg_query.JoinType_JOIN_LEFT:
		jt = plan.JoinTypeLeft
	case j.Jointype == pg_query.JoinType_JOIN_RIGHT:
		jt = plan.JoinTypeRight
	case j.Jointype == pg_query.JoinType_JOIN_FULL:
		jt = plan.JoinTypeOuter
	default:
		return nil, nil, fmt.Errorf("%w: %s", ErrUnsupported, strings.TrimPrefix(j.Jointype.String(), "JOIN_")+" JOIN")
	}
	left, ls, err := l.fromItem(j.Larg)
	if err != nil {
		return nil, nil, err
	}
	// JOIN LATERAL may name the left side where the join keeps every
	// right row with its left row (INNER, LEFT); under RIGHT and FULL
	// PostgreSQL refuses such a name, and here it is not found.
	lateral := isLateral(j.Rarg) && (jt == plan.JoinTypeInner || jt == plan.JoinTypeLeft)
	var right plan.Rel
	var rs *scope
	removed := l.removableJoin(j) // joinremoval.go
	if removed {
		l.unpulled++
	}
	if pl, ps, fr, fs, ok, ferr := l.lateralFunction(left, ls, j.Rarg); (ferr != nil || ok) && (jt == plan.JoinTypeInner || jt == plan.JoinTypeLeft) {
		left, ls, right, rs, lateral, err = pl, ps, fr, fs, true, ferr // lateralfn.go
	} else if lateral {
		right, rs, err = l.lateralItem(j.Rarg, ls) // lateral.go
	} else {
		right, rs, err = l.fromItem(j.Rarg)
	}
	if removed {
		l.unpulled--
	}
	if err != nil {
		return nil, nil, err
	}
	if err := l.distinctQuals(ls, rs); err != nil {
		return nil, nil, err
	}
	if j.IsNatural || len(j.UsingClause) > 0 {
		if lateral {
			return nil, nil, fmt.Errorf("%w: JOIN LATERAL with USING or NATURAL", ErrUnsupported)
		}
		return l.usingJoin(j, jt, left, right, ls, rs)
	}
	cols := append(append([]column{}, ls.cols...), rs.cols...)
	if j.Quals == nil && lateral { // CROSS JOIN LATERAL
		rel, err := l.lateralJoin(left, right, nil, plan.JoinTypeInner)
		return rel, &scope{cols: cols}, err
	}
	if j.Quals == nil { // CROSS JOIN
		rel, err := l.b.Cross(left, right)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: cross join: %w", ErrInvalid, err)
		}
		return rel, &scope{cols: cols}, nil
	}
	nullable := func(from, to int) {
		for i := from; i < to; i++ {
			cols[i].typ = cols[i].typ.WithNullability(types.NullabilityNullable)
			cols[i].konst = nil // a PlaceHolderVar in PostgreSQL (pullconst.go)
		}
	}
	if jt == plan.JoinTypeLeft || jt == plan.JoinTypeOuter {
		nullable(len(ls.cols), len(cols)) // the right side is NULL where nothing matched
	}
	if jt == plan.JoinTypeRight || jt == plan.JoinTypeOuter {
		nullable(0, len(ls.cols))
	}
	on := &scope{cols: append(append([]column{}, ls.cols...), rs.cols...), nLeft: len(ls.cols), noAggs: "in JOIN conditions", outer: l.outer}
	quals, err := l.canonicalQual(j.Quals, on, on.noAggs) // quals.go
	if err != nil {
		return nil, nil, err
	}
	// Its scalar subqueries are expressions the optimizer unnests (an
	// inner join's as a filter's, a LEFT join's over its right side).
	l.markScalars(quals)
	v, err := l.expr(quals, on)
	if err != nil {
		return nil, nil, err
	}
	cond, err := l.coerce(v, kindBool)
	if err != nil {
		return nil, nil, err
	}
	if removed {
		if err := raisingConstant(cond); err != nil {
			return nil, nil, err
		}
		return left, ls, nil
	}
	if lateral {
		rel, err := l.lateralJoin(left, right, cond, jt)
		return rel, &scope{cols: cols}, err
	}
	rel, err := l.b.Join(left, right, cond, jt)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: join: %w", ErrInvalid, err)
	}
	return rel, &scope{cols: cols}, nil
}

// unknownTable is the error for a table the catalog does not have, with
// the closest name it has as a hint when the catalog can list them.
func (l *lowerer) unknownTable(name string, loc int32, cause error) error {
	var hint string
	if tl, ok := l.cat.(TableLister); ok {
		hint = suggest.Hint(name, tl.TableNames())
	}
	return &unknownTableError{
		msg:   fmt.Sprintf("%s: table %q does not exist%s%s", ErrUnknownTable, name, l.src.at(loc), hint),
		cause: cause,
	}
}

// unknownTableError reads as one message, where wrapping the catalog's
// error with %w would stack its text ("engine: unknown table: ...") after
// ours; it still matches ErrUnknownTable and whatever the catalog's error
// matches under errors.Is.
type unknownTableError struct {
	msg   string
	cause error
}

func (e *unknownTableError) Error() string { return e.msg }

func (e *unknownTableError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrUnknownTable}
	}
	return []error{ErrUnknownTable, e.cause}
}
