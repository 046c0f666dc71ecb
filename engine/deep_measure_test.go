package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stablerow/stablerow/internal/deepsql"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// noTables is the catalog of statements that read no table.
type noTables struct{}

func (noTables) Table(name string) (plan.TableProvider, error) {
	return nil, fmt.Errorf("%w: %s", plan.ErrUnknownTable, name)
}

// TestMeasurePlanning prints the CPU time of parsing and lowering
// (sql.Parse) and of planning (plan.Build) the internal/deepsql statements
// listed in STABLEROW_MEASURE_PLANNING, "class,shape,n;..." (class and
// shape as numbers, n -1 for the deepest the depth limit admits), for
// BENCHMARKS.md's issue 32 figures:
//
//	STABLEROW_MEASURE_PLANNING='3,3,25000;12,0,-1' go test -run TestMeasurePlanning -v ./engine/
func TestMeasurePlanning(t *testing.T) {
	spec := os.Getenv("STABLEROW_MEASURE_PLANNING")
	if spec == "" {
		t.Skip("set STABLEROW_MEASURE_PLANNING to measure")
	}
	for _, one := range strings.Split(spec, ";") {
		var f [3]int
		for i, s := range strings.SplitN(one, ",", 3) {
			f[i], _ = strconv.Atoi(strings.TrimSpace(s))
		}
		c, shape, n := deepsql.Class(f[0]), f[1], f[2]
		if n < 0 {
			lo, hi := 0, sql.MaxDepth+1
			for hi-lo > 1 {
				m := (lo + hi) / 2
				if _, err := sql.Parse(deepsql.Statement(c, m, shape), nil); errors.Is(err, sql.ErrTooDeep) {
					hi = m
				} else {
					lo = m
				}
			}
			n = lo
		}
		q := deepsql.Statement(c, n, shape)
		c0 := time.Duration(cpuTime()) // CPU, not wall: the machine is shared
		stmts, err := sql.Parse(q, nil)
		c1 := time.Duration(cpuTime())
		var build time.Duration
		if err == nil {
			_, err = plan.Build(context.Background(), stmts[0].(*sql.Query).Plan, noTables{}, plan.Options{})
			build = time.Duration(cpuTime()) - c1
		}
		t.Logf("%v shape %d, n = %d (%d bytes): parse %v, plan %v CPU (%v)", c, shape, n, len(q),
			(c1 - c0).Round(time.Millisecond), build.Round(time.Millisecond), err)
	}
}
