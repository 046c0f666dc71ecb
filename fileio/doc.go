// Package fileio reads and writes the files COPY, CREATE TABLE AS and
// read_parquet touch: Parquet (through arrow-go's parquet/pqarrow) and
// PostgreSQL-style CSV, as streams of Arrow batches whose memory is bounded
// by a batch (a CSV chunk of rows, a Parquet batch read column chunk by
// column chunk), never by the file.
//
// File access is a security boundary once SQL comes from a network client,
// so every open goes through a Policy: Unrestricted for the local CLI and
// the embedded library (the caller's own privileges), or a Root directory
// that every path must stay inside (a Flight SQL server started with
// -files DIR). The zero Policy refuses all file access. Under a Root a
// file is opened relative to the root's descriptor without following any
// symlink (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS on Linux, a
// walk of openat calls with O_NOFOLLOW elsewhere or on older kernels:
// open_linux.go, openat_unix.go), and its type and link count are checked
// on the opened descriptor: a file with a second hard link, which may be
// anywhere, is refused unless Policy.AllowHardLinks.
//
// Types map onto the engine's column types where the engine has the type
// (EngineType, types.go: smallint, integer, bigint, real, double
// precision, date, timestamp, numeric(p, s), text, boolean); other widths
// widen to the nearest type that holds every value (unsigned integers,
// float16, timestamps of another unit, each checked per value where it
// can lose one); anything else is ErrUnsupportedType (errkind.Unsupported)
// naming the column.
//
// ReadParquetExec and ReadCSVExec (node.go, csvnode.go) are the exec
// leaf operators read_parquet and COPY FROM plan, so fileio imports exec
// (Node, Stream, Metrics); a CSV field's text is parsed and printed one
// value at a time by package value (ParseDate, ParseDecimal, FormatFloat,
// ...), as the executor and the front end do.
package fileio
