package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/stablerow/stablerow/engine"
)

// printResult writes a result as an aligned text table (at most maxRows
// rows; the rest are counted).
func printResult(w io.Writer, res *engine.Result, maxRows int) {
	if res.Schema == nil || res.Schema.NumFields() == 0 {
		fmt.Fprintf(w, "ok (%d rows affected)\n", res.RowsAffected)
		return
	}
	head := make([]string, res.Schema.NumFields())
	for i, f := range res.Schema.Fields() {
		head[i] = f.Name
	}
	var rows [][]string
	total := 0
	for _, b := range res.Batches {
		for r := 0; r < int(b.NumRows()); r++ {
			total++
			if len(rows) >= maxRows {
				continue
			}
			row := make([]string, b.NumCols())
			for c := range row {
				col := b.Column(c)
				if col.IsNull(r) {
					row[c] = "NULL"
				} else {
					row[c] = col.ValueStr(r)
				}
			}
			rows = append(rows, row)
		}
	}
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i, v := range r {
			width[i] = max(width[i], utf8.RuneCountInString(v))
		}
	}
	line := func(vals []string) {
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = v + strings.Repeat(" ", width[i]-utf8.RuneCountInString(v))
		}
		fmt.Fprintln(w, " "+strings.Join(parts, " | "))
	}
	line(head)
	sep := make([]string, len(head))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
	}
	fmt.Fprintln(w, "-"+strings.Join(sep, "-+-")+"-")
	for _, r := range rows {
		line(r)
	}
	if total > len(rows) {
		fmt.Fprintf(w, "... %d more rows\n", total-len(rows))
	}
	fmt.Fprintf(w, "(%d rows)\n", total)
}
