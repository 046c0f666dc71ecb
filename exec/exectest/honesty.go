package exectest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// PlanAudit collects what EXPLAIN ANALYZE texts (exec.Explain with
// metrics) say about their nodes: a node may not report rows it did not
// emit as batches, and every kind of node that appears in a plan must emit
// a batch in at least one of them, or nothing shows its Execute runs.
type PlanAudit struct {
	Plans    int
	Seen     map[string]int // node name -> lines
	Executed map[string]int // node name -> lines with output_batches > 0
	Problems []string
}

// NewPlanAudit returns an empty audit.
func NewPlanAudit() *PlanAudit {
	return &PlanAudit{Seen: map[string]int{}, Executed: map[string]int{}}
}

var (
	planLine   = regexp.MustCompile(`^\d+\)\s*([A-Za-z][A-Za-z0-9]*)`)
	outRows    = regexp.MustCompile(`\boutput_rows=(\d+)`)
	outBatches = regexp.MustCompile(`\boutput_batches=(\d+)`)
)

// Add audits one plan text; where names its origin in problems. Lines
// without metrics (plain EXPLAIN) are skipped.
func (a *PlanAudit) Add(where, plan string) {
	counted := false
	for _, line := range strings.Split(plan, "\n") {
		line = strings.TrimSpace(line)
		m := planLine.FindStringSubmatch(line)
		i := strings.LastIndex(line, ", metrics=[")
		if m == nil || i < 0 {
			continue
		}
		counted = true
		name, metrics := m[1], line[i:]
		rows, batches := metric(outRows, metrics), metric(outBatches, metrics)
		a.Seen[name]++
		if batches > 0 {
			a.Executed[name]++
		}
		if rows > 0 && batches == 0 {
			a.Problems = append(a.Problems, fmt.Sprintf("%s: %s reports output_rows=%d with output_batches=0: %s", where, name, rows, line))
		}
	}
	if counted {
		a.Plans++
	}
}

func metric(re *regexp.Regexp, s string) int64 {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseInt(m[1], 10, 64)
	return v
}

// Unexecuted returns the node names seen in plans that never emitted a
// batch in any of them.
func (a *PlanAudit) Unexecuted() []string {
	var out []string
	for name := range a.Seen {
		if a.Executed[name] == 0 {
			out = append(out, name)
		}
	}
	return out
}
