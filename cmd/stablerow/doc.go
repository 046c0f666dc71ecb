// Command stablerow is the CLI of the stablerow library.
//
//	stablerow demo -d DIR            run the main job on an embedded local table
//	stablerow sql -d DIR [-e SQL]    run SQL (interactive prompt without -e; -create makes DIR)
//	stablerow substrait -f PLAN      run a Substrait plan (JSON or binary); -emit SQL prints one
//	stablerow inspect PATH           describe a table, a database or a .rowmap file
//	stablerow vacuum -d DIR          remove files no version references
//	stablerow serve -d DIR           serve Arrow Flight SQL (-addr, default 127.0.0.1:31337)
//	stablerow version                the build (also --version)
//
// Exit status: 0 success; 1 the statement failed (bad input, unsupported,
// not found, out of range); 2 bad command line; 3 corrupt data on disk;
// 4 a concurrent commit won (retry); 70 an internal error (a bug: the
// details are printed with -debug or STABLEROW_DEBUG=1).
package main
