package engine

import "errors"

// Sentinel errors; test with errors.Is.
var (
	ErrUnknownTable = errors.New("engine: unknown table")
	ErrTableExists  = errors.New("engine: table already exists")
	ErrUnsupported  = errors.New("engine: unsupported")
	ErrParam        = errors.New("engine: bad parameter")
	ErrIndex        = errors.New("engine: index error")
)
