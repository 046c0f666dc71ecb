package tpch

import (
	"embed"
	"fmt"
	"strconv"
	"strings"
)

//go:embed queries/*.sql
var queryFiles embed.FS

// Query is one of the 22 queries with its substitution parameters bound.
type Query struct {
	N    int    // 1..22
	Name string // "Q1"
	SQL  string
}

// Queries are the 22 queries as run at scale factor sf: the validation
// run's parameters (TPC-H 2.4.x.3), with Q11's FRACTION 0.0001/SF as 2.4.11.3
// prescribes. Q15's view is written as a CTE (variant A of 2.4.15 allows
// the equivalent). Q3, Q10, Q11 and Q18 end their ORDER BY with the key, so
// the rows kept by LIMIT and their order are the same in both engines
// when revenues tie.
func Queries(sf float64) ([]Query, error) {
	qs := make([]Query, 0, 22)
	for n := 1; n <= 22; n++ {
		b, err := queryFiles.ReadFile(fmt.Sprintf("queries/q%02d.sql", n))
		if err != nil {
			return nil, err
		}
		text := strings.ReplaceAll(string(b), "{FRACTION}", strconv.FormatFloat(0.0001/sf, 'f', -1, 64))
		qs = append(qs, Query{N: n, Name: fmt.Sprintf("Q%d", n), SQL: text})
	}
	return qs, nil
}
