package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/stablerow/stablerow/bench/peer"
)

// caseLine is RunCase's progress line on stderr: workload, rows, list
// length, then name=median per engine.
var (
	caseLine   = regexp.MustCompile(`^(.+?)\s+rows=(\d+)\s+n=(\d+)\s+(.*)$`)
	engineTime = regexp.MustCompile(`(\S+)=([\d.]+)\s?(ms|s|µs)`)
)

// resultsFromLog rebuilds the per-case medians from a run's stderr log (each
// Result holding one time per engine, its median), so the plot can be
// drawn from a run whose report was not written.
func resultsFromLog(r io.Reader) ([]*peer.Result, error) {
	var out []*peer.Result
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := caseLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		rows, err1 := strconv.Atoi(m[2])
		n, err2 := strconv.Atoi(m[3])
		if err1 != nil || err2 != nil {
			continue
		}
		res := &peer.Result{Case: peer.Case{Workload: m[1], Rows: rows, Query: peer.Query{Kind: peer.KindTake, IDs: make([]uint64, n)}, Runs: 1}}
		for _, et := range engineTime.FindAllStringSubmatch(m[4], -1) {
			v, err := strconv.ParseFloat(et[2], 64)
			if err != nil {
				return nil, fmt.Errorf("peerbench: log: %q: %w", et[0], err)
			}
			unit := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "µs": time.Microsecond}[et[3]]
			res.Engines = append(res.Engines, et[1])
			res.Times = append(res.Times, []time.Duration{time.Duration(v * float64(unit))})
		}
		if len(res.Engines) > 0 {
			out = append(out, res)
		}
	}
	return out, sc.Err()
}
