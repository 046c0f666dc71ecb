package difftest

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/stablerow/stablerow/engine"
)

// Config is one differential run.
type Config struct {
	Seed     uint64
	Cases    int           // stop after this many cases (0: no limit)
	Duration time.Duration // stop after this long (0: no limit)
	Case     int           // >= 0: run only this case of the seed
	Shrink   int           // runs the shrinker may spend per divergence class
	Verbose  bool
	// SkipOpen counts divergences of the open bug classes (open.go)
	// without failing the run. Off by default: only on the lead's word.
	SkipOpen bool
}

// Summary is what a run found.
type Summary struct {
	Cases   int
	Classes map[string]int // divergence kind -> count
	// CaseNumbers is each divergence kind's cases, in the order met:
	// only the first is shrunk and reported, but every one reruns alone
	// (-seed S -case N), so a long run names all of them.
	CaseNumbers map[string][]int
	Known       map[string]int    // known dialect difference -> count
	Example     map[string]string // known difference -> its first instance
	Skipped     map[string]int    // -skip-open: open class -> count
	// BothRaised: statements both sides refused, by SQLSTATE.
	BothRaised map[string]int
	Reports    []string // one shrunk report per new kind
}

// Divergent reports whether the run found any divergence that is not a
// known dialect difference.
func (s *Summary) Divergent() bool { return len(s.Classes) > 0 }

// caseGen is case i of seed: each case has its own stream, so one case
// reruns alone (-seed S -case I) exactly as it ran in the sequence.
func caseGen(seed uint64, i int) *Gen {
	return &Gen{r: rand.New(rand.NewPCG(seed, uint64(i)))}
}

// options draws the stablerow configuration a case runs under: batch
// sizes 1 and 2 push every operator through its multi-batch paths, and
// without indexes the planner takes its generic paths.
func (g *Gen) options() engine.Options {
	return engine.Options{BatchSize: pick(g, []int{1, 2, 3, 8192}), DisableIndexes: g.p(0.3)}
}

// Run generates and runs cases until cfg's bound, shrinking the first
// divergence of each kind and writing reports to log.
func (r *Runner) Run(ctx context.Context, cfg Config, log io.Writer) (*Summary, error) {
	sum := &Summary{Classes: map[string]int{}, CaseNumbers: map[string][]int{}, Skipped: map[string]int{}, Known: map[string]int{}, Example: map[string]string{}}
	start := time.Now()
	for i := 0; ; i++ {
		if cfg.Case >= 0 && i != cfg.Case {
			if i > cfg.Case {
				break
			}
			continue
		}
		if cfg.Case < 0 && ((cfg.Cases > 0 && i >= cfg.Cases) || (cfg.Duration > 0 && time.Since(start) >= cfg.Duration)) {
			break
		}
		if cfg.Cases == 0 && cfg.Duration == 0 && cfg.Case < 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		g := caseGen(cfg.Seed, i)
		opt := g.options()
		c := g.Case()
		sum.Cases++
		if cfg.Verbose {
			fmt.Fprintf(log, "case %d: %s\n", i, c.Query.SQL())
		}
		d, err := r.RunCase(ctx, c, opt)
		if err != nil {
			return sum, err
		}
		if d == nil {
			continue
		}
		if d.Known != "" {
			if cfg.Verbose {
				// Every match, not only the summary's example: a known
				// difference is triaged case by case.
				fmt.Fprintf(log, "case %d: known: %s\n", i, d.Known)
			}
			if sum.Known[d.Known]++; sum.Known[d.Known] == 1 {
				sum.Example[d.Known] = fmt.Sprintf("case %d: %s\n      PostgreSQL: %s\n      stablerow: %s", i, d.SQL, d.PG, d.SR)
			}
			continue
		}
		if cfg.SkipOpen && d.Open != "" {
			sum.Skipped[d.Open]++
			continue
		}
		// One reproducer per kind and open class: a new bug whose kind
		// an open class shares (rows differ, say) still gets its own.
		key := d.Kind
		if d.Open != "" {
			key += " [open: " + d.Open + "]"
		}
		sum.CaseNumbers[key] = append(sum.CaseNumbers[key], i)
		if sum.Classes[key]++; sum.Classes[key] > 1 {
			fmt.Fprintf(log, "case %d of seed %d: %s, again (rerun: -seed %d -case %d)\n", i, cfg.Seed, key, cfg.Seed, i)
			continue
		}
		if d, err = r.Shrink(ctx, d, cfg.Shrink); err != nil {
			return sum, err
		}
		if !d.IsQuery {
			d.Dumps = r.dumpTables(ctx, d.Case)
		}
		rep := fmt.Sprintf("case %d of seed %d (rerun: -seed %d -case %d)\n%s", i, cfg.Seed, cfg.Seed, i, d.Report())
		sum.Reports = append(sum.Reports, rep)
		fmt.Fprintln(log, rep)
	}
	sum.BothRaised = r.BothRaised
	return sum, nil
}

// Print writes the summary: one line per divergence kind, then the total.
func (s *Summary) Print(w io.Writer) {
	kinds := make([]string, 0, len(s.Classes))
	for k := range s.Classes {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	total := 0
	for _, k := range kinds {
		fmt.Fprintf(w, "  %5d  %s\n", s.Classes[k], k)
		if ns := s.CaseNumbers[k]; len(ns) > 0 {
			fmt.Fprintf(w, "         cases: %s\n", caseList(ns))
		}
		total += s.Classes[k]
	}
	states := make([]string, 0, len(s.BothRaised))
	for k := range s.BothRaised {
		states = append(states, k)
	}
	sort.Strings(states)
	var agreed []string
	for _, k := range states {
		agreed = append(agreed, fmt.Sprintf("%s x%d", k, s.BothRaised[k]))
	}
	fmt.Fprintf(w, "  both raised (SQLSTATE): %s\n", strings.Join(agreed, ", "))
	known := 0
	for k, n := range s.Known {
		fmt.Fprintf(w, "  %5d  known dialect difference: %s\n         e.g. %s\n", n, k, s.Example[k])
		known += n
	}
	skipped := 0
	for k, n := range s.Skipped {
		fmt.Fprintf(w, "  %5d  skipped (open): %s\n", n, k)
		skipped += n
	}
	fmt.Fprintf(w, "difftest: %d cases, %d divergent (%d kinds), %d known dialect differences, %d skipped as open bugs\n", s.Cases, total, len(kinds), known, skipped)
}

// caseList is the case numbers ns, the first 20 and a count of the rest.
func caseList(ns []int) string {
	const most = 20
	var b strings.Builder
	for i, n := range ns {
		if i == most {
			fmt.Fprintf(&b, " and %d more", len(ns)-most)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, n)
	}
	return b.String()
}
