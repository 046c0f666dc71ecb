package window

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// Func names a window function: PostgreSQL's built-in ones and the
// aggregates it evaluates over a frame.
type Func int

const (
	RowNumber   Func = iota // row_number(): bigint
	Rank                    // rank(): bigint, gaps after peers
	DenseRank               // dense_rank(): bigint, no gaps
	PercentRank             // percent_rank(): (rank - 1) / (rows - 1)
	CumeDist                // cume_dist(): (rows up to the last peer) / rows
	Ntile                   // ntile(k): integer bucket 1..k
	Lag                     // lag(x [, offset [, default]])
	Lead                    // lead(x [, offset [, default]])
	FirstValue              // first_value(x) of the frame
	LastValue               // last_value(x) of the frame
	NthValue                // nth_value(x, n) of the frame
	CountStar               // count(*) over the frame
	Count                   // count(x)
	Sum                     // sum(x)
	Avg                     // avg(x)
	Min                     // min(x)
	Max                     // max(x)
	StdDevSamp              // stddev_samp(x) (stddev): window_stats.go
	StdDevPop               // stddev_pop(x)
	VarSamp                 // var_samp(x) (variance)
	VarPop                  // var_pop(x)
	BoolAnd                 // bool_and(x) (every): window_boolbit.go
	BoolOr                  // bool_or(x)
	BitAnd                  // bit_and(x) of smallint, integer, bigint
	BitOr                   // bit_or(x)
	StringAgg               // string_agg(x, delimiter): window_stringagg.go
)

var windowFuncNames = [...]string{"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile",
	"lag", "lead", "first_value", "last_value", "nth_value", "count", "count", "sum", "avg", "min", "max",
	"stddev_samp", "stddev_pop", "var_samp", "var_pop", "bool_and", "bool_or", "bit_and", "bit_or", "string_agg"}

// funcAliases are other names of the functions: PostgreSQL's (stddev and
// variance are the sample forms, every is bool_and) and Substrait's
// std_dev and variance, whose distribution option picks the population
// form (the planner reads it: plan/window.go).
var funcAliases = map[string]Func{"stddev": StdDevSamp, "std_dev": StdDevSamp, "variance": VarSamp, "every": BoolAnd}

// aggregateOf is the GROUP BY aggregate each aggregate window function
// is (its result type is that one's, exec.AggregateType).
var aggregateOf = map[Func]exec.AggregateFunc{Sum: exec.AggSum, Avg: exec.AggAvg, Min: exec.AggMin, Max: exec.AggMax,
	StdDevSamp: exec.AggStdDevSamp, StdDevPop: exec.AggStdDevPop, VarSamp: exec.AggVarSamp, VarPop: exec.AggVarPop,
	BoolAnd: exec.AggBoolAnd, BoolOr: exec.AggBoolOr, BitAnd: exec.AggBitAnd, BitOr: exec.AggBitOr, StringAgg: exec.AggStringAgg}

func (f Func) String() string {
	if f < 0 || int(f) >= len(windowFuncNames) {
		return fmt.Sprintf("window(%d)", int(f))
	}
	return windowFuncNames[f]
}

// FuncByName is the function of a (lower-case) name, for the
// planner; count is count(x) (count(*) is CountStar, with no argument).
func FuncByName(name string) (Func, bool) {
	for i, n := range windowFuncNames {
		if n == name {
			if Func(i) == CountStar {
				return Count, true
			}
			return Func(i), true
		}
	}
	f, ok := funcAliases[name]
	return f, ok
}

// usesFrame: the functions whose value depends on the frame; the others
// (ranking, lag, lead) see the whole partition, as in PostgreSQL.
func (f Func) usesFrame() bool { return f >= FirstValue }

// FrameUnit is how a frame's offsets count: ROWS, RANGE (by the ORDER BY
// value) or GROUPS (peer groups).
type FrameUnit uint8

const (
	FrameRange FrameUnit = iota
	FrameRows
	FrameGroups
)

// BoundKind is one end of a frame.
type BoundKind uint8

const (
	UnboundedPreceding BoundKind = iota
	OffsetPreceding
	CurrentRow
	OffsetFollowing
	UnboundedFollowing
)

// FrameBound is a frame end. Offset (OffsetPreceding, OffsetFollowing) is
// an int64 for ROWS and GROUPS; for RANGE it is of the ORDER BY key's
// kind: int64 for an integer or date key, float64 for a float key,
// decimal128.Num at the key's scale for a decimal key. It is never
// negative (PostgreSQL: "frame starting offset must not be negative").
type FrameBound struct {
	Kind   BoundKind
	Offset any
}

// Frame is a window frame: its unit, its ends, and which of the current
// row's peers it leaves out (window_exclude.go).
type Frame struct {
	Unit       FrameUnit
	Start, End FrameBound
	Exclude    FrameExclude
}

// DefaultFrame is PostgreSQL's default: RANGE BETWEEN UNBOUNDED PRECEDING
// AND CURRENT ROW, the current row's last peer included.
var DefaultFrame = Frame{Unit: FrameRange, Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}

func (b FrameBound) String() string {
	switch b.Kind {
	case UnboundedPreceding:
		return "UNBOUNDED PRECEDING"
	case OffsetPreceding:
		return fmt.Sprintf("%v PRECEDING", b.Offset)
	case CurrentRow:
		return "CURRENT ROW"
	case OffsetFollowing:
		return fmt.Sprintf("%v FOLLOWING", b.Offset)
	}
	return "UNBOUNDED FOLLOWING"
}

func (f Frame) String() string {
	s := [...]string{"RANGE", "ROWS", "GROUPS"}[f.Unit] + " BETWEEN " + f.Start.String() + " AND " + f.End.String()
	if f.Exclude != ExcludeNoOthers {
		s += " EXCLUDE " + f.Exclude.String()
	}
	return s
}

// Expr is one window function over the node's partitioning and
// ordering: Args are input columns (the planner projects constants and
// expressions below), Frame is used by the framed functions only.
type Expr struct {
	Func  Func
	Args  []int
	Frame Frame
	Name  string // output column name
}

// Exec (WindowExec in a plan) evaluates window functions over an input already ordered by
// its partition columns then its order keys (Ordering; the planner
// puts a SortExec below, which spills, and shares it between windows
// whose ordering is a prefix of one already there). Its output is the
// input's columns, in the input's order, then one column per Expr.
//
// It streams partition by partition: the rows of one partition are
// buffered under a reservation from the statement's pool, evaluated, and
// emitted before the next partition is read, so its memory is bounded by
// the largest partition; a partition over the pool's limit fails with
// memlimit.ErrResourceExhausted (a window needs its whole partition: a
// frame may reach its last row). Frames are evaluated incrementally
// (window_agg.go): O(n) or O(n log n) per partition, never O(n × frame),
// except sums of floats whose frame start moves, which restart as
// PostgreSQL's do (float addition has no exact inverse), the float
// statistics' moving frames of at most 256 rows (the same; longer ones
// take a segment tree; with EXCLUDE the float sums too), and string_agg,
// whose results are the frames' bytes.
type Exec struct {
	input     exec.Node
	partition []int
	order     []exec.SortKey
	exprs     []Expr
	schema    *arrow.Schema
	perPart   bool // evaluates each input partition (PerPartition): window_partitions.go
	metrics   exec.Metrics
}

// Ordering is the input order an Exec over partition and order
// needs: the partition columns (any direction groups them), then the
// order keys. A partition column takes the direction of the first order
// key on the same column, else ascending NULLS LAST, as PostgreSQL's
// PARTITION BY takes the sort operator of a matching ORDER BY item
// (transformGroupClause) so one sort serves both. The direction shows:
// it is the order the window emits rows in, which decides whether a
// sort above it is needed and so which rows a LIMIT makes it evaluate
// (seed 20261234 case 33795: PARTITION BY o ORDER BY x DESC, o DESC
// sorts o descending, and ORDER BY o above it sorts again).
func Ordering(input *arrow.Schema, partition []int, order []exec.SortKey) []exec.SortKey {
	keys := make([]exec.SortKey, 0, len(partition)+len(order))
	for _, c := range partition {
		k := exec.SortKey{Column: c, Name: input.Field(c).Name}
		for _, o := range order {
			if o.Column == c {
				k.Descending, k.NullsFirst = o.Descending, o.NullsFirst
				break
			}
		}
		keys = append(keys, k)
	}
	return append(keys, order...)
}

// NewExec checks the window against its input: every column in
// range, the input ordered by Ordering, each function's arguments
// and frame valid (a typed physexpr.ErrInvalidArgument otherwise).
func NewExec(input exec.Node, partition []int, order []exec.SortKey, exprs []Expr) (*Exec, error) {
	sc := input.Schema()
	for _, c := range partition {
		if c < 0 || c >= sc.NumFields() {
			return nil, fmt.Errorf("%w: window partition column %d out of range", physexpr.ErrInvalidArgument, c)
		}
	}
	for _, k := range order {
		if k.Column < 0 || k.Column >= sc.NumFields() {
			return nil, fmt.Errorf("%w: window order column %d out of range", physexpr.ErrInvalidArgument, k.Column)
		}
	}
	if want := Ordering(sc, partition, order); !exec.OrderingSatisfies(input.Properties().Ordering, want) {
		return nil, fmt.Errorf("%w: window input is not ordered by its partition and order keys", physexpr.ErrInvalidArgument)
	}
	if len(exprs) == 0 {
		return nil, fmt.Errorf("%w: window without a function", physexpr.ErrInvalidArgument)
	}
	fields := slices.Clone(sc.Fields())
	for _, e := range exprs {
		t, err := windowType(sc, order, e)
		if err != nil {
			return nil, err
		}
		fields = append(fields, arrow.Field{Name: e.Name, Type: t, Nullable: true})
	}
	ks := slices.Clone(order)
	for i := range ks {
		if ks[i].Name == "" {
			ks[i].Name = sc.Field(ks[i].Column).Name
		}
	}
	return &Exec{input: input, partition: slices.Clone(partition), order: ks, exprs: slices.Clone(exprs),
		schema: arrow.NewSchema(fields, nil)}, nil
}

// windowType checks e's arguments and frame and returns its result type,
// PostgreSQL's: bigint for the ranks and row_number, integer for ntile,
// double precision for percent_rank and cume_dist, the argument's type for
// the value functions, and the aggregates' types of GROUP BY
// (exec.AggregateType).
func windowType(sc *arrow.Schema, order []exec.SortKey, e Expr) (arrow.DataType, error) {
	args := make([]arrow.DataType, len(e.Args))
	for i, c := range e.Args {
		if c < 0 || c >= sc.NumFields() {
			return nil, fmt.Errorf("%w: %s argument column %d out of range", physexpr.ErrInvalidArgument, e.Func, c)
		}
		args[i] = sc.Field(c).Type
	}
	nargs := func(lo, hi int) error {
		if len(args) < lo || len(args) > hi {
			return fmt.Errorf("%w: %s takes %d to %d arguments, got %d", physexpr.ErrInvalidArgument, e.Func, lo, hi, len(args))
		}
		return nil
	}
	integer := func(i int) error {
		if !arrow.IsInteger(args[i].ID()) {
			return fmt.Errorf("%w: %s argument %d must be an integer, not %s", physexpr.ErrInvalidArgument, e.Func, i+1, args[i])
		}
		return nil
	}
	if e.Func.usesFrame() {
		if err := checkFrame(sc, order, e.Frame); err != nil {
			return nil, err
		}
	}
	switch e.Func {
	case RowNumber, Rank, DenseRank:
		return arrow.PrimitiveTypes.Int64, nargs(0, 0)
	case PercentRank, CumeDist:
		return arrow.PrimitiveTypes.Float64, nargs(0, 0)
	case Ntile:
		if err := nargs(1, 1); err != nil {
			return nil, err
		}
		return arrow.PrimitiveTypes.Int32, integer(0)
	case Lag, Lead:
		if err := nargs(1, 3); err != nil {
			return nil, err
		}
		if len(args) >= 2 {
			if err := integer(1); err != nil {
				return nil, err
			}
		}
		if len(args) == 3 && !arrow.TypeEqual(args[2], args[0]) {
			return nil, fmt.Errorf("%w: %s default of type %s, not the value's %s", physexpr.ErrInvalidArgument, e.Func, args[2], args[0])
		}
		return args[0], nil
	case FirstValue, LastValue:
		return args0(args, nargs(1, 1))
	case NthValue:
		if err := nargs(2, 2); err != nil {
			return nil, err
		}
		return args[0], integer(1)
	case CountStar:
		return arrow.PrimitiveTypes.Int64, nargs(0, 0)
	case Count:
		return arrow.PrimitiveTypes.Int64, nargs(1, 1)
	case Sum, Avg, Min, Max, StdDevSamp, StdDevPop, VarSamp, VarPop, BoolAnd, BoolOr, BitAnd, BitOr, StringAgg:
		if e.Func == StringAgg {
			if err := nargs(2, 2); err != nil {
				return nil, err
			}
		} else if err := nargs(1, 1); err != nil {
			return nil, err
		}
		t, err := exec.AggregateType(aggregateOf[e.Func], args)
		if err != nil {
			return nil, err
		}
		if (e.Func == Min || e.Func == Max) && args[0].ID() == arrow.BOOL {
			return nil, fmt.Errorf("%w: %s(boolean) is not supported", physexpr.ErrInvalidArgument, e.Func)
		}
		if (e.Func == Min || e.Func == Max) && !sortableType(args[0]) {
			return nil, fmt.Errorf("%w: %s(%s) is not supported", physexpr.ErrInvalidArgument, e.Func, args[0])
		}
		return t, nil
	}
	return nil, fmt.Errorf("%w: window function %d", physexpr.ErrInvalidArgument, e.Func)
}

// sortableType: the types SortExec orders (comparator), which min and max
// over a frame compare with.
func sortableType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT64, arrow.INT32, arrow.INT16, arrow.UINT64, arrow.UINT32, arrow.FLOAT64, arrow.FLOAT32,
		arrow.STRING, arrow.BOOL, arrow.DATE32, arrow.TIMESTAMP, arrow.DECIMAL128:
		return true
	}
	return false
}

func args0(args []arrow.DataType, err error) (arrow.DataType, error) {
	if err != nil {
		return nil, err
	}
	return args[0], nil
}

// checkFrame holds a frame to PostgreSQL's rules (transformFrameOffset and
// the grammar's checks in gram.y's opt_frame_clause): the start is not
// UNBOUNDED FOLLOWING, the end not UNBOUNDED PRECEDING, the end not
// before the start's kind, offsets non-negative, and a RANGE with an
// offset has exactly one ORDER BY key of a type with arithmetic.
func checkFrame(sc *arrow.Schema, order []exec.SortKey, f Frame) error {
	bad := func(msg string) error { return fmt.Errorf("%w: %s", physexpr.ErrInvalidArgument, msg) }
	switch {
	case f.Exclude > ExcludeTies:
		return bad(fmt.Sprintf("frame exclusion %d", f.Exclude))
	case f.Start.Kind == UnboundedFollowing:
		return bad("frame start cannot be UNBOUNDED FOLLOWING")
	case f.End.Kind == UnboundedPreceding:
		return bad("frame end cannot be UNBOUNDED PRECEDING")
	case f.Start.Kind == CurrentRow && f.End.Kind == OffsetPreceding:
		return bad("frame starting from current row cannot have preceding rows")
	case f.Start.Kind == OffsetFollowing && (f.End.Kind == OffsetPreceding || f.End.Kind == CurrentRow):
		return bad("frame starting from following row cannot have preceding rows")
	}
	for _, b := range []FrameBound{f.Start, f.End} {
		if b.Kind != OffsetPreceding && b.Kind != OffsetFollowing {
			continue
		}
		if f.Unit != FrameRange {
			o, ok := b.Offset.(int64)
			if !ok {
				return bad(fmt.Sprintf("%s frame offset must be an integer", [...]string{"RANGE", "ROWS", "GROUPS"}[f.Unit]))
			}
			if o < 0 {
				return bad("frame offset must not be negative")
			}
			continue
		}
		if len(order) != 1 {
			return bad("RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
		}
		kt := sc.Field(order[0].Column).Type
		switch o := b.Offset.(type) {
		case int64:
			if !arrow.IsInteger(kt.ID()) && kt.ID() != arrow.DATE32 {
				return bad(fmt.Sprintf("RANGE offset of type bigint for an ORDER BY key of type %s", kt))
			}
			if o < 0 {
				return bad("frame offset must not be negative")
			}
		case float64:
			if kt.ID() != arrow.FLOAT64 && kt.ID() != arrow.FLOAT32 {
				return bad(fmt.Sprintf("RANGE offset of type double precision for an ORDER BY key of type %s", kt))
			}
			if o < 0 || o != o {
				return bad("invalid preceding or following size in window function")
			}
		case decimal128.Num:
			if kt.ID() != arrow.DECIMAL128 {
				return bad(fmt.Sprintf("RANGE offset of type numeric for an ORDER BY key of type %s", kt))
			}
			if o.Sign() < 0 {
				return bad("invalid preceding or following size in window function")
			}
		default:
			return bad(fmt.Sprintf("RANGE offset of Go type %T", b.Offset))
		}
	}
	return nil
}

func (w *Exec) Name() string           { return "WindowExec" }
func (w *Exec) Schema() *arrow.Schema  { return w.schema }
func (w *Exec) Children() []exec.Node  { return []exec.Node{w.input} }
func (w *Exec) Metrics() *exec.Metrics { return &w.metrics }

// Properties: the input's order; the input's columns keep their places.
func (w *Exec) Properties() exec.Properties {
	return exec.Properties{Ordering: slices.Clone(w.input.Properties().Ordering)}
}

func (w *Exec) String() string {
	in := w.input.Schema()
	var b strings.Builder
	b.WriteString("WindowExec: ")
	if len(w.partition) > 0 {
		ps := make([]string, len(w.partition))
		for i, c := range w.partition {
			ps[i] = fmt.Sprintf("%s@%d", in.Field(c).Name, c)
		}
		b.WriteString("partition=[" + strings.Join(ps, ", ") + "], ")
	}
	if len(w.order) > 0 {
		os := make([]string, len(w.order))
		for i, k := range w.order {
			os[i] = k.String()
		}
		b.WriteString("order=[" + strings.Join(os, ", ") + "], ")
	}
	es := make([]string, len(w.exprs))
	for i, e := range w.exprs {
		args := make([]string, len(e.Args))
		for j, c := range e.Args {
			args[j] = fmt.Sprintf("%s@%d", in.Field(c).Name, c)
		}
		if e.Func == CountStar {
			args = []string{"*"}
		}
		s := e.Func.String() + "(" + strings.Join(args, ", ") + ")"
		if e.Func.usesFrame() && e.Frame != DefaultFrame {
			s += " " + e.Frame.String()
		}
		es[i] = s + " as " + e.Name
	}
	b.WriteString("exprs=[" + strings.Join(es, ", ") + "]")
	if w.perPart {
		fmt.Fprintf(&b, ", partitions=%d", w.OutputPartitions())
	}
	return b.String()
}

func (w *Exec) Execute(ctx context.Context, tc *exec.TaskContext) (exec.Stream, error) {
	in, err := w.input.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &windowStream{n: w, tc: tc, in: in, res: tc.MemoryPool().NewReservation("WindowExec")}, nil
}

// WithNewChildren rebuilds the window over another input of the same
// schema and order (the parallel pass's merged input, plan/parallel.go).
func (w *Exec) WithNewChildren(children []exec.Node) (exec.Node, error) {
	if err := exec.WantChildren(w, children, 1); err != nil {
		return nil, err
	}
	if w.perPart {
		return w.PerPartition(children[0])
	}
	return NewExec(children[0], w.partition, w.order, w.exprs)
}
