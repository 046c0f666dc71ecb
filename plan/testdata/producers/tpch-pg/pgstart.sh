# Sourced by the answers.sh scripts beside the producers' fixtures: starts
# a private PostgreSQL 15 server, as difftest/run.sh starts its own, loads
# the SF 0.01 data of bench/tpch's generator into it (bench/cmd/tpchpg
# writes it for COPY, with the specification's column types) and sets PSQL
# to a psql command line for it. The server and its files are removed when
# the sourcing script exits. Needs ROOT (the repository); PG_TMP_PREFIX
# names the temporary directory.
BINDIR=${BINDIR:-$(dirname "$(command -v initdb)")}

RUNAS=()
if [ "$(id -u)" -eq 0 ]; then
	RUNAS=(runuser -u postgres -- env -C /)
fi
TMP=$(mktemp -d "/tmp/${PG_TMP_PREFIX:-tpch-pg}.XXXXXX")
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
