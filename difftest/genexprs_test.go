package difftest

import (
	"strings"
	"testing"
)

// TestGeneratorCoversScalarExprs: the generated cases exercise every
// expression of issue 18, in every type it has, so 2000 cases of a run
// compare each against PostgreSQL many times.
func TestGeneratorCoversScalarExprs(t *testing.T) {
	seen := map[string]int{}
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e == nil {
			return
		}
		key := e.Op
		switch e.Op {
		case "fn", "trim":
			key += ":" + e.Text
		case "like", "ilike", "notlike", "notilike":
			if strings.HasPrefix(e.Text, "ESCAPE") {
				seen["escape"]++
			}
		}
		if e.Op == "case" || e.Op == "coalesce" || e.Op == "nullif" {
			key += ":" + e.Type.SQL()
		}
		seen[key]++
		for _, a := range e.Args {
			walk(a)
		}
	}
	for i := 0; i < 2000; i++ {
		c := caseGen(1, i).Case()
		q := c.Query
		for _, e := range q.Select {
			walk(e)
		}
		walk(q.Where)
		for _, o := range q.OrderBy {
			walk(o.E)
		}
		for _, es := range c.DMLExprs {
			for _, e := range es {
				walk(e)
			}
		}
	}
	var missing []string
	for _, k := range []string{
		"case:BIGINT", "case:DOUBLE PRECISION", "case:TEXT", "case:BOOLEAN",
		"coalesce:BIGINT", "coalesce:DOUBLE PRECISION", "coalesce:TEXT", "coalesce:BOOLEAN",
		"nullif:BIGINT", "nullif:DOUBLE PRECISION", "nullif:TEXT", "nullif:BOOLEAN",
		"distinct", "notdistinct", "like", "ilike", "notlike", "notilike", "escape", "concat", "position",
		"fn:lower", "fn:upper", "fn:length", "fn:char_length", "fn:substr", "fn:substring", "fn:substring_from",
		"trim:both", "trim:leading", "trim:trailing", "trim:btrim", "trim:ltrim", "trim:rtrim",
		"fn:replace", "fn:strpos", "fn:abs", "fn:mod", "fn:round", "fn:floor", "fn:ceil", "fn:ceiling",
		"fn:sqrt", "fn:power", "fn:pow",
	} {
		if seen[k] < 2 {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("generated less than twice in 2000 cases: %v", missing)
	}
}

// TestGeneratorDrawsNumericQuotients: numeric / and avg(numeric) are
// drawn (as whole select items, normalization 8) often enough that a run
// of 400 cases compares over a dozen against PostgreSQL (counted over
// 1600, so that a change elsewhere in the draws does not move a count
// past its bound by chance: 4 against 5 in 400, then 38 against 40 in 800
// once the draws of joins of many tables, DISTINCT ON and USING came in).
func TestGeneratorDrawsNumericQuotients(t *testing.T) {
	div, avg := 0, 0
	for i := 0; i < 1600; i++ {
		for _, e := range caseGen(1, i).Case().Query.Select {
			switch {
			case e.Op == "bin" && e.Text == "/" && e.Type == TNumeric:
				div++
			case e.Op == "agg" && e.Text == "avg" && e.Type == TNumeric:
				avg++
			}
		}
	}
	if div < 60 || avg < 12 {
		t.Fatalf("1600 cases draw %d numeric quotients and %d avg(numeric), want at least 60 and 12", div, avg)
	}
	t.Logf("1600 cases: %d numeric quotients, %d avg(numeric)", div, avg)
}

// TestGeneratorDrawsSharedCTEs: self joins through a CTE read twice (the
// shared subplan) are drawn, filtered and not, in plain queries and as
// the left side of set operations, and the SQL names the CTE on both
// sides of the join.
func TestGeneratorDrawsSharedCTEs(t *testing.T) {
	ctes, filtered, inSet, values := 0, 0, 0, 0
	for i := 0; i < 2000; i++ {
		q := caseGen(1, i).Case().Query
		if q.CTE == nil {
			continue
		}
		ctes++
		if q.CTE.Where != nil {
			filtered++
		}
		if q.Set != nil {
			inSet++
		}
		from := q.CTE.Table
		if q.CTE.Values != nil { // genvalues.go: the table's rows as a VALUES list
			values++
			from = "(VALUES (CAST("
		}
		sql := q.SQL()
		if !strings.HasPrefix(sql, "WITH "+q.CTE.Name+" AS (SELECT DISTINCT * FROM "+from) ||
			!strings.Contains(sql, q.CTE.Name+" AS a") || !strings.Contains(sql, q.CTE.Name+" AS b") {
			t.Fatalf("case %d: the CTE is not read by both sides: %s", i, sql)
		}
	}
	if ctes < 20 || filtered < 5 || inSet < 1 || values < 5 {
		t.Fatalf("2000 cases draw %d CTEs (%d filtered, %d in set operations, %d over VALUES), want at least 20, 5, 1 and 5", ctes, filtered, inSet, values)
	}
	t.Logf("2000 cases: %d CTEs, %d filtered, %d in set operations, %d over VALUES", ctes, filtered, inSet, values)
}
