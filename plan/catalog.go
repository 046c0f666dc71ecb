package plan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/fileio"
)

// Catalog resolves NamedTable reads.
type Catalog interface {
	// Table returns the provider of the named table, or an error (wrapping
	// ErrUnknownTable for an unknown name).
	Table(name string) (TableProvider, error)
}

// TableProvider is one table as the planner sees it.
type TableProvider interface {
	// Schema is the Arrow schema: user columns then _rowid, _rowaddr
	// (uint64). Index i matches base_schema field i.
	Schema() *arrow.Schema
	// Scan returns a node producing the given columns (indices into Schema())
	// in that order.
	Scan(columns []int) (exec.Node, error)
	// TakeByKey builds an ordered left take: for each row of driving (in
	// order), the row of the table whose column keyColumn equals driving
	// column drivingKey, or NULLs. Output schema = driving's columns followed
	// by the table columns `columns` (always nullable). ok=false when there is
	// no usable unique index on keyColumn (the planner then plans the generic
	// way). The node declares driving's ordering as its own output ordering.
	TakeByKey(driving exec.Node, drivingKey int, keyColumn int, columns []int) (node exec.Node, ok bool, err error)
}

// UniqueKeyer is implemented by a TableProvider that can tell, without
// building anything, whether TakeByKey may succeed on keyColumn (a unique
// index covers it). The planner asks before it compiles a join's driving
// side for a take: a join that does not become a take then compiles its
// inputs once, not once for the attempt and again for the hash join,
// which doubled the planning work at each level of a join tree (a
// 25-table chain took minutes to EXPLAIN).
type UniqueKeyer interface {
	HasUniqueIndex(keyColumn int) bool
}

// Options tune Build.
type Options struct {
	// Estimates, when not nil, receives the optimizer's estimated output
	// rows of each node planned from a relation (the outermost relation
	// a node is planned from gives its figure), for EXPLAIN (COSTS):
	// nodes the physical rules add (partitions, coalescing) have none.
	Estimates map[exec.Node]float64
	// DisableIndexes never calls TakeByKey, so every join is a hash join and
	// every sort is kept: the metamorphic check runs both and compares rows.
	DisableIndexes bool
	// DisableJoinOrder plans inner joins and cross products in the
	// producer's order (the logical optimizer's join ordering is skipped):
	// FuzzJoinOrder runs both and compares rows.
	DisableJoinOrder bool
	// Files is where read_parquet may open files (the zero Policy: nowhere).
	Files fileio.Policy
	// Threads is the degree of parallelism: above 1, scans split their
	// fragments into that many partitions and the operators above them
	// run per partition (parallel.go). 0 or 1: the serial plan.
	Threads int
	// MemoryLimited: the statement runs under a memory limit. Sorts then
	// stay serial: partitions' sorts share the budget, and one whose buffer
	// is empty cannot make room while the others hold it, where a single
	// sort always spills its way through.
	MemoryLimited bool
	// DisableSharing compiles a repeated relation (a WITH query read
	// twice) at each occurrence instead of once (shared.go).
	DisableSharing bool
	// DisableRollup plans grouping sets as their expansion runs (every
	// input row once per set) instead of rolling the coarser sets up from
	// the finest one's partial states (rollup.go): the model test runs
	// both and compares rows.
	DisableRollup bool
	// WriteSource: the plan's rows are written to a table (INSERT ...
	// SELECT, UPDATE, CREATE TABLE AS), which stores character(n) in the
	// engine's form, so its result columns are not blank-padded
	// (bpchar.go).
	WriteSource bool
}
