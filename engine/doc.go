// Package engine ties stablerow together: a database is a set of tables
// (package table), each queried through one path — SQL (plan/sql) lowers to
// Substrait, the planner (plan) builds exec nodes against this package's
// catalog, and the nodes run with the caller's allocator. BTree indexes
// (index/btree) are built, recorded in the table manifest and opened here;
// the catalog hands them to the planner as TakeByKey probes.
//
// Every statement reads one snapshot per table, taken when the statement
// starts, so a query never mixes versions.
package engine
