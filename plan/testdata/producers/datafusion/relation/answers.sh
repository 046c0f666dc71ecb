#!/usr/bin/env bash
# Writes <group>/<name>.tsv here: PostgreSQL's answer to the consumer test
# suite's SQL for a relation test (<group>/<name>.sql) over the SF 0.01
# data of bench/tpch's generator (bench/cmd/tpchpg writes it for COPY, with
# the specification's column types). bench/tpch's TestProducersRelations
# compares DataFusion's plan for the test with it: the answer comes from
# PostgreSQL 15, never from stablerow.
#
# One row a line, columns separated by tabs, NULL as NULL, values in
# PostgreSQL's text output. The server is private to this run, started as
# difftest/run.sh starts its own, and removed on exit.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../../.." && pwd)
# shellcheck source=../../tpch-pg/pgstart.sh
PG_TMP_PREFIX=df-relation-pg
source "$HERE/../../tpch-pg/pgstart.sh"
"${PSQL[@]}" -A -t -c "SELECT version()" >"$HERE/VERSION"

# Each plan's answer: <group>/<name>.tsv, PostgreSQL's answer to the
# suite's SQL beside it (<name>.sql). A plan listed in README.md as not
# compared (a cross join's 22.5 million rows) has no .sql.
for sql in "$HERE"/*/*.sql; do
	"${PSQL[@]}" -A -t -F $'\t' -P null=NULL -f "$sql" >"${sql%.sql}.tsv.tmp"
done
for f in "$HERE"/*/*.tsv.tmp; do mv "$f" "${f%.tmp}"; done
# An answer over 64 KiB is kept as <name>.sum: its row count and the
# SHA-256 of its rows, each cell normalized as bench/tpch's cellEqual
# compares (trailing blanks of a CHAR(n) dropped, a decimal's trailing
# zeros after the point dropped), sorted bytewise, each row ending in a
# newline (TestProducersRelations hashes the engine's rows the same way).
for f in "$HERE"/*/*.tsv; do
	if [ "$(stat -c %s "$f")" -gt 65536 ]; then
		echo "$(wc -l <"$f") $(awk -F'\t' -v OFS='\t' '{
			for (i = 1; i <= NF; i++) {
				sub(/ +$/, "", $i)
				if ($i ~ /^-?[0-9]+\.[0-9]+$/) { sub(/0+$/, "", $i); sub(/\.$/, "", $i) }
			}
			print
		}' "$f" | LC_ALL=C sort | sha256sum | cut -d' ' -f1)" >"${f%.tsv}.sum"
		rm "$f"
	fi
done
