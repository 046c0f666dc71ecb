package duck

import "errors"

var (
	// ErrDuckDB marks an error DuckDB reported (open, query, append).
	ErrDuckDB = errors.New("duck: duckdb error")
	// ErrUnexpectedType marks a result column of a type this package does
	// not read.
	ErrUnexpectedType = errors.New("duck: unexpected column type")
	// ErrClosed marks use of a closed DB.
	ErrClosed = errors.New("duck: database closed")
)
