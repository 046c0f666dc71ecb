package tpch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stablerow/stablerow/plan"
	"github.com/stretchr/testify/require"
)

// relationDir holds DataFusion's relation plans from the Substrait
// consumer test suite, <group>/<name>.json beside the suite's SQL
// (<name>.sql) and PostgreSQL 15's answer to it over this package's SF
// 0.01 data (<name>.tsv, or <name>.sum for a long one: answers.sh there).
const relationDir = "../../plan/testdata/producers/datafusion/relation"

// relationRefusals are the plans the engine refuses, each with a part of
// its error and its kind: what the README there says of each.
var relationRefusals = map[string]struct {
	kind error
	msg  string
}{
	// like(x, pattern, escape): DataFusion passes the escape character
	// (NULL for none) as a third argument the standard like does not have.
	"filter/where_like": {plan.ErrInvalidPlan, "like takes 2 to 2 arguments, got 3"},
	// The union's second input is a project without an emit meaning its
	// expressions alone (older DataFusion), and the root names, one column
	// either way, cannot tell the readings apart (replacingProjects).
	"set/union_all":      {plan.ErrInvalidPlan, "inputs[1] has 2 columns, inputs[0] 1"},
	"set/union_distinct": {plan.ErrInvalidPlan, "inputs[1] has 2 columns, inputs[0] 1"},
}

// relationFetchBugs are the plans for SQL with FETCH in which DataFusion
// wrote no fetch at all, or a fetch without its count (a producer bug:
// the plans compute all rows, or all but the offset): each with what in
// the plan shows the bug. They run, and the test checks the plan still
// shows it; their answer is not the SQL's, so it is not compared.
var relationFetchBugs = map[string]func(plan string) bool{
	"fetch/fetch":             func(p string) bool { return !strings.Contains(p, `"fetch"`) },
	"fetch/fetch_with_offset": func(p string) bool { return strings.Contains(p, `"count": "-1"`) },
}

// normalCell is a cell as answers.sh normalizes it before hashing an
// answer (cellEqual's equalities): a CHAR(n)'s trailing blanks and a
// decimal's trailing fractional zeros dropped.
func normalCell(c string) string {
	c = strings.TrimRight(c, " ")
	if i := strings.IndexByte(c, '.'); i > 0 && strings.Trim(strings.TrimPrefix(c, "-"), "0123456789.") == "" && strings.Count(c, ".") == 1 && i < len(c)-1 {
		c = strings.TrimSuffix(strings.TrimRight(c, "0"), ".")
	}
	return c
}

// TestProducersRelations runs DataFusion's relation plans from the
// consumer test suite at SF 0.01 and compares each answer, as a set of
// rows, with PostgreSQL's answer to the suite's SQL for the test
// (computed independently: answers.sh). A plan in relationRefusals must
// be refused as listed; one in relationFetchBugs must still show the
// producer's bug. It
// logs the counts (issue 28).
func TestProducersRelations(t *testing.T) {
	if testing.Short() {
		t.Skip("generates SF 0.01 data")
	}
	s := isthmusDB(t)
	sqls, err := filepath.Glob(filepath.Join(relationDir, "*", "*.sql"))
	require.NoError(t, err)
	require.NotEmpty(t, sqls)
	var equal, refused, fetchBugs int
	for _, sql := range sqls {
		base := strings.TrimSuffix(sql, ".sql")
		name := filepath.Base(filepath.Dir(sql)) + "/" + filepath.Base(base)
		t.Run(name, func(t *testing.T) {
			js, err := os.ReadFile(base + ".json")
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			got, _, err := s.RunSubstrait(ctx, js)
			if r, ok := relationRefusals[name]; ok {
				require.Error(t, err, "a plan listed as refused ran: take it off relationRefusals")
				require.True(t, errors.Is(err, r.kind), "refused as other than %v: %v", r.kind, err)
				require.Contains(t, err.Error(), r.msg)
				refused++
				return
			}
			require.NoError(t, err)
			if bug, ok := relationFetchBugs[name]; ok {
				require.True(t, bug(string(js)), "DataFusion's plan now has its fetch: take it off relationFetchBugs")
				fetchBugs++
				return
			}
			if sum, err := os.ReadFile(base + ".sum"); err == nil {
				lines := make([]string, len(got.Rows))
				for i, r := range got.Rows {
					cells := make([]string, len(r))
					for j, c := range r {
						cells[j] = normalCell(c)
					}
					lines[i] = strings.Join(cells, "\t") + "\n"
				}
				sort.Strings(lines)
				h := sha256.Sum256([]byte(strings.Join(lines, "")))
				require.Equal(t, strings.TrimSpace(string(sum)), fmt.Sprintf("%d %s", len(lines), hex.EncodeToString(h[:])))
			} else {
				want := &Answer{}
				data, err := os.ReadFile(base + ".tsv")
				require.NoError(t, err)
				for line := range strings.SplitSeq(strings.TrimSuffix(string(data), "\n"), "\n") {
					if line != "" {
						want.Rows = append(want.Rows, strings.Split(line, "\t"))
					}
				}
				require.Empty(t, Diff(sortedRows(got), sortedRows(want)))
			}
			equal++
		})
	}
	t.Logf("datafusion relation plans: %d, %d with PostgreSQL's answer to the suite's SQL, %d refused by name, %d without their fetch or its count (producer bug)",
		len(sqls), equal, refused, fetchBugs)
}
