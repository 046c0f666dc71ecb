package engine

import (
	"errors"

	"github.com/stablerow/stablerow/errkind"
)

// Sentinel errors; test with errors.Is.
var (
	ErrUnknownTable = errkind.New(errkind.NotFound, "engine: unknown table")
	ErrTableExists  = errors.New("engine: table already exists")
	ErrUnsupported  = errkind.New(errkind.Unsupported, "engine: unsupported")
	ErrParam        = errkind.New(errkind.InvalidArgument, "engine: bad parameter")
	ErrIndex        = errors.New("engine: index error")
)
