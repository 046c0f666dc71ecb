package window

import (
	"context"
	"fmt"
	"slices"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// A window runs in parallel over input partitions that each hold whole
// window partitions: a hash repartition on the window's PARTITION BY
// columns, each stream sorted on its own (SortExec.PerPartition). Every
// window partition is then in one stream, in order, and each stream's
// window is the serial window's over those rows (plan/parallel.go).

// PartitionColumns are the window's PARTITION BY columns.
func (w *Exec) PartitionColumns() []int { return slices.Clone(w.partition) }

// PerPartition is w evaluating each partition of input on its own; input
// must hold every window partition in one stream (a repartition on
// PartitionColumns below). Its Execute still evaluates the whole input.
func (w *Exec) PerPartition(input exec.Node) (*Exec, error) {
	if len(w.partition) == 0 {
		return nil, fmt.Errorf("%w: a window without PARTITION BY has one partition", physexpr.ErrInvalidArgument)
	}
	n, err := NewExec(input, w.partition, w.order, w.exprs)
	if err != nil {
		return nil, err
	}
	n.perPart = true
	return n, nil
}

func (w *Exec) OutputPartitions() int {
	if !w.perPart {
		return 1
	}
	return exec.OutputPartitions(w.input)
}

func (w *Exec) ExecutePartitions(ctx context.Context, tc *exec.TaskContext) ([]exec.Stream, error) {
	if !w.perPart {
		st, err := w.Execute(ctx, tc)
		if err != nil {
			return nil, err
		}
		return []exec.Stream{st}, nil
	}
	return exec.PartitionsFor(ctx, w.input, tc, func(in exec.Stream) exec.Stream {
		return &windowStream{n: w, tc: tc, in: in, res: tc.MemoryPool().NewReservation("WindowExec")}
	})
}
