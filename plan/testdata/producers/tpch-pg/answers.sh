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
BINDIR=${BINDIR:-$(dirname "$(command -v initdb)")}

RUNAS=()
if [ "$(id -u)" -eq 0 ]; then
	RUNAS=(runuser -u postgres -- env -C /)
fi
TMP=$(mktemp -d /tmp/tpch-pg.XXXXXX)
chmod 755 "$TMP"
[ ${#RUNAS[@]} -gt 0 ] && chown postgres "$TMP"
DATA="$TMP/data"
cleanup() {
	if [ -f "$DATA/postmaster.pid" ]; then
		"${RUNAS[@]}" "$BINDIR/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

mkdir "$TMP/load"
(cd "$ROOT/bench" && "${GO:-go}" run ./cmd/tpchpg -sf 0.01 -dir "$TMP/load")
chmod -R a+rX "$TMP/load"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"${RUNAS[@]}" "$BINDIR/initdb" -D "$DATA" -U tpch --auth=trust --no-locale --lc-ctype=C.UTF-8 -E UTF8 >"$TMP/initdb.log" 2>&1 ||
	{ cat "$TMP/initdb.log" >&2; exit 1; }
"${RUNAS[@]}" "$BINDIR/pg_ctl" -D "$DATA" -l "$TMP/server.log" -w -t 60 \
	-o "-c listen_addresses=127.0.0.1 -p $PORT -k $TMP -c fsync=off" start >/dev/null ||
	{ cat "$TMP/server.log" >&2; exit 1; }

PSQL=("${PSQL_BIN:-$(command -v psql)}" -X -q -v ON_ERROR_STOP=1 -h "$TMP" -p "$PORT" -U tpch -d postgres)
(cd "$TMP/load" && "${PSQL[@]}" -f load.sql)
"${PSQL[@]}" -c "ANALYZE"
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
