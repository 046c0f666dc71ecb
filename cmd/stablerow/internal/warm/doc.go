// Package warm readies, on a second goroutine, the protobuf state the
// first SQL statement of a `stablerow sql` or `stablerow substrait`
// process would otherwise build on the main goroutine: the runtime's
// per-message tables (descriptors, reflection, codecs) of the Postgres
// parse tree pg_query hands back, and of the Substrait messages a take
// plan is made of. A fresh process pays that once, ~14% of a cold
// `stablerow sql -e` of the seed take: pg_query's file descriptor and
// parse-tree messages on the first Parse and Scan, Substrait's on the
// first plan decode (issue 15 item 4).
//
// The work starts at package initialization, as soon as pg_query and the
// Substrait protobuf package are initialized, so it overlaps the rest of
// the process's start (apd's tables, arrow's compute registry, the AWS
// SDK's endpoint tables, Flight's descriptors) as well as flag parsing and
// opening the database. It is not extra work: each message's state is
// built under its own once, so whichever goroutine comes first builds it
// and the other waits for it or finds it done. A statement that needs
// other messages only loses the overlap.
//
//	main goroutine:  [init: ... pg_query, substraitpb | apd, compute, AWS, Flight ...] [main: flags, open] [scan, parse] [lower, plan] ...
//	warm goroutine:                                    [decode scan tokens, parse tree] [Substrait plan, UNNEST detail]
//	go sql.Warm() in main:                                                                [extension collection]
//
// The warm-up decodes the parser's own protobuf output for the seed take
// (embedded; the C parser does not run on the warm-up's thread), then the
// seed take's Substrait plan. Package gcstart runs ~11th of the CLI's 276
// initializers and this one right after pg_query and the Substrait
// protobuf package (~121st), ~9M instructions before main.
//
// Only package main of cmd/stablerow imports it, for its side effect; the
// other commands (demo, serve, inspect, vacuum) do not start it.
package warm
