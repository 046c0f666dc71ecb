// Package s3test holds the tests of s3store that need an S3 server: an
// in-process gofakes3 for the unit tests. It is a module of its own so that
// gofakes3 and its dependencies stay out of the library's go.mod.
package s3test
