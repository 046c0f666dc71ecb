// Package adbctest tests stablerow's Flight SQL server (package server)
// end to end with an outside client, the ADBC Go Flight SQL driver. It is
// a nested module so the library's go.mod does not carry ADBC.
//
// "Partition" in these tests is ADBC's word (ExecutePartitions,
// ReadPartition): one endpoint of a take the server splits into several
// (server/takesplit.go), which the server itself calls an endpoint.
package adbctest
