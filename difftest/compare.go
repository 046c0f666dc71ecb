package difftest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Diff compares PostgreSQL's outcome (the oracle) with stablerow's for one
// statement and says how they differ; "" when they agree. ordered says the
// statement defines its row order; otherwise rows compare as multisets.
//
// Errors compare by class: both fail, or neither. The messages and codes
// differ between the engines and are logged, not compared. A panic on the
// stablerow side is always a divergence, whatever PostgreSQL did.
func Diff(pg, sr *Outcome, ordered bool) string {
	var pe *PanicError
	if errors.As(sr.Err, &pe) {
		return "stablerow panicked: " + pe.Error() + "\n" + pe.Stack
	}
	switch {
	case pg.Err != nil && sr.Err != nil:
		return ""
	case pg.Err != nil:
		return "PostgreSQL raised " + pg.SQLState + " (" + pg.Err.Error() + "), stablerow did not: " + sr.String()
	case sr.Err != nil:
		return "stablerow raised (" + sr.Err.Error() + "), PostgreSQL did not: " + pg.String()
	}
	numericAsStablerow(pg, sr)
	if pg.Cols == nil {
		if pg.Affected != sr.Affected {
			return fmt.Sprintf("rows affected: PostgreSQL %d, stablerow %d", pg.Affected, sr.Affected)
		}
		return ""
	}
	if !slices.Equal(pg.Cols, sr.Cols) {
		return fmt.Sprintf("column types: PostgreSQL %v, stablerow %v", pg.Cols, sr.Cols)
	}
	a, b := pg.Rows, sr.Rows
	if !ordered {
		a, b = sortedRows(a), sortedRows(b)
	}
	if rowsEqual(a, b) {
		return ""
	}
	if ordered && rowsEqual(sortedRows(a), sortedRows(b)) && rowsEqual(zeroUnsigned(a), zeroUnsigned(b)) {
		// The same rows, in the same order but for rows that differ
		// only by the sign of a zero: -0 = 0 in PostgreSQL's float
		// comparison, so an ORDER BY ties them and either order is
		// the statement's (seed 20261233 case 132839).
		return ""
	}
	return "rows differ (- PostgreSQL, + stablerow):\n" + rowDiff(a, b)
}

// cutsTies: the statement has a LIMIT or an OFFSET, which keeps some of
// the rows its ORDER BY ties and drops others.
func cutsTies(sql string) bool {
	up := strings.ToUpper(sql)
	return strings.Contains(up, " LIMIT ") || strings.Contains(up, " OFFSET ")
}

// zeroUnsigned is rs with every "-0" cell read as "0".
func zeroUnsigned(rs [][]*string) [][]*string {
	zero := "0"
	out := make([][]*string, len(rs))
	for i, r := range rs {
		out[i] = slices.Clone(r)
		for c, v := range r {
			if v != nil && *v == "-0" {
				out[i][c] = &zero
			}
		}
	}
	return out
}

func rowKey(r []*string) string {
	var b strings.Builder
	for _, v := range r {
		if v == nil {
			b.WriteString("\x00N")
		} else {
			b.WriteString("\x00V" + *v)
		}
	}
	return b.String()
}

func sortedRows(rs [][]*string) [][]*string {
	out := slices.Clone(rs)
	slices.SortFunc(out, func(x, y []*string) int { return strings.Compare(rowKey(x), rowKey(y)) })
	return out
}

func rowsEqual(a, b [][]*string) bool {
	return slices.EqualFunc(a, b, func(x, y []*string) bool { return rowKey(x) == rowKey(y) })
}

// rowDiff lists both sides row by row, marking the rows that differ.
func rowDiff(a, b [][]*string) string {
	var out strings.Builder
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y []*string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		switch {
		case x != nil && y != nil && rowKey(x) == rowKey(y):
			fmt.Fprintf(&out, "    %s\n", rowText(x))
		default:
			if x != nil {
				fmt.Fprintf(&out, "  - %s\n", rowText(x))
			}
			if y != nil {
				fmt.Fprintf(&out, "  + %s\n", rowText(y))
			}
		}
	}
	return out.String()
}
