package peer

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"
)

// Case is one row of the report: a workload over a table size, with the
// query every engine runs.
type Case struct {
	Workload string // "take", "take after delete", ...
	Rows     int    // rows generated into t (before any delete)
	Query    Query
	Runs     int // timed runs per engine (after the checked run)
	// Model, when set, is the independent oracle: before anything is
	// timed, every engine answers the content check (KindContent) of a
	// take's ids and must match Model.Content exactly.
	Model *Model
}

// Result is a measured Case.
type Result struct {
	Case
	Engines []string          // names, in the order engines were given
	Times   [][]time.Duration // Times[e] holds engine e's timed runs
	Plans   []string          // Plans[e] is engine e's Explain
	Len     int               // rows in the (agreed) answer
	Hits    int               // take answers: rows with an address
}

// Median is engine e's median time.
func (r *Result) Median(e int) time.Duration { return Median(r.Times[e]) }

// Median is the median of ts (the mean of the middle two for an even count);
// 0 for none.
func Median(ts []time.Duration) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// RunCase measures c on engines. First every engine runs the query once and
// the answers are compared with the first engine's (and a take's answer with
// the take contract); any difference returns an error wrapping ErrMismatch
// before anything is timed. Then each engine explains its plan, and c.Runs
// rounds time every engine once per round, rotating which engine goes first
// so that none always runs on a cache the other warmed or trashed. Garbage is
// collected before every timed run, outside the timing.
func RunCase(ctx context.Context, c Case, engines []Engine, log io.Writer) (*Result, error) {
	if len(engines) == 0 || c.Runs < 1 {
		return nil, fmt.Errorf("peer: %d engines, %d runs: %w", len(engines), c.Runs, ErrInvalidArgument)
	}
	res := &Result{Case: c, Times: make([][]time.Duration, len(engines)), Plans: make([]string, len(engines))}
	prepare := func(e Engine) error {
		if p, ok := e.(Preparer); ok {
			if err := p.Prepare(ctx); err != nil {
				return fmt.Errorf("peer: prepare %s: %w", e.Name(), err)
			}
		}
		return nil
	}
	if c.Model != nil && c.Query.Kind != KindInK {
		cq := Query{Kind: KindContent, IDs: c.Query.IDs}
		want := c.Model.Content(c.Query.IDs)
		for _, e := range engines {
			if err := prepare(e); err != nil {
				return nil, err
			}
			got, err := e.Run(ctx, cq)
			if err != nil {
				return nil, fmt.Errorf("peer: %s, %d rows, %d ids: %s content check: %w", c.Workload, c.Rows, c.Query.Size(), e.Name(), err)
			}
			if err := want.Compare(got); err != nil {
				return nil, fmt.Errorf("peer: %s, %d rows, %d ids: %s against the model: %w", c.Workload, c.Rows, c.Query.Size(), e.Name(), err)
			}
		}
	}
	if c.Model != nil && c.Query.Kind == KindInK {
		want := c.Model.KRows(c.Query.Keys)
		for _, e := range engines {
			if err := prepare(e); err != nil {
				return nil, err
			}
			got, err := e.Run(ctx, c.Query)
			if err != nil {
				return nil, fmt.Errorf("peer: %s, %d rows, %d keys: %s: %w", c.Workload, c.Rows, c.Query.Size(), e.Name(), err)
			}
			if err := want.Compare(got); err != nil {
				return nil, fmt.Errorf("peer: %s, %d rows, %d keys: %s against the model: %w", c.Workload, c.Rows, c.Query.Size(), e.Name(), err)
			}
		}
	}
	var first Answer
	for i, e := range engines {
		res.Engines = append(res.Engines, e.Name())
		if err := prepare(e); err != nil {
			return nil, err
		}
		a, err := e.Run(ctx, c.Query)
		if err != nil {
			return nil, fmt.Errorf("peer: %s, %d rows, %d: %s: %w", c.Workload, c.Rows, c.Query.Size(), e.Name(), err)
		}
		if t, ok := a.(*TakeRows); ok {
			if err := t.CheckShape(len(c.Query.IDs)); err != nil {
				return nil, fmt.Errorf("peer: %s, %d rows, %d ids: %s breaks the take contract: %w", c.Workload, c.Rows, c.Query.Size(), e.Name(), err)
			}
			res.Hits = t.Hits()
		}
		if i == 0 {
			first, res.Len = a, a.Len()
			continue
		}
		if err := first.Compare(a); err != nil {
			return nil, fmt.Errorf("peer: %s, %d rows, %d: %s against %s: %w", c.Workload, c.Rows, c.Query.Size(), engines[0].Name(), e.Name(), err)
		}
	}
	first = nil // a 1M-row answer need not live through the timed runs
	for i, e := range engines {
		if err := prepare(e); err != nil {
			return nil, err
		}
		p, err := e.Explain(ctx, c.Query)
		if err != nil {
			return nil, fmt.Errorf("peer: explain %s on %s: %w", c.Workload, e.Name(), err)
		}
		res.Plans[i] = p
	}
	for r := range c.Runs {
		for j := range engines {
			i := (r + j) % len(engines)
			if err := prepare(engines[i]); err != nil {
				return nil, err
			}
			if st, ok := engines[i].(SelfTimer); ok {
				d, err := st.RunTimed(ctx, c.Query)
				if err != nil {
					return nil, fmt.Errorf("peer: %s run %d on %s: %w", c.Workload, r, engines[i].Name(), err)
				}
				res.Times[i] = append(res.Times[i], d)
				continue
			}
			runtime.GC()
			start := time.Now()
			if _, err := engines[i].Run(ctx, c.Query); err != nil {
				return nil, fmt.Errorf("peer: %s run %d on %s: %w", c.Workload, r, engines[i].Name(), err)
			}
			res.Times[i] = append(res.Times[i], time.Since(start))
		}
	}
	if log != nil {
		fmt.Fprintf(log, "%-22s rows=%-9d n=%-8d", c.Workload, c.Rows, c.Query.Size())
		for i := range engines {
			fmt.Fprintf(log, " %s=%s", res.Engines[i], fmtDur(res.Median(i)))
		}
		fmt.Fprintln(log)
	}
	return res, nil
}
