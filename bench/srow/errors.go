package srow

import "errors"

// ErrUnexpectedSchema marks a result whose columns are not the ones the
// query selects.
var ErrUnexpectedSchema = errors.New("srow: unexpected result schema")
