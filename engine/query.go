package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/stablerow/stablerow/sql"
)

// Exec runs every statement of script in order and returns the result of
// the last one read to the end: a convenience for small results, built on
// Query (use Query to stream). params binds :name parameters by name (and
// $k ones by "k"; a :name bound by no name is bound by its position "k").
func (db *DB) Exec(ctx context.Context, script string, params map[string]any) (*Result, error) {
	rows, err := db.Query(ctx, script, params)
	if err != nil {
		return nil, err
	}
	return rows.collect()
}

// Query runs the statements of script in order and returns the rows of the
// last one as a stream; each earlier statement runs to completion first
// (its rows are read and dropped), and the first that fails stops the
// script. The caller must Close the Rows. To see every statement's result,
// cut the script with SplitStatements and Query each piece.
//
// The script runs in a session of its own (NewSession): BEGIN ... COMMIT
// inside it is a transaction. A script that ends inside a block is rolled
// back and is ErrUnsupported: a client sending BEGIN alone (a server's
// statement per call) would otherwise get an answer that promises a
// transaction its next call does not run in. Keep a Session for that.
//
// An error of a script of several statements names the statement and its
// line; every error keeps its identity (errors.Is with the package
// sentinels and errkind), and a panic comes back as an *InternalError.
func (db *DB) Query(ctx context.Context, script string, params map[string]any) (*Rows, error) {
	s := db.NewSession()
	defer s.Close()
	return s.endScript(s.Query(ctx, script, params))
}

// endScript refuses the result of a session-less script that left a
// transaction block open (DB.Query): the block is rolled back by Close.
func (s *Session) endScript(rows *Rows, err error) (*Rows, error) {
	if err != nil || s.tx == nil {
		return rows, err
	}
	rows.Close()
	return nil, fmt.Errorf("%w: the statements end inside a transaction block, which was rolled back: each call runs in a session of its own (keep an engine.Session to run a block over several calls)", ErrInTransaction)
}

// Query is DB.Query in the session: its statements run in the session's
// transaction, if one is open or the script opens one.
func (s *Session) Query(ctx context.Context, script string, params map[string]any) (*Rows, error) {
	if i := strings.IndexByte(script, 0); i >= 0 {
		// The parser reads C strings: text after a NUL would be dropped
		// unseen. PostgreSQL refuses NUL in query text too.
		return nil, s.fail(fmt.Errorf("%w: NUL byte at line %d", sql.ErrSyntax, 1+strings.Count(script[:i], "\n")))
	}
	stmts, rest := SplitStatements(script)
	if rest.Text != "" {
		stmts = append(stmts, rest)
	}
	if len(stmts) == 0 {
		return nil, s.fail(fmt.Errorf("%w: empty statement", sql.ErrSyntax))
	}
	if len(stmts) > 1 {
		// Nothing runs unless the whole script parses.
		if err := CheckSyntax(stmts); err != nil {
			return nil, s.fail(err)
		}
	}
	last := len(stmts) - 1
	for i, st := range stmts[:last] {
		rows, err := s.queryOne(ctx, st, params)
		if err == nil {
			err = rows.drain()
		}
		if err != nil {
			return nil, st.Err(i, err)
		}
	}
	rows, err := s.queryOne(ctx, stmts[last], params)
	if err != nil && last > 0 {
		err = stmts[last].Err(last, err)
	}
	return rows, err
}

// Exec is DB.Exec in the session.
func (s *Session) Exec(ctx context.Context, script string, params map[string]any) (*Result, error) {
	rows, err := s.Query(ctx, script, params)
	if err != nil {
		return nil, err
	}
	return rows.collect()
}

// QueryStatement runs one statement SplitStatements cut from a script and
// returns its rows (the caller must Close them). Its errors name positions
// in the whole script, as Query's do. It runs in a session of its own, so
// BEGIN alone is refused as Query refuses it: use Session.QueryStatement.
func (db *DB) QueryStatement(ctx context.Context, st Statement, params map[string]any) (*Rows, error) {
	s := db.NewSession()
	defer s.Close()
	return s.endScript(s.QueryStatement(ctx, st, params))
}

// QueryStatement is DB.QueryStatement in the session.
func (s *Session) QueryStatement(ctx context.Context, st Statement, params map[string]any) (*Rows, error) {
	if err := checkNUL(st); err != nil {
		return nil, s.fail(err)
	}
	return s.queryOne(ctx, st, params)
}
