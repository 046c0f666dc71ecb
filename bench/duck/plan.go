package duck

import (
	"encoding/json"
	"fmt"
	"strings"
)

// planNode is the part of DuckDB's JSON profile (EXPLAIN (ANALYZE, FORMAT
// json)) that the summary reads.
type planNode struct {
	Name        string          `json:"operator_name"`
	ExtraInfo   json.RawMessage `json:"extra_info"`
	RowsScanned int64           `json:"operator_rows_scanned"`
	Latency     float64         `json:"latency"` // root only: wall-clock seconds
	Children    []planNode      `json:"children"`
}

// skipOps are operators that say nothing about the strategy.
var skipOps = map[string]bool{"EXPLAIN_ANALYZE": true, "PROJECTION": true, "QUERY": true, "": true}

// SummarizePlan reduces a JSON profile to one line: the operators from the
// root down (projections dropped), each scan with its table, its type
// (Sequential Scan / Index Scan) and the rows it read, then the total time.
// For example:
//
//	ORDER_BY > HASH_JOIN RIGHT > [SEQ_SCAN t (Sequential Scan, 9997302 rows read); SEQ_SCAN ids_v (Sequential Scan, 10000 rows read)] (total 74.2 ms)
func SummarizePlan(profile string) (string, error) {
	var root planNode
	if err := json.Unmarshal([]byte(profile), &root); err != nil {
		return "", fmt.Errorf("%w: EXPLAIN profile: %v", ErrUnexpectedType, err)
	}
	return fmt.Sprintf("%s (total %.1f ms)", describeAll(root.Children), root.Latency*1000), nil
}

// describeAll describes sibling subtrees: one alone, several in brackets.
func describeAll(ns []planNode) string {
	parts := make([]string, 0, len(ns))
	for i := range ns {
		if d := describe(&ns[i]); d != "" {
			parts = append(parts, d)
		}
	}
	if len(parts) > 1 {
		return "[" + strings.Join(parts, "; ") + "]"
	}
	return strings.Join(parts, "")
}

// describe is "NODE > children", or just the children for a skipped node.
func describe(n *planNode) string {
	below := describeAll(n.Children)
	if skipOps[n.Name] {
		return below
	}
	self := n.Name
	info := map[string]any{}
	_ = json.Unmarshal(n.ExtraInfo, &info) // absent or odd extra info only loses detail
	switch {
	case strings.Contains(n.Name, "SCAN"):
		table, _ := info["Table"].(string)
		table = table[strings.LastIndex(table, ".")+1:]
		typ, _ := info["Type"].(string)
		self += fmt.Sprintf(" %s (%s, %d rows read)", table, typ, n.RowsScanned)
	case strings.Contains(n.Name, "JOIN"):
		if jt, ok := info["Join Type"].(string); ok {
			self += " " + jt
		}
	}
	if below == "" {
		return self
	}
	return self + " > " + below
}
