// Command flightbench measures the seed query through stablerow's Flight
// SQL server (package server) against the same query in process, and the
// throughput of N concurrent Flight SQL clients.
//
//	go run ./cmd/flightbench -rows 10000000 -ids 10000,1000000 -clients 1,4,16
//
// For each table size it builds t(k BIGINT, payload DOUBLE) in a temporary
// directory with an index on _rowid, starts the server in process on a
// loopback port (real TCP, gRPC and Arrow IPC on both sides), and then:
//   - per id count: the seed query in process (engine.DB.Query, every batch
//     read) and through Flight SQL (a prepared statement: bind the ids as a
//     list<int64>, GetFlightInfo, DoGet, every batch read), medians of -runs;
//     both answers are checked to be the same rows first;
//   - per client count N: N clients, each on its own connection with its own
//     prepared statement, run the 10K-id take for -duration; the report gives
//     queries/s and ids/s;
//   - per id count of -partids: the seed query without ORDER BY, which the
//     server splits into -max-endpoints endpoints by fragment (package
//     server, takesplit.go), its endpoints read by 1, 2, 4 (-readers) goroutines
//     at once, each with its own DoGet; the answer is checked against the
//     in-process one first. The table is built in -fragments appends, so
//     its rows sit in that many fragments.
package main
