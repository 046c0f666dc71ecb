package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Window functions (issue 29): f(...) OVER (PARTITION BY ... ORDER BY ...
// frame) and the named windows of a WINDOW clause lower to one ProjectRel
// whose expressions are Substrait window functions (substrait.md §1,
// "Window functions"), over the FROM record or, with GROUP BY, over the
// aggregate (window functions run after grouping and HAVING, as in
// PostgreSQL); the SELECT list and ORDER BY then refer to its columns.
// The planner sorts once per distinct partitioning and ordering.

// PostgreSQL's frameOptions bits (nodes/parsenodes.h).
const (
	frameNonDefault         = 0x00001
	frameRange              = 0x00002
	frameRows               = 0x00004
	frameGroups             = 0x00008
	frameStartUnboundedPrec = 0x00020
	frameEndUnboundedFoll   = 0x00100
	frameStartCurrentRow    = 0x00200
	frameEndCurrentRow      = 0x00400
	frameStartOffsetPrec    = 0x00800
	frameEndOffsetPrec      = 0x01000
	frameStartOffsetFoll    = 0x02000
	frameEndOffsetFoll      = 0x04000
	frameExcludeCurrentRow  = 0x08000
	frameExcludeGroup       = 0x10000
	frameExcludeTies        = 0x20000
)

// windowOnly are PostgreSQL's built-in window functions; the aggregates
// of windowAggregates also run over a window.
var (
	windowOnly = map[string]bool{"row_number": true, "rank": true, "dense_rank": true, "percent_rank": true,
		"cume_dist": true, "ntile": true, "lag": true, "lead": true, "first_value": true, "last_value": true, "nth_value": true}
	windowAggregates = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true,
		"stddev": true, "stddev_samp": true, "stddev_pop": true, "variance": true, "var_samp": true, "var_pop": true,
		"bool_and": true, "bool_or": true, "every": true, "bit_and": true, "bit_or": true, "string_agg": true}
)

// windowCalls are the window function calls of nodes, outside subqueries
// (theirs are their own) and outside other window calls (a nested one is
// PostgreSQL's error, raised when the outer call's arguments lower).
func windowCalls(nodes ...*pg_query.Node) []*pg_query.FuncCall {
	var out []*pg_query.FuncCall
	seen := map[*pg_query.FuncCall]bool{}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg_query.SubLink:
			return
		case *pg_query.FuncCall:
			if x.Over != nil {
				if !seen[x] {
					seen[x] = true
					out = append(out, x)
				}
				return
			}
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return true })
	}
	for _, n := range nodes {
		if n != nil {
			walk(n.ProtoReflect())
		}
	}
	return out
}

// windowCall is a window function call in an expression: the column the
// window projection computed for it, or PostgreSQL's error where window
// functions are not allowed.
func (l *lowerer) windowCall(f *pg_query.FuncCall, s *scope) (value, error) {
	if i, ok := s.wins[f]; ok {
		e, err := s.ref(int(i))
		return value{e: e, loc: f.Location, name: funcName(f)}, err
	}
	switch {
	case s.noWins != "":
		return value{}, fmt.Errorf("%w: %s%s", ErrInvalid, s.noWins, l.src.at(f.Location))
	case s.noAggs == "in aggregate arguments":
		return value{}, fmt.Errorf("%w: aggregate function calls cannot contain window function calls%s", ErrInvalid, l.src.at(f.Location))
	case s.noAggs != "":
		return value{}, fmt.Errorf("%w: window functions are not allowed %s%s", ErrInvalid, s.noAggs, l.src.at(f.Location))
	}
	return value{}, fmt.Errorf("%w: window functions are not allowed here%s", ErrInvalid, l.src.at(f.Location))
}

// windows lowers calls over the scope in: one ProjectRel of rel's fields
// then one window function per call, and the scope over it, in which each
// call is its column.
func (l *lowerer) windows(rel plan.Rel, in *scope, s *pg_query.SelectStmt, calls []*pg_query.FuncCall) (plan.Rel, *scope, error) {
	named, err := l.namedWindows(s.WindowClause)
	if err != nil {
		return nil, nil, err
	}
	out := *in
	out.cols = append([]column(nil), in.cols...)
	out.wins = map[*pg_query.FuncCall]int32{}
	exprs := make([]expr.Expression, 0, len(calls))
	for _, fc := range calls {
		def, err := l.resolveWindow(fc.Over, named, fc.Location)
		if err != nil {
			return nil, nil, err
		}
		wf, err := l.windowFunc(fc, def, in)
		if err != nil {
			return nil, nil, err
		}
		out.wins[fc] = int32(len(out.cols))
		out.cols = append(out.cols, column{name: funcName(fc), typ: wf.GetType()})
		exprs = append(exprs, wf)
	}
	p, err := l.b.Project(rel, exprs...)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: window: %w", ErrInvalid, err)
	}
	return p, &out, nil
}

// namedWindows resolves the WINDOW clause in order: each entry may build
// on an earlier one (transformWindowDefinitions).
func (l *lowerer) namedWindows(clause []*pg_query.Node) (map[string]*pg_query.WindowDef, error) {
	named := map[string]*pg_query.WindowDef{}
	for _, n := range clause {
		wd := n.GetWindowDef()
		if wd == nil {
			return nil, fmt.Errorf("%w: WINDOW clause item", ErrUnsupported)
		}
		if _, dup := named[wd.Name]; dup {
			return nil, fmt.Errorf("%w: window \"%s\" is already defined%s", ErrInvalid, wd.Name, l.src.at(wd.Location))
		}
		spec := proto.Clone(wd).(*pg_query.WindowDef)
		spec.Name = ""
		def, err := l.resolveWindow(spec, named, wd.Location)
		if err != nil {
			return nil, err
		}
		named[wd.Name] = def
	}
	return named, nil
}

// resolveWindow is the window an OVER clause means, PostgreSQL's rules:
// OVER w is the named window as it is; OVER (w ...) copies w's PARTITION
// BY and ORDER BY, may add an ORDER BY w lacks and a frame, but may not
// override w's PARTITION BY or ORDER BY, nor copy a w with a frame.
func (l *lowerer) resolveWindow(over *pg_query.WindowDef, named map[string]*pg_query.WindowDef, loc int32) (*pg_query.WindowDef, error) {
	if over.Name != "" {
		def, ok := named[over.Name]
		if !ok {
			return nil, fmt.Errorf("%w: window \"%s\" does not exist%s", ErrInvalid, over.Name, l.src.at(loc))
		}
		return def, nil
	}
	if over.Refname == "" {
		return over, nil
	}
	base, ok := named[over.Refname]
	if !ok {
		return nil, fmt.Errorf("%w: window \"%s\" does not exist%s", ErrInvalid, over.Refname, l.src.at(over.Location))
	}
	switch {
	case len(over.PartitionClause) > 0:
		return nil, fmt.Errorf("%w: cannot override PARTITION BY clause of window \"%s\"%s", ErrInvalid, over.Refname, l.src.at(over.Location))
	case len(over.OrderClause) > 0 && len(base.OrderClause) > 0:
		return nil, fmt.Errorf("%w: cannot override ORDER BY clause of window \"%s\"%s", ErrInvalid, over.Refname, l.src.at(over.Location))
	case base.FrameOptions&frameNonDefault != 0:
		return nil, fmt.Errorf("%w: cannot copy window \"%s\" because it has a frame clause%s", ErrInvalid, over.Refname, l.src.at(over.Location))
	}
	def := proto.Clone(over).(*pg_query.WindowDef)
	def.Refname = ""
	def.PartitionClause = base.PartitionClause
	if len(def.OrderClause) == 0 {
		def.OrderClause = base.OrderClause
	}
	return def, nil
}

// windowFunc lowers one call over its resolved window.
func (l *lowerer) windowFunc(fc *pg_query.FuncCall, def *pg_query.WindowDef, sc *scope) (*expr.WindowFunction, error) {
	name := funcName(fc)
	at := l.src.at(fc.Location)
	switch {
	case !windowOnly[name] && !windowAggregates[name]:
		if aggregateNames[name] {
			return nil, fmt.Errorf("%w: %s as a window function%s", ErrUnsupported, name, at)
		}
		return nil, fmt.Errorf("%w: OVER specified, but %s is not a window function nor an aggregate function%s", ErrInvalid, name, at)
	case fc.AggDistinct:
		return nil, fmt.Errorf("%w: DISTINCT is not implemented for window functions%s", ErrUnsupported, at)
	case len(fc.AggOrder) > 0:
		return nil, fmt.Errorf("%w: aggregate ORDER BY is not implemented for window functions%s", ErrUnsupported, at)
	case fc.AggFilter != nil && !windowAggregates[name]:
		return nil, fmt.Errorf("%w: FILTER specified, but %s is not an aggregate function%s", ErrInvalid, name, at)
	case fc.AggWithinGroup || fc.FuncVariadic:
		return nil, fmt.Errorf("%w: WITHIN GROUP or VARIADIC in a window function%s", ErrUnsupported, at)
	case fc.AggStar && name != "count":
		return nil, fmt.Errorf("%w: %s(*)%s", ErrInvalid, name, at)
	}
	as := *sc
	as.noWins = "window function calls cannot be nested"
	vs, err := l.exprs(&as, fc.Args...)
	if err != nil {
		return nil, err
	}
	var args []expr.Expression
	for i, v := range vs {
		k := l.defaultKind(v)
		switch {
		case (name == "ntile" && i == 0) || (name == "lag" || name == "lead" || name == "nth_value") && i == 1:
			k = kindI32 // PostgreSQL's ntile(integer), lag(x, integer), nth_value(x, integer)
		case (name == "lag" || name == "lead") && i == 0 && len(vs) == 3:
			// lag(anycompatible, integer, anycompatible): the value
			// and the default meet at their common type
			// (select_common_type), so lag(int, 1, bigint) is bigint.
			es, _, err := l.commonResults([]value{v, vs[2]}, 0)
			if err != nil {
				return nil, err
			}
			args = append(args, es[0])
			vs[2] = value{e: es[1], loc: vs[2].loc}
			continue
		case (name == "lag" || name == "lead") && i == 2:
			args = append(args, v.e) // coerced with the value above
			continue
		case name == "count" && v.how != typed, name == "string_agg":
			k = kindString // string_agg(text, text): literals are text
		default:
			if uk, ok := unknownArgKind(name, v); ok {
				k = uk
			}
		}
		e, err := l.coerce(v, k)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	if name == "count" && len(args) == 0 && !fc.AggStar {
		return nil, fmt.Errorf("%w: count() needs * or an argument%s", ErrInvalid, at)
	}
	if fc.AggFilter != nil {
		var err error
		if args, err = l.windowFilter(fc, args, &as); err != nil {
			return nil, err
		}
	}
	var extra []*types.FunctionOption
	if def.FrameOptions&frameNonDefault != 0 && def.FrameOptions&frameGroups != 0 {
		// Substrait has no GROUPS bounds: stablerow's option says it.
		extra = append(extra, substraitfn.GroupsFrame())
	}
	// Nor EXCLUDE: stablerow's option says it (the executor applies it).
	switch x := def.FrameOptions; {
	case x&frameExcludeCurrentRow != 0:
		extra = append(extra, substraitfn.ExcludeFrame("CURRENT_ROW"))
	case x&frameExcludeGroup != 0:
		extra = append(extra, substraitfn.ExcludeFrame("GROUP"))
	case x&frameExcludeTies != 0:
		extra = append(extra, substraitfn.ExcludeFrame("TIES"))
	}
	wf, err := substraitfn.WindowWith(l.b.GetExprBuilder().Reg, name, extra, args...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w%s", ErrType, err, at)
	}
	ds := *sc
	ds.noWins = "window functions are not allowed in window definitions"
	for _, p := range def.PartitionClause {
		v, err := l.expr(p, &ds)
		if err != nil {
			return nil, err
		}
		e, err := l.settle(v)
		if err != nil {
			return nil, err
		}
		wf.Partitions = append(wf.Partitions, e)
	}
	for _, n := range def.OrderClause {
		sb := n.GetSortBy()
		if sb == nil {
			return nil, fmt.Errorf("%w: window ORDER BY item%s", ErrUnsupported, at)
		}
		dir, err := sortDirection(sb)
		if err != nil {
			return nil, err
		}
		v, err := l.expr(sb.Node, &ds)
		if err != nil {
			return nil, err
		}
		e, err := l.settle(v)
		if err != nil {
			return nil, err
		}
		wf.Sorts = append(wf.Sorts, expr.SortField{Expr: e, Kind: dir})
	}
	if err := l.windowFrame(wf, def); err != nil {
		return nil, err
	}
	return wf, nil
}

// windowFrame sets wf's bounds from the window's frame clause.
// PostgreSQL's grammar has already refused the impossible frames (a start
// of UNBOUNDED FOLLOWING, an end before the start's kind); the rest of
// its checks are here: RANGE with an offset needs exactly one ORDER BY
// key (transformFrameOffset), offsets are constants that are not NULL
// and not negative. Substrait's bounds are integer counts: a RANGE
// offset is an integer in the key's units (an integer, float or numeric
// key); GROUPS has none (stablerow's frame-mode option says it:
// substraitfn.GroupsFrame), nor EXCLUDE (substraitfn.ExcludeFrame, set
// with the function).
func (l *lowerer) windowFrame(wf *expr.WindowFunction, def *pg_query.WindowDef) error {
	opts := def.FrameOptions
	at := l.src.at(def.Location)
	wf.BoundsType = substraitpb.Expression_WindowFunction_BOUNDS_TYPE_RANGE
	wf.LowerBound, wf.UpperBound = expr.Unbounded{}, expr.CurrentRow{}
	if opts&frameNonDefault == 0 {
		return nil
	}
	switch {
	case opts&frameGroups != 0:
		// Bounds that count peer groups: the bounds type is ROWS and
		// the function carries substraitfn.GroupsFrame (see above).
		if len(wf.Sorts) == 0 {
			return fmt.Errorf("%w: GROUPS mode requires an ORDER BY clause%s", ErrInvalid, at)
		}
		wf.BoundsType = substraitpb.Expression_WindowFunction_BOUNDS_TYPE_ROWS
	case opts&frameRows != 0:
		wf.BoundsType = substraitpb.Expression_WindowFunction_BOUNDS_TYPE_ROWS
	}
	dateKey := false // RANGE over a date: offsets are intervals of days
	if opts&frameRange != 0 && opts&(frameStartOffsetPrec|frameStartOffsetFoll|frameEndOffsetPrec|frameEndOffsetFoll) != 0 {
		if len(wf.Sorts) != 1 {
			return fmt.Errorf("%w: RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column%s", ErrInvalid, at)
		}
		switch k := kindOf(wf.Sorts[0].Expr.GetType()); {
		case k.Integer(), k.Float(), k.ID == idNumeric:
		case k == kindDate:
			dateKey = true
		default:
			return fmt.Errorf("%w: RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s%s", ErrUnsupported, k, at)
		}
	}
	offset := func(n *pg_query.Node, which string) (int64, error) {
		if dateKey {
			return l.dateOffset(n, which, at)
		}
		v, err := l.expr(n, &scope{noAggs: "in window frame", noWins: "window functions are not allowed in window definitions"})
		if err != nil {
			return 0, err
		}
		if v.how == untypedNull {
			return 0, fmt.Errorf("%w: frame %s offset must not be null%s", ErrInvalid, which, at)
		}
		e, err := l.coerce(v, kindI64)
		if err != nil {
			return 0, fmt.Errorf("%w: a frame offset that is not an integer constant (Substrait's bounds are integers): %w", ErrUnsupported, err)
		}
		lit, ok := literalOf(e)
		n64, isInt := lit.(int64)
		if !ok || !isInt {
			if lit == nil && ok {
				return 0, fmt.Errorf("%w: frame %s offset must not be null%s", ErrInvalid, which, at)
			}
			return 0, fmt.Errorf("%w: a frame offset that is not an integer constant%s", ErrUnsupported, at)
		}
		if n64 < 0 {
			return 0, fmt.Errorf("%w: frame %s offset must not be negative%s", ErrInvalid, which, at)
		}
		return n64, nil
	}
	var err error
	bound := func(unbounded, current, prec, foll int32, n *pg_query.Node, which string) (expr.Bound, error) {
		switch {
		case opts&unbounded != 0:
			return expr.Unbounded{}, nil
		case opts&current != 0:
			return expr.CurrentRow{}, nil
		case opts&prec != 0:
			o, err := offset(n, which)
			return expr.PrecedingBound(o), err
		case opts&foll != 0:
			o, err := offset(n, which)
			return expr.FollowingBound(o), err
		}
		return nil, fmt.Errorf("%w: frame %s%s", ErrUnsupported, which, at)
	}
	if wf.LowerBound, err = bound(frameStartUnboundedPrec, frameStartCurrentRow, frameStartOffsetPrec, frameStartOffsetFoll, def.StartOffset, "starting"); err != nil {
		return err
	}
	// A frame without BETWEEN ends at the current row.
	if wf.UpperBound, err = bound(frameEndUnboundedFoll, frameEndCurrentRow, frameEndOffsetPrec, frameEndOffsetFoll, def.EndOffset, "ending"); err != nil {
		return err
	}
	return nil
}

// dateOffset is a RANGE offset over a date key in days: an interval
// constant ('7 days', interval '1' day) of whole days and weeks, as
// in_range_date_interval moves the date. An interval with months is not
// a fixed number of days (Substrait's offset is one integer): refused by
// name; an offset that is not an interval is PostgreSQL's error.
func (l *lowerer) dateOffset(n *pg_query.Node, which, at string) (int64, error) {
	if c := n.GetAConst(); c != nil && c.GetSval() != nil {
		n = &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: n, Location: c.Location,
			TypeName: &pg_query.TypeName{Names: []*pg_query.Node{{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: "interval"}}}}}}}}
	}
	iv, ok, err := l.intervalLiteral(n)
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return 0, fmt.Errorf("%w: RANGE with offset PRECEDING/FOLLOWING is not supported for column type date and offset type other than interval%s", ErrInvalid, at)
	case iv.months != 0:
		return 0, fmt.Errorf("%w: a RANGE offset of months over a date (not a fixed number of days)%s", ErrUnsupported, at)
	case iv.us != 0:
		return 0, fmt.Errorf("%w: a RANGE offset of hours or smaller units over a date%s", ErrUnsupported, at)
	case iv.days < 0:
		return 0, fmt.Errorf("%w: invalid preceding or following size in window function%s", ErrInvalid, at)
	}
	return iv.days, nil
}

// windowFilter applies an aggregate window function's FILTER (WHERE
// cond) to its argument: CASE WHEN cond THEN x END, and count(*) becomes
// count(CASE WHEN cond THEN true END). PostgreSQL's window aggregate skips
// the transition of a row whose filter is not TRUE (eval_windowaggregates'
// filter check); every window aggregate lowered here skips a row whose
// first argument is NULL as well (string_agg_transfn too; its delimiter
// is kept), so nulling it is the same skip, and
// CASE evaluates x only over the rows cond keeps. Substrait's window
// function has no filter of its own.
func (l *lowerer) windowFilter(fc *pg_query.FuncCall, args []expr.Expression, as *scope) ([]expr.Expression, error) {
	fs := *as
	fs.noWins = "window functions are not allowed in FILTER"
	v, err := l.expr(fc.AggFilter, &fs)
	if err != nil {
		return nil, err
	}
	cond, err := l.coerce(v, kindBool)
	if err != nil {
		return nil, err
	}
	x := expr.Expression(expr.NewPrimitiveLiteral(true, true))
	if len(args) > 0 {
		x = nullable(args[0])
	}
	e, err := expr.NewIfThen(expr.IfThenPair{If: cond, Then: x}, expr.NewNullLiteral(x.GetType()))
	if err != nil {
		return nil, fmt.Errorf("%w: FILTER: %w%s", ErrType, err, l.src.at(fc.Location))
	}
	if len(args) == 0 {
		return []expr.Expression{e}, nil
	}
	return append([]expr.Expression{e}, args[1:]...), nil
}
