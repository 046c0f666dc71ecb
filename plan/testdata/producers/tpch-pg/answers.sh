#!/usr/bin/env bash
# Writes qNN.tsv here: PostgreSQL's answer to the consumer test suite's SQL
# for TPC-H query NN (../<producer>/tpch/qNN.sql) over the SF 0.01 data of
# bench/tpch's generator (bench/cmd/tpchpg writes it for COPY, with the
# specification's column types). bench/tpch's TestProducersTPCH compares
# every producer's plan for the query with it: the answer comes from
# PostgreSQL 15, never from stablerow.
#
# One row a line, columns separated by tabs, NULL as NULL, values in
# PostgreSQL's text output. The server is private to this run, started as
# difftest/run.sh starts its own, and removed on exit.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
# shellcheck source=pgstart.sh
source "$HERE/pgstart.sh"
"${PSQL[@]}" -A -t -c "SELECT version()" >"$HERE/VERSION"

for sql in "$HERE"/../*/tpch/q??.sql; do
	q=$(basename "$sql" .sql)
	[ -f "$HERE/$q.tsv.tmp" ] && continue
	"${PSQL[@]}" -A -t -F $'\t' -P null=NULL -f "$sql" >"$HERE/$q.tsv.tmp"
done
# A plan that computes other than the suite's SQL (a producer's bug, named
# in its README) has qNN.plan.sql beside it, the SQL of what it computes:
# its answer is <producer>-qNN.plan.tsv.
for sql in "$HERE"/../*/tpch/q??.plan.sql; do
	[ -f "$sql" ] || continue
	producer=$(basename "$(dirname "$(dirname "$sql")")")
	q=$(basename "$sql" .plan.sql)
	"${PSQL[@]}" -A -t -F $'\t' -P null=NULL -f "$sql" >"$HERE/$producer-$q.plan.tsv.tmp"
done
for f in "$HERE"/*.tsv.tmp; do mv "$f" "${f%.tmp}"; done
