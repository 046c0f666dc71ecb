package tpch

import (
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/stablerow/stablerow/value"
)

// Answer is a query result as text, one []string a row: integers and
// decimals in plain decimal notation, floats in shortest form, dates as
// YYYY-MM-DD, NULL as "NULL". Both engines' results are read into it and
// compared with Equal.
type Answer struct {
	Columns []string
	Rows    [][]string
}

// appendArrow adds a batch's rows.
func (a *Answer) appendArrow(b arrow.RecordBatch) error {
	n := int(b.NumRows())
	base := len(a.Rows)
	for range n {
		a.Rows = append(a.Rows, make([]string, b.NumCols()))
	}
	for c := range int(b.NumCols()) {
		col := b.Column(c)
		for i := range n {
			s, err := arrowText(col, i)
			if err != nil {
				return fmt.Errorf("column %s: %w", b.ColumnName(c), err)
			}
			a.Rows[base+i][c] = s
		}
	}
	return nil
}

// arrowText is a stablerow value as PostgreSQL's text output
// (value.Text), the form DuckDB's values are brought to below.
func arrowText(col arrow.Array, i int) (string, error) {
	if col.IsNull(i) {
		return "NULL", nil
	}
	if s, ok := value.Text(col, i); ok {
		return s, nil
	}
	return "", fmt.Errorf("%w: %s", ErrUnexpectedType, col.DataType())
}

// readSQL reads DuckDB's rows through database/sql.
func readSQL(rows *sql.Rows) (*Answer, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	a := &Answer{Columns: cols}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			s, err := goText(v)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", cols[i], err)
			}
			row[i] = s
		}
		a.Rows = append(a.Rows, row)
	}
	return a, rows.Err()
}

// goText is a DuckDB value as PostgreSQL's text output of the same SQL
// value, through value's formatting where the type has one (floats,
// numerics, dates, booleans), so both engines' answers are written alike.
func goText(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int16:
		return strconv.FormatInt(int64(x), 10), nil
	case int8:
		return strconv.FormatInt(int64(x), 10), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case float64:
		return value.FormatFloat(x, 64), nil
	case float32:
		return value.FormatFloat(float64(x), 32), nil
	case *big.Int:
		return x.String(), nil
	case duckdb.Decimal:
		return value.FormatBigDecimal(x.Value, int32(x.Scale)), nil
	case time.Time:
		// DuckDB's DATE is midnight UTC of the day.
		days := x.Unix() / 86400
		if x.Unix()%86400 < 0 {
			days--
		}
		return value.FormatDate(int32(days)), nil
	case string:
		return x, nil
	case bool:
		return value.FormatBool(x), nil
	}
	return "", fmt.Errorf("%w: Go %T", ErrUnexpectedType, v)
}

// Diff compares got with want row by row (the queries order their rows
// totally) and says where they first differ ("" : equal). Numbers are
// equal when they agree to the coarser of the two printed scales (a
// numeric of scale 2 against DuckDB's double average is equal when the
// double rounds to it; a number printed without a point implies no
// rounding), with a relative 1e-12 for doubles on both sides.
func Diff(got, want *Answer) string {
	if len(got.Rows) != len(want.Rows) {
		return fmt.Sprintf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for r := range got.Rows {
		g, w := got.Rows[r], want.Rows[r]
		if len(g) != len(w) {
			return fmt.Sprintf("row %d: %d columns, want %d", r+1, len(g), len(w))
		}
		for c := range g {
			if !cellEqual(g[c], w[c]) {
				name := ""
				if c < len(want.Columns) {
					name = want.Columns[c]
				}
				return fmt.Sprintf("row %d column %d (%s): %q, want %q", r+1, c+1, name, g[c], w[c])
			}
		}
	}
	return ""
}

func cellEqual(a, b string) bool {
	// CHAR(n) (DDLSpec): stablerow shows it blank-padded to n, as
	// PostgreSQL does; DuckDB's CHAR(n) is VARCHAR, never padded.
	if a == b || strings.TrimRight(a, " ") == strings.TrimRight(b, " ") {
		return true
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	tol := 1e-12 * max(1, math.Abs(x), math.Abs(y))
	if s := min(scaleOf(a), scaleOf(b)); s < 12 {
		tol = max(tol, 0.5*math.Pow10(-s)+1e-12*math.Abs(x))
	}
	return math.Abs(x-y) <= tol
}

// scaleOf is the number of digits after the point a number is printed
// with; 99 when it has no point (an integer, or a double that happens to
// be whole: no rounding is implied) or an exponent.
func scaleOf(s string) int {
	if strings.ContainsAny(s, "eE") {
		return 99
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 99
}
