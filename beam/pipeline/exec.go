package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/stablerow/stablerow/errkind"
)

// Runner runs a pipeline: prism.Execute in tests, beamx.RunWithMetrics
// (the --runner flag) in cmd/srbeam.
type Runner func(context.Context, *beam.Pipeline) (beam.PipelineResult, error)

// ExecOptions say how the tasks of a pipeline run.
type ExecOptions struct {
	// Workers is the number of shards the tasks are spread over (at most
	// that many tasks run at once); 0: one shard per task, the runner
	// decides.
	Workers int `json:"workers,omitempty"`
	// Attempts is how often a failing task is tried in the DoFn before the
	// bundle fails (0: 3).
	Attempts int `json:"attempts,omitempty"`
	// Faults injects failures, for tests of retries and crashes.
	Faults Faults `json:"faults,omitempty"`
	// Run names this run (markers of injected faults); the driver sets it.
	Run string `json:"run,omitempty"`
}

// Faults injects failures into task execution. A task fails after it
// executed (its files are written), as a worker that dies before it
// reports would.
type Faults struct {
	// Dir holds the markers that make FailOnce fail only the first attempt,
	// across retries in the DoFn and retries of the bundle by a runner.
	Dir string `json:"dir,omitempty"`
	// FailOnce are task sequence numbers whose first attempt fails.
	FailOnce []int `json:"fail_once,omitempty"`
	// FailAlways are task sequence numbers that fail every attempt (the
	// pipeline fails: a crash).
	FailAlways []int `json:"fail_always,omitempty"`
	// Twice executes every task twice and emits both results, as a
	// runner's speculative duplicate would.
	Twice bool `json:"twice,omitempty"`
}

// ErrInjected is the failure Faults inject.
var ErrInjected = errkind.New(errkind.Internal, "pipeline: injected task failure")

// ErrConfig: a pipeline configuration that cannot run (no table, no ids
// file, a bad column).
var ErrConfig = errkind.New(errkind.InvalidArgument, "pipeline: bad configuration")

func (o ExecOptions) attempts() int {
	if o.Attempts <= 0 {
		return 3
	}
	return o.Attempts
}

func (o ExecOptions) shard(seq int) int {
	if o.Workers <= 0 {
		return seq
	}
	return seq % o.Workers
}

// newRunID names a run (for fault markers and logs).
func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// inject returns the injected failure of task seq's attempt, if any.
func (f Faults) inject(run string, seq int) error {
	if slices.Contains(f.FailAlways, seq) {
		return fmt.Errorf("%w: task %d (always)", ErrInjected, seq)
	}
	if !slices.Contains(f.FailOnce, seq) {
		return nil
	}
	if f.Dir == "" {
		return fmt.Errorf("%w: FailOnce needs Faults.Dir", ErrConfig)
	}
	// The marker's creation is the first attempt: O_EXCL makes exactly
	// one attempt fail however many workers or retries race.
	m, err := os.OpenFile(filepath.Join(f.Dir, run+"-"+strconv.Itoa(seq)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_ = m.Close()
	return fmt.Errorf("%w: task %d (first attempt)", ErrInjected, seq)
}

// Task is one element of a pipeline's task collection: a task's JSON
// encoding, its sequence number in the plan, and the shard it runs in.
type Task struct {
	Shard int
	Seq   int
	Body  []byte
}

// keyByShardFn keys a task by its shard for the GroupByKey that spreads
// the tasks over workers.
func keyByShardFn(t Task) (int, Task) { return t.Shard, t }

// spread turns the encoded tasks into a collection grouped by shard: the
// GroupByKey breaks fusion with the Create (otherwise one worker would run
// every task) and gives each shard to one worker.
func spread(s beam.Scope, o ExecOptions, bodies [][]byte) beam.PCollection {
	tasks := make([]Task, len(bodies))
	for i, b := range bodies {
		tasks[i] = Task{Shard: o.shard(i), Seq: i, Body: b}
	}
	col := beam.CreateList(s, tasks)
	return beam.GroupByKey(s, beam.ParDo(s, keyByShardFn, col))
}

// Counters of the task DoFns (beam metrics, namespace "stablerow").
var (
	tasksDone      = beam.NewCounter("stablerow", "tasks_executed")
	attemptsFailed = beam.NewCounter("stablerow", "task_attempts_failed")
	rowsWritten    = beam.NewCounter("stablerow", "rows_written")
	taskMicros     = beam.NewDistribution("stablerow", "task_us")
)

// inFlight and maxInFlight count tasks executing in this process (a
// loopback runner's workers share it): the benchmark's check that W
// shards gave W-way parallelism.
var inFlight, maxInFlight atomic.Int64

// MaxInFlight returns the most tasks seen executing at once in this
// process since ResetInFlight.
func MaxInFlight() int64 { return maxInFlight.Load() }

// ResetInFlight restarts the count of MaxInFlight.
func ResetInFlight() { maxInFlight.Store(0) }

// attempt runs task seq's execution f up to o.attempts() times. A bad task
// (an InvalidArgument error) is not retried: another try would fail alike.
func (o ExecOptions) attempt(ctx context.Context, seq int, f func() error) error {
	n := inFlight.Add(1)
	defer inFlight.Add(-1)
	for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
	}
	for a := 1; ; a++ {
		start := time.Now()
		err := f()
		if err == nil {
			err = o.Faults.inject(o.Run, seq)
		}
		if err == nil {
			taskMicros.Update(ctx, time.Since(start).Microseconds())
			tasksDone.Inc(ctx, 1)
			return nil
		}
		attemptsFailed.Inc(ctx, 1)
		if a >= o.attempts() || errors.Is(err, errkind.InvalidArgument) || ctx.Err() != nil {
			return fmt.Errorf("task %d, attempt %d of %d: %w", seq, a, o.attempts(), err)
		}
		select {
		case <-time.After(time.Duration(a) * 50 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("task %d: %w", seq, ctx.Err())
		}
	}
}

// workerMem is the allocator of the DoFns (a variable so that in-process
// tests can check it for leaks).
var workerMem memory.Allocator = memory.DefaultAllocator
