// Package fuzzseed regenerates the seed corpora that fuzz targets commit
// under testdata/fuzz/<Target>/, in the file format of `go test -fuzz`.
//
// A package's corpus test calls Skip(t) first, so the corpora are only
// rewritten on request (STABLEROW_WRITE_CORPUS=1 go test -run Corpus ./pkg).
package fuzzseed
