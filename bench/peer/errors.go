package peer

import "errors"

var (
	// ErrMismatch marks a differential check failure: two engines returned
	// different rows for the same query.
	ErrMismatch = errors.New("peer: engines disagree")
	// ErrInvalidArgument marks bad caller input (sizes, empty tables).
	ErrInvalidArgument = errors.New("peer: invalid argument")
	// ErrUnexpectedSchema marks a result whose columns are not the ones the
	// query asked for.
	ErrUnexpectedSchema = errors.New("peer: unexpected result schema")
)
