package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/table"
)

// DefaultProbeBatch is how many driving keys TakeByKeyExec gathers before
// probing when it reads table columns from data files: the one Take per
// probe batch decodes each data batch a requested row falls in once for
// all of the batch's keys, so random ids over a large table want large
// batches (1M random ids over 10M rows took 2.7 s at 1M keys a batch, 7.2 s
// at 256K, 15.8 s at 128K); the bound keeps memory proportional to it, not
// to the driving input.
const DefaultProbeBatch = 1 << 20

// DefaultSystemProbeBatch is the probe batch of a take that reads no data
// file: only _rowaddr and _rowid are asked for and keys the index cannot
// answer are found through row id sequences (the seed take). Its per-batch
// cost is the index probe, whose decoded pages stay in the page cache
// between batches, so a smaller batch costs no time (1M ids over 10M rows:
// 642, 516 and 585 ms at 1M, 256K and 128K keys a batch, one run each at
// load 19) and bounds the state: some 80 bytes a key (the driving rows,
// the keys, the probe's radix-sort scratch and answers, the addresses),
// doubled by the collector's pacing. At 1M keys a 10M-id take through the
// CLI peaked at 417 MB RSS; at 128K, 261 MB, most of it the 80 MB list of
// ids.
const DefaultSystemProbeBatch = 1 << 17

// TakeByKeyExec is an ordered left index-nested-loop join on a unique
// indexed key: for each driving row, in driving order, the table row whose
// key equals the driving key, or NULLs. A duplicate driving key yields a
// duplicate row; a NULL key is a miss; two live rows for one key are an
// ErrNotUnique error (the uniqueness assertion).
//
// It composes real operators as children, each run once per probe batch
// with the batch's keys bound in its TaskContext:
//
//	TakeByKeyExec
//	├── driving input (in order)
//	├── [RowAddrRemapExec]        when the index predates rewrites
//	│   └── IndexProbeExec        (probe_row, indexed _rowaddr) pairs
//	└── [UnindexedFallbackScan]   when fragments lie outside the index's
//	                              coverage: (probe_row, _rowaddr) pairs for
//	                              the keys the index could not answer
//
// An index answer counts only if its (remapped) address is live and in a
// fragment the index covers; keys left over — their row was appended or
// moved by an update after the build, or the indexed address is deleted —
// go to the fallback, so partial coverage is always correct. Each child
// reports what it emitted in its own metrics.
//
// Output: the driving columns, then the requested table columns (nullable).
// Ordering: the driving ordering (so a sort on it above is redundant).
type TakeByKeyExec struct {
	driving    Node
	keyCol     int
	t          *table.Table
	keyColumn  string
	index      KeyIndex
	columns    []string
	probe      Node                   // IndexProbeExec, or RowAddrRemapExec over it; nil without index
	fallback   *UnindexedFallbackScan // nil when the index covers every fragment
	probeBatch int
	schema     *arrow.Schema
	metrics    Metrics
}

// TakeByKeyOptions tune TakeByKeyExec.
type TakeByKeyOptions struct {
	// ProbeBatch is the keys per probe (default DefaultSystemProbeBatch
	// for a take that reads no data file, else DefaultProbeBatch).
	ProbeBatch int
	// Remap, when set, translates the index's addresses (written before
	// rewrites) to current ones; the plan shows it as a RowAddrRemapExec
	// over the index probe. The index's Valid and Uncovered must then
	// answer with the derived coverage.
	Remap Remapper
}

// NewTakeByKeyExec builds the node. The driving key column must have the
// table key column's type. index may be nil: every key then goes to the
// fallback over every fragment, which is correct but, for keys other than
// _rowid, slow.
func NewTakeByKeyExec(driving Node, keyCol int, t *table.Table, keyColumn string, index KeyIndex, columns []string, opt TakeByKeyOptions) (*TakeByKeyExec, error) {
	ds := driving.Schema()
	if keyCol < 0 || keyCol >= ds.NumFields() {
		return nil, fmt.Errorf("%w: take: driving key column %d of %d", physexpr.ErrInvalidArgument, keyCol, ds.NumFields())
	}
	ki := t.ColumnIndex(keyColumn)
	if ki < 0 {
		return nil, fmt.Errorf("%w: take: unknown key column %q", physexpr.ErrInvalidArgument, keyColumn)
	}
	kt := t.Schema().Field(ki).Type
	if !arrow.TypeEqual(ds.Field(keyCol).Type, kt) {
		return nil, fmt.Errorf("%w: take: driving key %s is %s, table key %s is %s", physexpr.ErrSchema, ds.Field(keyCol).Name, ds.Field(keyCol).Type, keyColumn, kt)
	}
	fields := append([]arrow.Field{}, ds.Fields()...)
	for _, c := range columns {
		i := t.ColumnIndex(c)
		if i < 0 {
			return nil, fmt.Errorf("%w: take: unknown column %q", physexpr.ErrInvalidArgument, c)
		}
		f := t.Schema().Field(i)
		fields = append(fields, arrow.Field{Name: f.Name, Type: f.Type, Nullable: true, Metadata: f.Metadata})
	}
	n := &TakeByKeyExec{driving: driving, keyCol: keyCol, t: t, keyColumn: t.Schema().Field(ki).Name, index: index,
		columns: columns, probeBatch: opt.ProbeBatch, schema: arrow.NewSchema(fields, nil)}
	if index != nil {
		probe, err := NewIndexProbeExec(index)
		if err != nil {
			return nil, err
		}
		n.probe = probe
		if opt.Remap != nil {
			rm, err := NewRowAddrRemapExec(probe, 1, opt.Remap, RemapDrop)
			if err != nil {
				return nil, err
			}
			n.probe = rm
		}
	}
	uncovered := t.FragmentIDs()
	if index != nil {
		uncovered = index.Uncovered()
	}
	if len(uncovered) > 0 {
		fb, err := NewUnindexedFallbackScan(t, n.keyColumn, uncovered)
		if err != nil {
			return nil, err
		}
		n.fallback = fb
	}
	if n.probeBatch <= 0 {
		n.probeBatch = DefaultProbeBatch
		if n.readsNoData() {
			n.probeBatch = DefaultSystemProbeBatch
		}
	}
	return n, nil
}

func (n *TakeByKeyExec) Name() string          { return "TakeByKeyExec" }
func (n *TakeByKeyExec) Schema() *arrow.Schema { return n.schema }
func (n *TakeByKeyExec) Metrics() *Metrics     { return &n.metrics }
func (n *TakeByKeyExec) Properties() Properties {
	return Properties{Ordering: n.driving.Properties().Ordering}
}

func (n *TakeByKeyExec) Children() []Node {
	c := []Node{n.driving}
	if n.probe != nil {
		c = append(c, n.probe)
	}
	if n.fallback != nil {
		c = append(c, n.fallback)
	}
	return c
}

func (n *TakeByKeyExec) String() string {
	idx := "none"
	if n.index != nil {
		idx = n.index.String()
	}
	return fmt.Sprintf("TakeByKeyExec: key=%s = t.%s, index=%s, columns=[%s], version=%d",
		n.driving.Schema().Field(n.keyCol).Name, n.keyColumn, idx, strings.Join(n.columns, ", "), n.t.Version())
}

// Execute implements Node.
func (n *TakeByKeyExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	in, err := n.driving.Execute(ctx, tc)
	if err != nil {
		return nil, err
	}
	return &takeStream{n: n, tc: tc, in: in, mem: tc.Allocator()}, nil
}

// readsNoData: the take opens no data file, neither for the requested
// columns nor for the fallback.
func (n *TakeByKeyExec) readsNoData() bool {
	return n.systemOnly() && (n.fallback == nil || n.fallback.bySequence)
}

// systemOnly: every requested table column is _rowid or _rowaddr, so the
// answer needs no data file.
func (n *TakeByKeyExec) systemOnly() bool {
	for _, c := range n.columns {
		if !table.IsSystemColumn(c) {
			return false
		}
	}
	return true
}
