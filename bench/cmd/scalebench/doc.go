// Command scalebench measures how the take by row id scales with the
// table (issue 17 §2): for each table size it builds t on local disk
// (generated rows in 1M-row fragments, a BTree on _rowid), then measures
//
//   - the cold take: a fresh process opens the database and takes 1 id
//     (its wall time from exec to answer, its peak RSS, the index pages it
//     decoded);
//   - warm takes of 1, 10K and 1M ids, each size in a process of its own
//     after a warm-up take (median latency, the process's peak RSS);
//   - the index's bytes per row (pages on disk, and the lookup every open
//     reads and keeps), and a rowmap's bytes per row (a 1M-row table
//     reclustered by a random column);
//
// and, with -versitygw, the same takes on the S3 store against Versity
// Gateway on localhost (the local table uploaded object by object): the
// requests and bytes a cold and a warm take of 1 and 10K ids cost. It
// writes a markdown report and a log-log PNG plot of take latency against
// table size for both stores.
//
//	cd bench && go run ./cmd/scalebench -rows 1000000,10000000,100000000 -dir /tmp/scale \
//	    -versitygw $(go env GOPATH)/bin/versitygw -out ../scale-report.md -plot ../docs/scale.png
//
// Tables are kept in -dir and reused by later runs (a table is built once;
// -build-only builds them and stops, so a big one can be built ahead).
package main
