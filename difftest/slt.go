package difftest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stablerow/stablerow/engine"
	"github.com/stablerow/stablerow/sqltest"
)

// The reproducers and the regression files are sqllogictest records in
// the sqltest package's format and conventions (one letter per column:
// I, R, T, B; NULL; (empty) for ''; booleans true/false), so a fixed case
// can move to testdata/sql unchanged. Two differences from sqltest's
// runner: floats print as PostgreSQL does (value.FormatFloat), and the
// expected answer is PostgreSQL's, produced by running PostgreSQL.

func typeLetter(c TypeClass) string {
	switch c {
	case ClassInt:
		return "I"
	case ClassFloat:
		return "R"
	case ClassBool:
		return "B"
	}
	return "T"
}

// sltLine renders a row in sqltest's conventions.
func sltLine(r []*string, cols []TypeClass) string {
	xs := make([]string, len(r))
	for i, v := range r {
		switch {
		case v == nil:
			xs[i] = "NULL"
		case *v == "":
			xs[i] = "(empty)"
		case i < len(cols) && cols[i] == ClassBool:
			xs[i] = map[string]string{"t": "true", "f": "false"}[*v]
		default:
			xs[i] = *v
		}
	}
	return strings.TrimRight(strings.Join(xs, " "), " ")
}

func sltLines(o *Outcome, rowsort bool) []string {
	var out []string
	for _, r := range o.Rows {
		out = append(out, sltLine(r, o.Cols))
	}
	if rowsort {
		slices.Sort(out)
	}
	return out
}

// SLT is d's case as a .slt file whose expected output is PostgreSQL's:
// the setup up to the statement that diverged, then that statement. A
// setup statement whose rows-affected differ is followed by a dump of
// the tables, as PostgreSQL has them.
func (d *Divergence) SLT() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# difftest: %s\n# stablerow options: batch=%d noindex=%v\n", d.Kind, d.Opt.BatchSize, d.Opt.DisableIndexes)
	for _, s := range d.Case.Setup() {
		if !d.IsQuery && s == d.SQL {
			break
		}
		fmt.Fprintf(&b, "\nstatement ok\n%s\n", s)
	}
	if d.PG == nil {
		fmt.Fprintf(&b, "\n# (no PostgreSQL answer recorded)\n%s\n", d.SQL)
		return b.String()
	}
	if d.PG.Err != nil {
		fmt.Fprintf(&b, "\n# PostgreSQL: %s %s\nstatement error\n%s\n", d.PG.SQLState, d.PG.Err, d.SQL)
		return b.String()
	}
	if !d.IsQuery {
		fmt.Fprintf(&b, "\nstatement ok\n%s\n", d.SQL)
		for _, t := range d.Dumps {
			writeQuery(&b, t.SQL, t.Out, false)
		}
		return b.String()
	}
	writeQuery(&b, d.SQL, d.PG, !d.Case.Query.Ordered())
	return b.String()
}

func writeQuery(b *strings.Builder, sql string, o *Outcome, rowsort bool) {
	var types string
	for _, c := range o.Cols {
		types += typeLetter(c)
	}
	sortMode := ""
	if rowsort {
		sortMode = " rowsort"
	}
	fmt.Fprintf(b, "\nquery %s%s\n%s\n----\n", types, sortMode, sql)
	for _, l := range sltLines(o, rowsort) {
		b.WriteString(l + "\n")
	}
}

// Dump is a table's content as PostgreSQL has it, for setup reproducers.
type Dump struct {
	SQL string
	Out *Outcome
}

// dumpTables reads every table of c from PostgreSQL (after a setup
// divergence, for the reproducer).
func (r *Runner) dumpTables(ctx context.Context, c *Case) []Dump {
	var out []Dump
	for _, t := range c.Tables {
		q := "SELECT * FROM " + t.Name + " ORDER BY k"
		if o := r.PG.Run(ctx, q, true); o.Err == nil {
			out = append(out, Dump{q, o})
		}
	}
	return out
}

// RegressionFailure is a regression record stablerow (or PostgreSQL, if
// the file went stale) does not answer as the file says.
type RegressionFailure struct {
	File string
	Line int
	Msg  string
}

func (f RegressionFailure) String() string { return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Msg) }

// RunRegressions runs every dir/*.slt on both sides from empty databases:
// PostgreSQL must still give the recorded answer (else the file is stale)
// and stablerow must give it too.
//
// With rewrite, query records get PostgreSQL's answer (types and rows) as
// their expected output and the files are written back: review the diff
// by hand before committing, as with sqltest's -rewrite.
func (r *Runner) RunRegressions(ctx context.Context, dir string, opt engine.Options, rewrite bool) (n int, fails []RegressionFailure, err error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.slt"))
	if err != nil {
		return 0, nil, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return n, fails, err
		}
		recs, err := sqltest.Parse(strings.NewReader(string(data)))
		if err != nil {
			return n, fails, fmt.Errorf("difftest: %s: %w", f, err)
		}
		if err := r.PG.Reset(ctx); err != nil {
			return n, fails, err
		}
		r.SR.Opt = opt
		r.SR.Reset(ctx)
		for _, rec := range recs {
			if rec.Kind == sqltest.KindBind {
				continue
			}
			n++
			query := rec.Kind == sqltest.KindQuery && !rec.Error
			// An expected error of a SELECT: run it as a query so a
			// wrong answer shows its rows.
			shows := query || (rec.Error && strings.HasPrefix(strings.ToUpper(strings.TrimSpace(rec.SQL)), "SELECT"))
			pg := r.PG.Run(ctx, rec.SQL, shows)
			sr := r.SR.Run(ctx, rec.SQL, shows)
			fail := func(msg string) { fails = append(fails, RegressionFailure{filepath.Base(f), rec.Line, msg}) }
			if rec.Error {
				if pg.Err == nil {
					fail("stale: PostgreSQL no longer raises")
				}
				if sr.Err == nil {
					fail("stablerow does not raise (PostgreSQL: " + pg.SQLState + " " + errText(pg.Err) + "); stablerow: " + sr.String())
				}
				continue
			}
			if !query {
				if pg.Err != nil {
					fail("stale: PostgreSQL raises " + pg.SQLState + " " + pg.Err.Error())
				}
				if sr.Err != nil {
					fail("stablerow raises: " + sr.Err.Error())
				}
				continue
			}
			if pg.Err == nil && rewrite {
				var types string
				for _, c := range pg.Cols {
					types += typeLetter(c)
				}
				rec.Types, rec.Expect = types, sltLines(pg, rec.RowSort)
				rec.Header = "query " + types
				if rec.RowSort {
					rec.Header += " rowsort"
				}
			}
			if pg.Err == nil {
				if got := sltLines(pg, rec.RowSort); !slices.Equal(got, rec.Expect) {
					fail("stale: PostgreSQL now answers\n" + strings.Join(got, "\n"))
				}
			} else {
				fail("stale: PostgreSQL raises " + pg.SQLState + " " + pg.Err.Error())
			}
			switch {
			case sr.Err != nil:
				fail("stablerow raises: " + sr.Err.Error())
			case len(sr.Cols) != len(rec.Types):
				fail(fmt.Sprintf("stablerow returns %d columns, the record %d", len(sr.Cols), len(rec.Types)))
			default:
				var types string
				for _, c := range sr.Cols {
					types += typeLetter(c)
				}
				got := sltLines(sr, rec.RowSort)
				if types != rec.Types || !slices.Equal(got, rec.Expect) {
					fail(fmt.Sprintf("stablerow answers (types %s, want %s)\n%s\nwant (PostgreSQL)\n%s", types, rec.Types,
						strings.Join(got, "\n"), strings.Join(rec.Expect, "\n")))
				}
			}
		}
		if rewrite {
			var b strings.Builder
			if err := sqltest.Format(&b, recs); err != nil {
				return n, fails, err
			}
			if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
				return n, fails, err
			}
		}
	}
	return n, fails, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
