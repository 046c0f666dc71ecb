package substraitfn

import (
	"fmt"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/types"
)

// Window builds the window function call name(args) the SQL front end
// emits, with PostgreSQL's result types (exec/window.Exec computes them):
//
//	row_number(), rank(), dense_rank()   functions_arithmetic  i64
//	percent_rank(), cume_dist()          functions_arithmetic  fp64
//	ntile(i32)                           functions_arithmetic  i32?
//	lag/lead(any [, i32 [, any]])        functions_arithmetic  the value's type, nullable
//	first_value/last_value(any)          functions_arithmetic  the value's type, nullable
//	nth_value(any, i32)                  functions_arithmetic  the value's type, nullable
//	count/sum/avg/min/max(...)           as Aggregate's
//	bool_and/bool_or/bit_and/bit_or/string_agg(...)  as Aggregate's; every is bool_and
//	stddev/stddev_samp/stddev_pop/variance/var_samp/var_pop(x)
//	                                     std_dev or variance with the distribution option,
//	                                     as StatsAggregate's
//
// The frame, partitions and sorts are the caller's to set on the result.
func Window(reg expr.ExtensionRegistry, name string, args ...expr.Expression) (*expr.WindowFunction, error) {
	return WindowWith(reg, name, nil, args...)
}

// FrameModeOption is stablerow's window function option for a frame
// Substrait's bounds types cannot say: preference GROUPS is SQL's GROUPS
// frame (its bounds count peer groups; the bounds type is then ROWS, so
// a consumer that ignores the option reads a frame of rows).
// docs/substrait.md states the convention.
const FrameModeOption = "stablerow.frame_mode"

// GroupsFrame is the option of a GROUPS frame.
func GroupsFrame() *types.FunctionOption {
	return &types.FunctionOption{Name: FrameModeOption, Preference: []string{"GROUPS"}}
}

// IsGroupsFrame: opts (a window function's) say its frame is GROUPS.
func IsGroupsFrame(opts []*types.FunctionOption) bool {
	for _, o := range opts {
		if o.Name == FrameModeOption && len(o.Preference) > 0 && o.Preference[0] == "GROUPS" {
			return true
		}
	}
	return false
}

// FrameExcludeOption is stablerow's window function option for SQL's
// frame EXCLUDE clause, which Substrait cannot say either: preference
// CURRENT_ROW, GROUP, TIES or NO_OTHERS (the default, as no option).
// A consumer that ignores it reads the frame without the exclusion.
// docs/substrait.md states the convention.
const FrameExcludeOption = "stablerow.frame_exclude"

// FrameExcludes are the option's preferences.
var FrameExcludes = []string{"NO_OTHERS", "CURRENT_ROW", "GROUP", "TIES"}

// ExcludeFrame is the option of a frame with EXCLUDE mode (one of
// FrameExcludes).
func ExcludeFrame(mode string) *types.FunctionOption {
	return &types.FunctionOption{Name: FrameExcludeOption, Preference: []string{mode}}
}

// FrameExcludeOf is the exclusion opts (a window function's) give: its
// index in FrameExcludes (0, NO_OTHERS, without the option), or an
// error for a preference that is none of them (the caller types it).
func FrameExcludeOf(opts []*types.FunctionOption) (int, error) {
	for _, o := range opts {
		if o.Name != FrameExcludeOption {
			continue
		}
		if len(o.Preference) > 0 {
			for i, m := range FrameExcludes {
				if o.Preference[0] == m {
					return i, nil
				}
			}
		}
		return 0, fmt.Errorf("option %s %v: want one of %v", FrameExcludeOption, o.Preference, FrameExcludes) // the planner's ErrInvalidPlan
	}
	return 0, nil
}

// WindowWith is Window with the further options extra (GroupsFrame,
// ExcludeFrame).
func WindowWith(reg expr.ExtensionRegistry, name string, extra []*types.FunctionOption, args ...expr.Expression) (*expr.WindowFunction, error) {
	ts := argTypes(args)
	bad := fmt.Errorf("%w: %s(%s)", ErrNoSignature, name, typeNames(ts))
	nullable := func(t types.Type) types.Type { return t.WithNullability(types.NullabilityNullable) }
	isI32 := func(i int) bool { _, ok := ts[i].(*types.Int32Type); return ok }
	urn := URNArithmetic
	var out types.Type
	var opts []*types.FunctionOption
	if name == "every" {
		name = "bool_and" // PostgreSQL's every is bool_and (pg_aggregate)
	}
	if st, ok := statsNames[name]; ok {
		name, opts = "variance", distribution(st.sample)
		if st.sqrt {
			name = "std_dev"
		}
	}
	short := make([]string, len(ts))
	for i := range short {
		short[i] = "any"
	}
	switch name {
	case "row_number", "rank", "dense_rank":
		if len(args) != 0 {
			return nil, bad
		}
		out = &types.Int64Type{Nullability: types.NullabilityRequired}
	case "percent_rank", "cume_dist":
		if len(args) != 0 {
			return nil, bad
		}
		out = &types.Float64Type{Nullability: types.NullabilityRequired}
	case "ntile":
		if len(args) != 1 || !isI32(0) {
			return nil, bad
		}
		short[0], out = "i32", nullable(ts[0])
	case "lag", "lead":
		if len(args) < 1 || len(args) > 3 || len(args) >= 2 && !isI32(1) || len(args) == 3 && !ts[2].WithNullability(types.NullabilityNullable).Equals(nullable(ts[0])) {
			return nil, bad
		}
		if len(args) >= 2 {
			short[1] = "i32"
		}
		out = nullable(ts[0])
	case "first_value", "last_value":
		if len(args) != 1 {
			return nil, bad
		}
		out = nullable(ts[0])
	case "nth_value":
		if len(args) != 2 || !isI32(1) {
			return nil, bad
		}
		short[1], out = "i32", nullable(ts[0])
	case "count", "sum", "avg", "min", "max", "bool_and", "bool_or", "bit_and", "bit_or", "string_agg", "std_dev", "variance":
		var err error
		if urn, _, out, err = aggregateSignature(name, ts); err != nil { // as Aggregate's
			return nil, err
		}
		for i, t := range ts {
			if short[i] = aggShortName(t); name == "count" {
				short[i] = "any"
			}
		}
	default:
		return nil, fmt.Errorf("%w: %s is not a window function stablerow emits", ErrNoSignature, name)
	}
	compound := name + ":"
	for i, s := range short {
		if i > 0 {
			compound += "_"
		}
		compound += s
	}
	fa := make([]types.FuncArg, len(args))
	for i, a := range args {
		fa[i] = a
	}
	v := extensions.NewWindowFuncVariant(extensions.ID{URN: urn, Name: placeholder(compound)})
	return expr.NewCustomWindowFunc(reg, v, out, append(opts, extra...), types.AggInvocationAll, types.AggPhaseInitialToResult, fa...)
}
