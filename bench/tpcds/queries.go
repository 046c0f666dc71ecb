package tpcds

import (
	"embed"
	"fmt"
	"regexp"
)

//go:embed queries/*.sql
var queryFiles embed.FS

// Query is one of the 99 queries.
type Query struct {
	N    int    // 1..99
	Name string // "Q1"
	SQL  string
	// Ordered: the query's ORDER BY fixes the order of its rows (compared
	// in order when it does; as a bag of rows otherwise).
	Ordered bool
}

var orderBy = regexp.MustCompile(`(?is)\border\s+by\b[^()]*$`)

// Queries are the 99 queries as DuckDB publishes them (queries/README.md:
// the qualification substitution parameters already bound).
func Queries() ([]Query, error) {
	qs := make([]Query, 0, 99)
	for n := 1; n <= 99; n++ {
		b, err := queryFiles.ReadFile(fmt.Sprintf("queries/%02d.sql", n))
		if err != nil {
			return nil, err
		}
		qs = append(qs, Query{N: n, Name: fmt.Sprintf("Q%d", n), SQL: string(b), Ordered: orderBy.Match(b)})
	}
	return qs, nil
}
