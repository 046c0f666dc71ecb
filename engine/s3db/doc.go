// Package s3db lets package engine open s3://bucket/prefix locations:
// importing it (a blank import) registers the "s3" scheme with
// engine.RegisterRemote, backed by package s3store.
//
// It is a package of its own so that engine does not import s3store and
// with it the AWS SDK: a program that opens only local databases (the
// stablerow CLI's query path) then links none of the SDK and pays none of
// its package initialization at start-up.
package s3db
