package pipeline

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
)

// Metrics are the task counters a run reported through the runner (zero
// where the runner reports none).
type Metrics struct {
	TasksExecuted  int64 // task executions that succeeded (a duplicate counts twice)
	AttemptsFailed int64 // attempts that failed and were retried or gave up
	RowsWritten    int64 // rows the successful executions wrote
	// TaskMicros is the summed wall time of the successful executions
	// (TasksExecuted of them): the per-task cost a scaling estimate needs.
	TaskMicros int64
}

func metricsOf(res beam.PipelineResult) Metrics {
	var m Metrics
	if res == nil {
		return m
	}
	q := res.Metrics().Query(func(r metrics.SingleResult) bool { return r.Namespace() == "stablerow" })
	for _, c := range q.Counters() {
		switch c.Key.Name {
		case "tasks_executed":
			m.TasksExecuted += c.Result()
		case "task_attempts_failed":
			m.AttemptsFailed += c.Result()
		case "rows_written":
			m.RowsWritten += c.Result()
		}
	}
	for _, d := range q.Distributions() {
		if d.Key.Name == "task_us" {
			m.TaskMicros += d.Result().Sum
		}
	}
	return m
}
