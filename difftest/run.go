package difftest

import (
	"context"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/engine"
)

// Divergence is one disagreement between the two sides.
type Divergence struct {
	Case *Case
	Opt  engine.Options // the stablerow configuration it ran under
	SQL  string         // the statement that diverged
	// Kind is the class of the difference (e.g. "query: PostgreSQL raised,
	// stablerow did not"), kept while shrinking so the shrinker cannot
	// wander off to another bug.
	Kind    string
	Msg     string
	PG, SR  *Outcome
	IsQuery bool
	Ordered bool   // the statement defines its row order (else rows compare as multisets)
	Known   string // name of the known divergence it matched, if any
	Dumps   []Dump // setup divergences: the tables as PostgreSQL has them
	Open    string // name of the open bug class it belongs to (open.go), if any
}

// Runner runs cases on both sides.
type Runner struct {
	PG Backend
	SR *Stablerow
	// BothRaised counts statements both sides refused, by PostgreSQL's
	// SQLSTATE (the error classes the run agreed on).
	BothRaised map[string]int
}

// RunCase runs c on both sides from empty databases and returns the first
// divergence, or nil.
func (r *Runner) RunCase(ctx context.Context, c *Case, opt engine.Options) (*Divergence, error) {
	if err := r.PG.Reset(ctx); err != nil {
		return nil, fmt.Errorf("difftest: reset PostgreSQL: %w", err)
	}
	r.SR.Opt = opt
	r.SR.Reset(ctx)
	for _, s := range c.Setup() {
		if d := r.compare(ctx, c, s, false, false); d != nil {
			d.Opt = opt
			return d, nil
		}
	}
	d := r.compare(ctx, c, c.Query.SQL(), true, c.Query.Ordered())
	if d == nil && r.SR.Leaked() != 0 {
		d = &Divergence{Case: c, SQL: c.Query.SQL(), Kind: "leak", IsQuery: true,
			Msg: fmt.Sprintf("stablerow left %d bytes allocated after the case", r.SR.Leaked())}
	}
	if d != nil {
		d.Opt = opt
	}
	return d, nil
}

func (r *Runner) compare(ctx context.Context, c *Case, sql string, query, ordered bool) *Divergence {
	pg := r.PG.Run(ctx, sql, query)
	sr := r.SR.Run(ctx, sql, query)
	msg := Diff(pg, sr, ordered)
	if msg != "" && ordered && cutsTies(sql) && pg.Err == nil && sr.Err == nil && rowsEqual(zeroUnsigned(pg.Rows), zeroUnsigned(sr.Rows)) {
		// -0 = 0 in PostgreSQL's float ordering, so ORDER BY ties them
		// and a LIMIT or OFFSET keeps whichever of the tied rows the
		// engine's sort left first: PostgreSQL kept six -0 of twelve
		// tied zeros, stablerow seven (seed 20261240 case 53097).
		msg = ""
	}
	if msg == "" {
		if pg.Err != nil && sr.Err != nil {
			if r.BothRaised == nil {
				r.BothRaised = map[string]int{}
			}
			r.BothRaised[pg.SQLState]++
		}
		return nil
	}
	d := &Divergence{Case: c, SQL: sql, Msg: msg, PG: pg, SR: sr, IsQuery: query, Ordered: ordered, Kind: kindOf(pg, sr, msg, query)}
	d.Open = openClassOf(d)
	again := func(sql string) *Outcome { return r.SR.Run(ctx, sql, true) }
	for _, k := range knownDivergences {
		if k.Match(d, again) {
			d.Known = k.Name
			break
		}
	}
	return d
}

func kindOf(pg, sr *Outcome, msg string, query bool) string {
	where := "setup"
	if query {
		where = "query"
	}
	head, _, _ := strings.Cut(msg, ":")
	switch {
	case strings.HasPrefix(msg, "stablerow panicked"):
		head = "stablerow panicked"
	case pg.Err != nil:
		head = "PostgreSQL raised " + pg.SQLState + ", stablerow did not"
	case sr.Err != nil:
		// The error's first two layers ("exec: less", "sql:
		// unsupported") tell the classes apart.
		// A per-column prefix (column "c1": ...) names no class.
		text := sr.Err.Error()
		if strings.HasPrefix(text, "column ") {
			if _, rest, ok := strings.Cut(text, ": "); ok {
				text = rest
			}
		}
		parts := strings.SplitN(text, ":", 3)
		head = "stablerow raised " + strings.Join(parts[:min(2, len(parts))], ":")
	case strings.HasPrefix(msg, "rows differ"):
		head = "rows differ"
	}
	return where + ": " + head
}

// Report renders a divergence for a person: what differs, both outcomes,
// the stablerow configuration and a ready-to-paste .slt reproducer.
func (d *Divergence) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "DIVERGENCE [%s]", d.Kind)
	if d.Known != "" {
		fmt.Fprintf(&b, " (known: %s)", d.Known)
	}
	if d.Open != "" {
		fmt.Fprintf(&b, " (open bug class: %s)", d.Open)
	}
	fmt.Fprintf(&b, "\n  statement: %s\n  %s\n", d.SQL, strings.ReplaceAll(strings.TrimRight(d.Msg, "\n"), "\n", "\n  "))
	if d.PG != nil {
		fmt.Fprintf(&b, "  PostgreSQL: %s\n  stablerow:  %s\n", indent(d.PG.String()), indent(d.SR.String()))
	}
	fmt.Fprintf(&b, "  stablerow options: batch=%d noindex=%v\n", d.Opt.BatchSize, d.Opt.DisableIndexes)
	b.WriteString("  reproducer (.slt, expected = PostgreSQL's answer):\n\n")
	b.WriteString(d.SLT())
	return b.String()
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }
