package window

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
)

// What evaluating a partition holds per row beside its rows (the buffered
// slices and their concatenated copy, twice the rows' bytes), counted from
// what window_eval.go, window_agg.go and window_frame.go allocate. A fixed
// 64 bytes a row undercounted a query of several functions or frames: each
// expression has its own result and scratch, each distinct frame its own
// bounds.
const (
	// peerBytesPerRow: the row's peer group (int32) and, at worst one
	// group a row, the group's first row (int).
	peerBytesPerRow = 4 + 8
	// frameBytesPerRow: one distinct frame's start and end (an int each).
	frameBytesPerRow = 16
	// exprBytesPerRow: one expression's fixed-width result (8) and its
	// widest scratch: the prefix sums of a sum or avg (a count and an
	// Int192 or two words, 32), or a value function's gather index and
	// NULL flags (5).
	exprBytesPerRow = 8 + 32
	// statsBytesPerRow: stddev's and variance's result (8) and their
	// scratch: the exact prefix totals of an integer or numeric
	// (exec.NumericStatsPrefixBytes, 72) and, while they are totalled,
	// each row's own state (as much again), or a float's segment tree of
	// float8_accum states (segTreeNodes+1 states of 24 bytes, leaves
	// included: 72).
	statsBytesPerRow = 8 + 2*exec.NumericStatsPrefixBytes
	// bitBytesPerRow: bit_and's and bit_or's leaves, tree, counts and
	// results (int64s) and NULL flags.
	bitBytesPerRow = 8*(1+segTreeNodes) + 8 + 8 + 1
)

// exprStatePerRow is what evaluating one expression of f holds per row.
func exprStatePerRow(f Func) int64 {
	switch f {
	case StdDevSamp, StdDevPop, VarSamp, VarPop:
		return statsBytesPerRow
	case BitAnd, BitOr:
		return bitBytesPerRow
	}
	return exprBytesPerRow
}

// statePerRow is the partition state per row of w's expressions.
func (w *Exec) statePerRow() int64 {
	frames := map[Frame]bool{}
	var exprs int64
	for _, e := range w.exprs {
		if e.Func.usesFrame() {
			frames[e.Frame] = true
		}
		exprs += exprStatePerRow(e.Func)
	}
	return peerBytesPerRow + frameBytesPerRow*int64(len(frames)) + exprs
}

// reserveBytes is what buffering and evaluating b's rows holds: the rows
// twice, the per-row state, and the bytes of each variable-width result
// (a value function, lag, lead, min or max of a string copies its
// argument's values; string_agg lays its values out once, and reserves
// its results when it has counted them: window_stringagg.go).
func (w *Exec) reserveBytes(b arrow.RecordBatch) int64 {
	need := 2*exec.BatchBytes(b) + w.statePerRow()*b.NumRows()
	for _, e := range w.exprs {
		if len(e.Args) == 0 {
			continue
		}
		arg := b.Column(e.Args[0])
		if _, fixed := arg.DataType().(arrow.FixedWidthDataType); !fixed {
			need += exec.ArrayBytes(arg)
		}
	}
	return need
}
