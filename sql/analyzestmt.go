package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Analyze is ANALYZE [table, ...]: rebuild the tables' statistics (zone
// maps, distinct-count sketches: table.Analyze) as PostgreSQL's ANALYZE
// refreshes pg_statistic; no Tables means every table, as in
// PostgreSQL. It has no result rows.
type Analyze struct {
	Tables []string
}

func (*Analyze) statement() {}

// analyze lowers ANALYZE, which PostgreSQL's grammar parses as a
// VacuumStmt whose is_vacuumcmd is false. Options (VERBOSE,
// SKIP_LOCKED) and column lists are refused: statistics are kept for
// every column at once.
func (l *lowerer) analyze(v *pg_query.VacuumStmt) (Statement, error) {
	for _, o := range v.Options {
		name := "?"
		if d := o.GetDefElem(); d != nil {
			name = strings.ToUpper(d.Defname)
		}
		return nil, fmt.Errorf("%w: ANALYZE option %s", ErrUnsupported, name)
	}
	tables, err := l.vacuumTables(v, "ANALYZE") // maintenance.go
	if err != nil {
		return nil, err
	}
	return &Analyze{Tables: tables}, nil
}
