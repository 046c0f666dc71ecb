// Package vacuumstress runs appends against VACUUM with no grace period,
// the race of issue 26 (VACUUM removed a running INSERT's files and the
// INSERT still reported success), and checks the one promise: every append
// either fails or all of its rows read back. The table package's tests run
// it on local disk and in memory, s3test's against an S3 server.
package vacuumstress
