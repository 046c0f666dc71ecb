package exec

import (
	"context"
	"fmt"
	"slices"

	"github.com/stablerow/stablerow/exec/physexpr"
)

// A window runs in parallel over input partitions that each hold whole
// window partitions: a hash repartition on the window's PARTITION BY
// columns, each stream sorted on its own (SortExec.PerPartition). Every
// window partition is then in one stream, in order, and each stream's
// window is the serial window's over those rows (plan/parallel.go).

// PartitionColumns are the window's PARTITION BY columns.
func (w *WindowExec) PartitionColumns() []int { return slices.Clone(w.partition) }

// PerPartition is w evaluating each partition of input on its own; input
// must hold every window partition in one stream (a repartition on
// PartitionColumns below). Its Execute still evaluates the whole input.
func (w *WindowExec) PerPartition(input Node) (*WindowExec, error) {
	if len(w.partition) == 0 {
		return nil, fmt.Errorf("%w: a window without PARTITION BY has one partition", physexpr.ErrInvalidArgument)
	}
	n, err := NewWindowExec(input, w.partition, w.order, w.exprs)
	if err != nil {
		return nil, err
	}
	n.perPart = true
	return n, nil
}

func (w *WindowExec) OutputPartitions() int {
	if !w.perPart {
		return 1
	}
	return OutputPartitions(w.input)
}

func (w *WindowExec) ExecutePartitions(ctx context.Context, tc *TaskContext) ([]Stream, error) {
	if !w.perPart {
		st, err := w.Execute(ctx, tc)
		if err != nil {
			return nil, err
		}
		return []Stream{st}, nil
	}
	return partitionsFor(ctx, w.input, tc, func(in Stream) Stream {
		return &windowStream{n: w, tc: tc, in: in, res: tc.pool().NewReservation("WindowExec")}
	})
}
