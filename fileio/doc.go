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
// Types map onto the engine's column types (int64, float64, text, bool):
// narrower integers and float4 widen; anything else is a typed
// errkind.Unsupported error naming the column.
package fileio
