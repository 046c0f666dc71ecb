package tpcds

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/stablerow/stablerow/bench/tpch"
)

// Diff compares stablerow's answer with DuckDB's ("": equal). A query
// whose ORDER BY ends it is compared row by row first (tpch.Diff: numbers
// within the coarser printed scale, CHAR(n)'s blanks ignored); rows that
// differ only in order are still equal, since ORDER BY need not order
// totally (ties are in either engine's order) — the report says so. Any
// other query is compared as a bag of rows.
func Diff(got, want *tpch.Answer, ordered bool) (diff string, reordered bool) {
	if ordered {
		if d := tpch.Diff(got, want); d == "" {
			return "", false
		}
	}
	if len(got.Rows) != len(want.Rows) {
		return fmt.Sprintf("%d rows, want %d", len(got.Rows), len(want.Rows)), false
	}
	g, w := sortedRows(got), sortedRows(want)
	for i := range g {
		if len(g[i]) != len(w[i]) {
			return fmt.Sprintf("%d columns, want %d", len(g[i]), len(w[i])), false
		}
		for c := range g[i] {
			if !tpch.CellEqual(g[i][c], w[i][c]) {
				return fmt.Sprintf("row %v not in DuckDB's answer (sorted row %d column %d: %q, want %q)",
					g[i], i+1, c+1, g[i][c], w[i][c]), false
			}
		}
	}
	return "", ordered
}

// sortedRows are an answer's rows in a canonical order: by each cell's
// key (numbers by value rounded to 2 places, text without trailing blanks).
func sortedRows(a *tpch.Answer) [][]string {
	rows := slices.Clone(a.Rows)
	slices.SortFunc(rows, func(x, y []string) int {
		for c := range min(len(x), len(y)) {
			if r := cmpCell(x[c], y[c]); r != 0 {
				return r
			}
		}
		return len(x) - len(y)
	})
	return rows
}

func cmpCell(a, b string) int {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 == nil && err2 == nil {
		x, y = math.Round(x*100), math.Round(y*100)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return strings.Compare(strings.TrimRight(a, " "), strings.TrimRight(b, " "))
}

// charPadded are the queries whose answers differ from DuckDB's only by
// CHAR(n) padding inside a value: stablerow writes a CHAR(n) value
// blank-padded where PostgreSQL's bpchar output function does (concat of
// a CHAR(n) column, and coalesce(c, ”) is CHAR(n) there), DuckDB has no
// padding. They are compared with every blank removed from both answers,
// the reason given here.
var charPadded = map[string]string{
	"Q84": "concat(concat(coalesce(c_last_name, ''), ', '), coalesce(c_first_name, '')) over CHAR(30) and CHAR(20): PostgreSQL pads both names",
}

// withoutBlanks is a copy of a with every blank removed from its cells.
func withoutBlanks(a *tpch.Answer) *tpch.Answer {
	out := &tpch.Answer{Columns: a.Columns, Rows: make([][]string, len(a.Rows))}
	for i, r := range a.Rows {
		out.Rows[i] = make([]string, len(r))
		for c, v := range r {
			out.Rows[i][c] = strings.ReplaceAll(v, " ", "")
		}
	}
	return out
}
