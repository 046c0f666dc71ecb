package tpch

import (
	"database/sql"

	"github.com/apache/arrow-go/v18/arrow"
)

// AppendArrow adds a stablerow batch's rows to the answer, as text (for
// the other benchmarks that compare answers the same way: bench/tpcds).
func (a *Answer) AppendArrow(b arrow.RecordBatch) error { return a.appendArrow(b) }

// ReadSQL reads DuckDB's rows through database/sql into an answer.
func ReadSQL(rows *sql.Rows) (*Answer, error) { return readSQL(rows) }

// CellEqual reports whether two cells of an answer are the same value:
// text equal up to CHAR(n)'s trailing blanks, numbers within the
// coarser printed scale (Diff's rule).
func CellEqual(a, b string) bool { return cellEqual(a, b) }
