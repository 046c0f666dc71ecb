package exec

import (
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// aggregation is what HashAggregateExec and OrderedAggregateExec share:
// the group columns, the measures with their accumulator constructors and
// the output schema (group columns, then one column per measure).
type aggregation struct {
	input  Node
	groups []int
	aggs   []Aggregate
	makers []func() accumulator
	schema *arrow.Schema
}

func newAggregation(input Node, groups []int, aggs []Aggregate) (aggregation, error) {
	in := input.Schema()
	a := aggregation{input: input, groups: append([]int(nil), groups...)}
	var fields []arrow.Field
	for _, g := range groups {
		if g < 0 || g >= in.NumFields() {
			return a, fmt.Errorf("%w: group column %d out of range", physexpr.ErrInvalidArgument, g)
		}
		f := in.Field(g)
		if !groupKeyOK(f.Type) {
			return a, fmt.Errorf("%w: cannot group by type %s", physexpr.ErrInvalidArgument, f.Type)
		}
		fields = append(fields, arrow.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable})
	}
	for _, m := range aggs {
		types := make([]arrow.DataType, len(m.Args))
		for i, c := range m.Args {
			if c < 0 || c >= in.NumFields() {
				return a, fmt.Errorf("%w: aggregate column %d out of range", physexpr.ErrInvalidArgument, c)
			}
			types[i] = in.Field(c).Type
		}
		out, mk, err := aggSignature(m, types)
		if err != nil {
			return a, err
		}
		m.Args = append([]int(nil), m.Args...)
		a.aggs, a.makers = append(a.aggs, m), append(a.makers, mk)
		// count is never NULL; every other aggregate is NULL for a group
		// without values.
		nullable := m.Func != AggCount && m.Func != AggCountStar
		fields = append(fields, arrow.Field{Name: m.Name, Type: out, Nullable: nullable})
	}
	if len(fields) == 0 {
		return a, fmt.Errorf("%w: aggregate needs a group column or a measure", physexpr.ErrInvalidArgument)
	}
	a.schema = arrow.NewSchema(fields, nil)
	return a, nil
}

func (a *aggregation) describe() string {
	in := a.input.Schema()
	var parts []string
	if len(a.groups) > 0 {
		g := make([]string, len(a.groups))
		for i, c := range a.groups {
			g[i] = fmt.Sprintf("%s@%d", in.Field(c).Name, c)
		}
		parts = append(parts, "gby=["+strings.Join(g, ", ")+"]")
	}
	m := make([]string, len(a.aggs))
	for i, g := range a.aggs {
		m[i] = g.describe(in)
	}
	return strings.Join(append(parts, "aggr=["+strings.Join(m, ", ")+"]"), ", ")
}

// accumulators returns fresh state for every measure.
func (a *aggregation) accumulators() []accumulator {
	accs := make([]accumulator, len(a.makers))
	for i, mk := range a.makers {
		accs[i] = mk()
	}
	return accs
}

// keyColumns picks b's group columns.
func (a *aggregation) keyColumns(b arrow.RecordBatch) []arrow.Array {
	cols := make([]arrow.Array, len(a.groups))
	for i, c := range a.groups {
		cols[i] = b.Column(c)
	}
	return cols
}

// update folds batch b, whose rows belong to groups, into accs.
func (a *aggregation) update(accs []accumulator, b arrow.RecordBatch, groups []uint32, ngroups int) error {
	var args []arrow.Array
	for i, m := range a.aggs {
		args = args[:0]
		for _, c := range m.Args {
			args = append(args, b.Column(c))
		}
		if err := accs[i].update(args, groups, ngroups); err != nil {
			return err
		}
	}
	return nil
}

// emit builds the output batch of the first n groups from their key
// columns (consumed: released here) and the measures' state.
func (a *aggregation) emit(tc *TaskContext, keys []arrow.Array, accs []accumulator, n int) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, a.schema.NumFields())
	defer func() { physexpr.ReleaseAll(cols) }()
	cols = append(cols, keys...)
	for _, acc := range accs {
		if me, ok := acc.(multiEmitter); ok { // a partial aggregate's state
			cs, err := me.emitColumns(tc.Allocator(), n)
			if err != nil {
				return nil, err
			}
			cols = append(cols, cs...)
			continue
		}
		c, err := acc.emit(tc.Allocator(), n)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return array.NewRecordBatch(a.schema, cols, int64(n)), nil
}
