package plan

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/exec/window"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// Window functions are planned where Substrait puts them: as expressions
// of a ProjectRel (a ConsistentPartitionWindowRel is rewritten into one
// before decoding, windowrel.go). Each window function of a projection
// becomes one column of a WindowExec; the functions with the same
// partitioning and ordering share one WindowExec, and the WindowExecs are
// chained over one another in decreasing length of their ordering, so a
// window whose partition and order keys are a prefix of one already
// sorted for reuses that sort (WindowOrdering; PostgreSQL sorts once per
// distinct window clause the same way, select_active_windows).

// windowSpec is one WindowExec: its keys and functions.
type windowSpec struct {
	key       string // the partitions' and sorts' text: equal keys share
	partition []physexpr.Expr
	order     []physexpr.Expr
	orderKind []exec.SortKey // directions of order
	funcs     []windowCall
}

// windowCall is one window function of the projection (its field j).
type windowCall struct {
	j    int
	fn   window.Func
	args []physexpr.Expr
	call *expr.WindowFunction // for its frame
}

// windowRefs is the input fields the window functions of exprs read
// beyond their arguments (which refs sees): their partitions and sorts.
func windowRefs(exprs []expr.Expression) []expr.Expression {
	var out []expr.Expression
	for _, e := range exprs {
		if wf, ok := e.(*expr.WindowFunction); ok {
			out = append(out, wf.Partitions...)
			for _, s := range wf.Sorts {
				out = append(out, s.Expr)
			}
		}
	}
	return out
}

// hasWindow: some of exprs is a window function.
func hasWindow(exprs []expr.Expression) bool {
	for _, e := range exprs {
		if _, ok := e.(*expr.WindowFunction); ok {
			return true
		}
	}
	return false
}

// windows plans the window functions among exprs (the fields w+j of a
// projection over in, those need asks for) and returns the node with
// their columns appended, and each one's column by j.
func (p *planner) windows(in *rel, w int, exprs []expr.Expression, need []bool) (*rel, map[int]int, error) {
	var specs []*windowSpec
	byKey := map[string]*windowSpec{}
	// col is e's column in the node: a plain column as it is, any other
	// expression appended (once the node is extended, below).
	type pending struct {
		at *physexpr.Expr
		e  physexpr.Expr
	}
	// keys are the computed partition and sort expressions, which the
	// sort needs; args the computed function arguments (lag's constant
	// offset and default, sum(a * b)'s product), appended only after the
	// first sort, so it does not carry them: a constant as a column of 10M
	// rows is 80 MB sorted and gathered for nothing.
	var keys, args []pending
	lowerTo := func(list *[]pending) func(e expr.Expression, at *physexpr.Expr) error {
		return func(e expr.Expression, at *physexpr.Expr) error {
			ce, err := p.expr(e, in)
			if err != nil {
				return err
			}
			*at = ce
			if _, ok := ce.(physexpr.Col); !ok {
				*list = append(*list, pending{at: at, e: ce})
			}
			return nil
		}
	}
	lower, lowerArg := lowerTo(&keys), lowerTo(&args)
	for j, e := range exprs {
		wf, ok := e.(*expr.WindowFunction)
		if !ok || !needs(need, w+j) {
			continue
		}
		name := funcName(wf)
		fn, ok := window.FuncByName(name)
		if !ok {
			return nil, nil, fmt.Errorf("%w: window function %s", errUnsupported("function"), name)
		}
		if name == "std_dev" || name == "variance" {
			// Substrait's std_dev and variance: the distribution option
			// picks the population forms, as for GROUP BY (statsFunc).
			sample, err := substraitfn.StatsSample(wf)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
			}
			if !sample {
				fn = map[window.Func]window.Func{window.StdDevSamp: window.StdDevPop, window.VarSamp: window.VarPop}[fn]
			}
		}
		if wf.Invocation() == types.AggInvocationDistinct {
			return nil, nil, fmt.Errorf("%w: DISTINCT in window function %s", errUnsupported("function"), name)
		}
		args, err := exprArgs(name, wf.NArgs(), wf.Arg)
		if err != nil {
			return nil, nil, err
		}
		if fn == window.Count && len(args) == 0 {
			fn = window.CountStar
		}
		var parts []string
		for _, x := range wf.Partitions {
			parts = append(parts, x.String())
		}
		parts = append(parts, "|")
		for _, s := range wf.Sorts {
			parts = append(parts, s.Expr.String(), fmt.Sprint(s.Kind))
		}
		key := strings.Join(parts, ",")
		spec := byKey[key]
		if spec == nil {
			spec = &windowSpec{key: key, partition: make([]physexpr.Expr, len(wf.Partitions)), order: make([]physexpr.Expr, len(wf.Sorts))}
			for i, x := range wf.Partitions {
				if err := lower(x, &spec.partition[i]); err != nil {
					return nil, nil, err
				}
			}
			for i, s := range wf.Sorts {
				desc, nullsFirst, err := sortKey(s.Kind)
				if err != nil {
					return nil, nil, err
				}
				spec.orderKind = append(spec.orderKind, exec.SortKey{Descending: desc, NullsFirst: nullsFirst})
				if err := lower(s.Expr, &spec.order[i]); err != nil {
					return nil, nil, err
				}
			}
			byKey[key] = spec
			specs = append(specs, spec)
		}
		call := windowCall{j: j, fn: fn, args: make([]physexpr.Expr, len(args)), call: wf}
		for i, a := range args {
			if err := lowerArg(a, &call.args[i]); err != nil {
				return nil, nil, err
			}
		}
		spec.funcs = append(spec.funcs, call)
	}
	// extend appends list's expressions to node as columns named
	// prefix0, prefix1, ... and points each use at its column.
	extend := func(node exec.Node, list []pending, prefix string) (exec.Node, error) {
		if len(list) == 0 {
			return node, nil
		}
		extras, names := make([]physexpr.Expr, len(list)), make([]string, len(list))
		for i, l := range list {
			extras[i], names[i] = l.e, fmt.Sprintf("%s%d", prefix, i)
		}
		node, idx, err := withExtra(p.extended, node, extras, names)
		if err != nil {
			return nil, err
		}
		for i, l := range list {
			*l.at = physexpr.Col{Index: idx[i], Name: names[i]}
		}
		return node, nil
	}
	node, err := extend(in.node, keys, "window_key")
	if err != nil {
		return nil, nil, err
	}
	// The longest ordering first: a shorter one that is its prefix then
	// needs no sort of its own.
	sort.SliceStable(specs, func(a, b int) bool {
		return len(specs[a].partition)+len(specs[a].order) > len(specs[b].partition)+len(specs[b].order)
	})
	cols := map[int]int{}
	for _, s := range specs {
		part := make([]int, len(s.partition))
		for i, x := range s.partition {
			part[i] = x.(physexpr.Col).Index
		}
		order := make([]exec.SortKey, len(s.order))
		for i, x := range s.order {
			order[i] = s.orderKind[i]
			order[i].Column = x.(physexpr.Col).Index
			order[i].Name = node.Schema().Field(order[i].Column).Name
		}
		want := window.Ordering(node.Schema(), part, order)
		if len(want) > 0 && !exec.OrderingSatisfies(node.Properties().Ordering, want) {
			sn, err := exec.NewSortExec(node, want)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: window: %w", ErrInvalidPlan, err)
			}
			node = sn
		}
		if node, err = extend(node, args, "window_arg"); err != nil {
			return nil, nil, err
		}
		args = nil // appended once, under the first window
		var wexprs []window.Expr
		first := node.Schema().NumFields()
		for k, c := range s.funcs {
			we := window.Expr{Func: c.fn, Name: fmt.Sprintf("expr%d", c.j)}
			for _, a := range c.args {
				we.Args = append(we.Args, a.(physexpr.Col).Index)
			}
			f, err := windowFrame(c.call, node.Schema(), order)
			if err != nil {
				return nil, nil, err
			}
			we.Frame = f
			wexprs = append(wexprs, we)
			cols[c.j] = first + k
		}
		wn, err := window.NewExec(node, part, order, wexprs)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: window: %w", ErrInvalidPlan, err)
		}
		node = wn
	}
	return &rel{node: node, cols: in.cols, names: in.names}, cols, nil
}

// windowFrame is a call's frame. Substrait's bounds: unset lower is the
// partition's start, unset upper its end; an unspecified bounds type is
// RANGE, SQL's default. A RANGE offset (Substrait's is an integer count)
// is in the ORDER BY key's units: converted to the key's type here.
func windowFrame(wf *expr.WindowFunction, sc *arrow.Schema, order []exec.SortKey) (window.Frame, error) {
	f := window.Frame{Unit: window.FrameRange}
	if wf.BoundsType == substraitpb.Expression_WindowFunction_BOUNDS_TYPE_ROWS {
		f.Unit = window.FrameRows
		if substraitfn.IsGroupsFrame(wf.GetOptions()) {
			f.Unit = window.FrameGroups // stablerow's option: Substrait has no GROUPS bounds
		}
	}
	// stablerow's option for SQL's EXCLUDE (Substrait has none); its
	// preferences are in window.FrameExclude's order.
	ex, err := substraitfn.FrameExcludeOf(wf.GetOptions())
	if err != nil {
		return f, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	f.Exclude = window.FrameExclude(ex)
	conv := func(b expr.Bound, lower bool) (window.FrameBound, error) {
		var kind window.BoundKind
		var off int64
		switch b := b.(type) {
		case nil, expr.Unbounded:
			kind = window.UnboundedFollowing
			if lower {
				kind = window.UnboundedPreceding
			}
			return window.FrameBound{Kind: kind}, nil
		case expr.CurrentRow:
			return window.FrameBound{Kind: window.CurrentRow}, nil
		case expr.PrecedingBound:
			kind, off = window.OffsetPreceding, int64(b)
		case expr.FollowingBound:
			kind, off = window.OffsetFollowing, int64(b)
		default:
			return window.FrameBound{}, fmt.Errorf("%w: window bound %T", ErrInvalidPlan, b)
		}
		if f.Unit != window.FrameRange || len(order) != 1 {
			return window.FrameBound{Kind: kind, Offset: off}, nil
		}
		switch t := sc.Field(order[0].Column).Type.(type) {
		case *arrow.Float64Type, *arrow.Float32Type:
			return window.FrameBound{Kind: kind, Offset: float64(off)}, nil
		case *arrow.Decimal128Type:
			v := new(big.Int).Mul(big.NewInt(off), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil))
			if v.BitLen() > 126 {
				return window.FrameBound{}, fmt.Errorf("%w: RANGE offset %d out of range for %s", ErrInvalidPlan, off, t)
			}
			return window.FrameBound{Kind: kind, Offset: decimal128.FromBigInt(v)}, nil
		}
		return window.FrameBound{Kind: kind, Offset: off}, nil
	}
	if f.Start, err = conv(wf.LowerBound, true); err != nil {
		return f, err
	}
	if f.End, err = conv(wf.UpperBound, false); err != nil {
		return f, err
	}
	return f, nil
}
