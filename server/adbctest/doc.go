// Package adbctest tests stablerow's Flight SQL server (package server)
// end to end with an outside client, the ADBC Go Flight SQL driver. It is
// a nested module so the library's go.mod does not carry ADBC.
package adbctest
