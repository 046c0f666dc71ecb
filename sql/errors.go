package sql

import (
	"github.com/stablerow/stablerow/errkind"
)

// Sentinels; every error Parse returns wraps one of them (a catalog failure
// other than a missing table wraps the catalog's own error), so callers and
// sqllogictest's "statement error" records can branch with errors.Is.
var (
	// ErrSyntax marks text the Postgres grammar rejects; the message carries
	// the line and column of the offending token in the caller's text.
	ErrSyntax = errkind.Category(errkind.InvalidArgument, "sql: syntax error")
	// ErrUnsupported marks valid Postgres that stablerow does not lower; the
	// message names the construct ("sql: unsupported: GROUP BY").
	ErrUnsupported = errkind.New(errkind.Unsupported, "sql: unsupported")
	// ErrUnknownTable marks a table (or FROM alias) that does not exist. A
	// Catalog reports a missing table by wrapping this sentinel.
	ErrUnknownTable = errkind.Category(errkind.NotFound, "sql: unknown table")
	// ErrUnknownColumn marks a column name that no FROM item provides.
	ErrUnknownColumn = errkind.Category(errkind.InvalidArgument, "sql: unknown column")
	// ErrAmbiguous marks a column name two FROM items provide, a FROM alias
	// used twice, or an ORDER BY name that matches two outputs.
	ErrAmbiguous = errkind.Category(errkind.InvalidArgument, "sql: ambiguous reference")
	// ErrType marks operands or values whose types do not fit (comparing a
	// string with a number, a string literal that is not a valid integer,
	// an INSERT value that cannot be cast to its column).
	ErrType = errkind.Category(errkind.InvalidArgument, "sql: type error")
	// ErrParam marks a bad query parameter: $0, a gap in the numbering,
	// mixing :name with $k, or one parameter used as both a list and a
	// scalar or with two different types.
	ErrParam = errkind.Category(errkind.InvalidArgument, "sql: bad parameter")
	// ErrInvalid marks statements that are well typed but wrong in shape:
	// column counts that do not match, a column named twice, a plain column
	// next to an aggregate without GROUP BY.
	ErrInvalid = errkind.Category(errkind.InvalidArgument, "sql: invalid statement")
	// ErrInvalidColumnReference marks PostgreSQL's SQLSTATE 42P10: SELECT
	// DISTINCT ON expressions that do not match the initial ORDER BY
	// expressions.
	ErrInvalidColumnReference = errkind.Category(errkind.InvalidArgument, "sql: invalid column reference")
	// ErrTooDeep marks a statement that nests deeper than MaxDepth levels
	// (PostgreSQL's "stack depth limit exceeded", SQLSTATE 54001): it is
	// refused before parsing, whose C recursion has no stack check (see
	// depth.go). A program limit the caller can only meet by writing the
	// statement flatter, so InvalidArgument, not Internal.
	ErrTooDeep = errkind.New(errkind.InvalidArgument, "sql: stack depth limit exceeded")
	// ErrInternal marks a bug: a panic inside the lowering or substrait-go,
	// recovered so bad input never crashes the caller. The message never
	// carries the panic's text; the panic and its stack go to the debug log
	// (log/slog at level Debug).
	ErrInternal = errkind.New(errkind.Internal, "sql: internal error")
)
