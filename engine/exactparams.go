package engine

import (
	"context"
	"fmt"
	"strconv"

	"github.com/stablerow/stablerow/errkind"
	"github.com/stablerow/stablerow/sql"
)

// ErrExtraParam: a value bound by position to a parameter the statement
// does not have (a Flight SQL client that bound three columns to a
// statement of two parameters). Silently dropping it would hide the
// client's mistake: the statement would run with other values than meant.
var ErrExtraParam = errkind.New(errkind.InvalidArgument, "engine: value bound to no parameter")

type exactParamsKey struct{}

// WithExactParams makes every statement of ctx refuse positional values
// ("1", "2", ... of PositionalParams) past its own parameters with
// ErrExtraParam. Each statement of a script is checked, so a caller that
// binds this way sends one statement's parameters with one statement (the
// Flight SQL server: a prepared statement is one statement).
func WithExactParams(ctx context.Context) context.Context {
	return context.WithValue(ctx, exactParamsKey{}, true)
}

// checkExtraParams refuses, under WithExactParams, a positional value past
// q's parameters. PositionalParams numbers values from 1 without gaps, so
// the one after the last parameter is the first extra one.
func checkExtraParams(ctx context.Context, q *sql.Query, params map[string]any) error {
	if ctx.Value(exactParamsKey{}) == nil {
		return nil
	}
	n := len(q.ParamNames)
	if _, ok := params[strconv.Itoa(n+1)]; ok {
		extra := 0
		for k := n + 1; ; k++ {
			if _, ok := params[strconv.Itoa(k)]; !ok {
				break
			}
			extra++
		}
		return fmt.Errorf("%w: %d values bound, the statement has %d parameters ($%d on is extra)", ErrExtraParam, n+extra, n, n+1)
	}
	return nil
}
