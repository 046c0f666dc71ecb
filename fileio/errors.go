package fileio

import "github.com/stablerow/stablerow/errkind"

var (
	// ErrDenied: the policy refuses the path (outside the root, absolute
	// under a root, "..", a symlink leading out, or no file access at all).
	ErrDenied = errkind.New(errkind.PermissionDenied, "fileio: file access denied")
	// ErrFormat: the file's bytes are not valid CSV or Parquet, or a value
	// does not parse as its column's type. Messages name the line and column.
	ErrFormat = errkind.New(errkind.InvalidArgument, "fileio: bad file contents")
	// ErrSchema: the file's columns do not fit the target's (count, type).
	ErrSchema = errkind.New(errkind.InvalidArgument, "fileio: schema mismatch")
	// ErrOption: a bad COPY option (format, delimiter, null string).
	ErrOption = errkind.New(errkind.InvalidArgument, "fileio: bad option")
	// ErrUnsupportedType: a column type with no engine type yet.
	ErrUnsupportedType = errkind.New(errkind.Unsupported, "fileio: unsupported column type")
	// ErrNotFound: the file does not exist.
	ErrNotFound = errkind.New(errkind.NotFound, "fileio: no such file")
)
