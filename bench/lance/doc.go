// Package lance drives LanceDB (@lancedb/lancedb 0.31.0 under Node) as a
// second peer of the stablerow benchmark (issue 19).
//
// LanceDB has no Go binding, so the engine is a Node process running
// peer.cjs (this directory; `npm ci` installs its one dependency). The Go
// side speaks JSON lines to it over a pipe and moves bulk data (columns, id
// lists, answers) through little-endian binary files in a scratch
// directory. Node times each take itself, from handing takeRowIds its id
// list to holding the answer in the request's shape; peer.RunCase uses that
// figure (peer.SelfTimer), so the pipe and the files are not counted.
//
// The table is the generator's t(k, payload), created with stable row ids
// (storage option new_table_enable_stable_row_ids), so row i has row id i,
// as in stablerow. LanceDB's takeRowIds differs from the seed take: it drops
// ids that miss and repeats, and returns rows in address order. To compare
// like with like, peer.cjs restores the seed contract (one row per requested
// id, request order, NULL for a miss) through a hash map from row id to
// result row, inside the timing; the raw takeRowIds time is reported beside
// it in the plan column. LanceDB addresses are its own, so its answers carry
// no stablerow _rowaddr (peer.TakeRows.NoAddr): it runs the take+payload
// workloads, and the content check (k and payload by id) like every engine.
//
//	               request (JSON line)
//	Go Engine  ───────────────────────────►  node peer.cjs
//	    ▲        ids.bin / k.bin / ...           │ takeRowIds, restore
//	    └──────────── reply (JSON line) ◄────────┘ answer.bin
package lance
