package tpch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stablerow/stablerow/plan"
	"github.com/stretchr/testify/require"
)

// producersDir holds the outside producers' TPC-H plans from the
// Substrait consumer test suite, <producer>/tpch/qNN.json beside the
// suite's SQL (qNN.sql), and tpch-pg/qNN.tsv, PostgreSQL 15's answer to
// that SQL over this package's SF 0.01 data (tpch-pg/answers.sh).
const producersDir = "../../plan/testdata/producers"

// producerRefusals are the plans the engine refuses, each with the
// construct its typed unsupported error names. Every other plan must run
// and give PostgreSQL's answer. None is refused today; the map stays for
// the next producer's plans.
var producerRefusals = map[string]string{}

// readPGAnswer reads tpch-pg/<name>.tsv: a row a line, tab-separated.
func readPGAnswer(t *testing.T, name string) *Answer {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(producersDir, "tpch-pg", name+".tsv"))
	require.NoError(t, err)
	a := &Answer{}
	for line := range strings.SplitSeq(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line != "" {
			a.Rows = append(a.Rows, strings.Split(line, "\t"))
		}
	}
	return a
}

// TestProducersTPCH runs every producer's committed TPC-H plan at SF 0.01
// and compares its answer with PostgreSQL's answer to the suite's SQL for
// the query (computed independently: tpch-pg/answers.sh), as sets (the
// suite's ORDER BY leaves ties). A plan in producerRefusals must be
// refused with ErrUnsupported naming its construct; every other must run
// equal. A plan that computes other than the suite's SQL (the producer's
// bug: DuckDB writes Q13's NOT LIKE as not_equal) has qNN.plan.sql, the
// SQL of what it computes, and is compared with PostgreSQL's answer to
// that instead, and counted apart. It logs the counts per producer
// (issue 28).
func TestProducersTPCH(t *testing.T) {
	if testing.Short() {
		t.Skip("generates SF 0.01 data")
	}
	s := isthmusDB(t)
	plans, err := filepath.Glob(filepath.Join(producersDir, "*", "tpch", "q*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, plans)
	type count struct{ plans, equal, miswritten, refused int }
	counts := map[string]*count{}
	for _, p := range plans {
		producer := filepath.Base(filepath.Dir(filepath.Dir(p)))
		q := strings.TrimSuffix(filepath.Base(p), ".json")
		name := producer + "/" + q
		if counts[producer] == nil {
			counts[producer] = &count{}
		}
		c := counts[producer]
		c.plans++
		t.Run(name, func(t *testing.T) {
			js, err := os.ReadFile(p)
			require.NoError(t, err)
			want, miswritten := readPGAnswer(t, q), false
			if _, err := os.Stat(strings.TrimSuffix(p, ".json") + ".plan.sql"); err == nil {
				want, miswritten = readPGAnswer(t, producer+"-"+q+".plan"), true
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			got, d, err := s.RunSubstrait(ctx, js)
			if construct, refused := producerRefusals[name]; refused {
				require.Error(t, err, "a plan listed as refused ran: take it off producerRefusals")
				require.True(t, errors.Is(err, plan.ErrUnsupported), "refused, but not as unsupported: %v", err)
				require.Contains(t, err.Error(), construct)
				c.refused++
				t.Logf("refused: %v", err)
				return
			}
			require.NoError(t, err)
			require.Empty(t, Diff(sortedRows(got), sortedRows(want)))
			if miswritten {
				c.miswritten++
				t.Logf("%d rows equal to PostgreSQL's answer to the SQL the plan computes (qNN.plan.sql), not the suite's, in %v", len(want.Rows), d)
				return
			}
			c.equal++
			t.Logf("%d rows equal to PostgreSQL's in %v", len(want.Rows), d)
		})
	}
	for producer, c := range counts {
		t.Logf("%s: %d plans, %d run with PostgreSQL's answer to the suite's SQL, %d with its answer to the SQL the plan computes, %d refused by name",
			producer, c.plans, c.equal, c.miswritten, c.refused)
	}
}
