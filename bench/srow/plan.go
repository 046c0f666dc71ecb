package srow

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	// planLine is one operator of exec.Explain's tree: "03)    Name: details".
	planLine  = regexp.MustCompile(`^\d+\)( *)([A-Za-z]+)(?::\s*(.*))?$`)
	metricsRe = regexp.MustCompile(`,?\s*metrics=\[([^\]]*)\]`)
	inListRe  = regexp.MustCompile(`IN \(([^)]*)\)`)
	indexRe   = regexp.MustCompile(`index=(.*?)(?:, columns=|, version=|$)`)
	fragsRe   = regexp.MustCompile(`fragments=([^,]*)`)
)

// keptMetrics are the counters the summary keeps per operator: what the
// operator did, not how long it took (the table has the timings).
var keptMetrics = map[string][]string{
	"TakeByKeyExec":    {"hits", "misses", "pages_decoded"},
	"ScanExec":         {"output_rows"},
	"FilterExec":       {"output_rows"},
	"HashJoinExec":     {"output_rows"},
	"RowAddrRemapExec": {"addresses_remapped", "deleted"},
}

// planNode is one operator of a parsed plan.
type planNode struct {
	text     string
	children []*planNode
}

func (n *planNode) String() string {
	switch len(n.children) {
	case 0:
		return n.text
	case 1:
		return n.text + " > " + n.children[0].String()
	}
	parts := make([]string, len(n.children))
	for i, c := range n.children {
		parts[i] = c.String()
	}
	return n.text + " > [" + strings.Join(parts, "; ") + "]"
}

// SummarizePlan reduces the engine's plan text (exec.Explain with metrics:
// one operator per line, children indented two spaces deeper) to one line,
// root first, siblings in brackets: each operator's name, for an index
// probe the index and its hit/miss counters, for a remap the addresses it
// translated, for a scan its fragments and rows, and an IN-list shortened to
// its length. For example:
//
//	ProjectExec > TakeByKeyExec(btree rid(_rowid) built at v2 covering 10 fragments; hits=9480 misses=520 pages_decoded=0) > ProjectExec > UnnestExec
//
// Lines it does not recognize are kept whole, as children of the last
// operator.
func SummarizePlan(plan string) string {
	var roots []*planNode
	var stack []*planNode // stack[d] is the last operator seen at depth d
	for line := range strings.Lines(plan) {
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		m := planLine.FindStringSubmatch(strings.TrimLeft(line, " "))
		if m == nil {
			n := &planNode{text: strings.TrimSpace(line)}
			if len(stack) == 0 {
				roots = append(roots, n)
			} else {
				top := stack[len(stack)-1]
				top.children = append(top.children, n)
			}
			continue
		}
		n := &planNode{text: describeOp(m[2], m[3])}
		depth := min(len(m[1])/2, len(stack))
		stack = append(stack[:depth], n)
		if depth == 0 {
			roots = append(roots, n)
		} else {
			parent := stack[depth-1]
			parent.children = append(parent.children, n)
		}
	}
	parts := make([]string, len(roots))
	for i, r := range roots {
		parts[i] = r.String()
	}
	return strings.Join(parts, "; ")
}

// describeOp is one operator's summary from its name and details.
func describeOp(name, details string) string {
	metrics := map[string]string{}
	if mm := metricsRe.FindStringSubmatch(details); mm != nil {
		for kv := range strings.SplitSeq(mm[1], ", ") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				metrics[k] = v
			}
		}
		details = metricsRe.ReplaceAllString(details, "")
	}
	var parts []string
	switch name {
	case "TakeByKeyExec":
		if im := indexRe.FindStringSubmatch(details); im != nil {
			parts = append(parts, im[1])
		}
	case "ScanExec":
		if fm := fragsRe.FindStringSubmatch(details); fm != nil {
			parts = append(parts, "fragments="+fm[1])
		}
	case "FilterExec":
		parts = append(parts, inListRe.ReplaceAllStringFunc(details, func(s string) string {
			return fmt.Sprintf("IN (%d values)", strings.Count(s, ",")+1)
		}))
	}
	var kept []string
	for _, k := range keptMetrics[name] {
		if v, ok := metrics[k]; ok {
			kept = append(kept, k+"="+v)
		}
	}
	if len(kept) > 0 {
		parts = append(parts, strings.Join(kept, " "))
	}
	if len(parts) > 0 {
		name += "(" + strings.Join(parts, "; ") + ")"
	}
	return name
}
