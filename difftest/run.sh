#!/usr/bin/env bash
# Starts a throw-away PostgreSQL server and runs the differential test
# against it: stablerow (in process) and PostgreSQL get the same SQL text and
# must give the same answers. All arguments go to the Go program
# (cmd/difftest: -seed, -cases, -duration, -regressions, ...).
#
# The server is private to this run: a data directory in a fresh temporary
# directory owned by an unprivileged user, listening on 127.0.0.1 on a free
# port and on a unix socket in that directory, stopped (and the directory
# removed) on every exit path. A system-wide cluster is never touched.
# If initdb is missing, Debian's postgresql package is installed first.
set -euo pipefail
cd "$(dirname "$0")"

find_bindir() {
	local d
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && { echo "$d"; return 0; }
	done
	command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
	return 1
}

if ! BINDIR=$(find_bindir); then
	echo "difftest: initdb not found; installing Debian's postgresql package" >&2
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO="sudo"
	# Only the binaries are wanted: keep the package from creating (and
	# starting) a system-wide cluster of its own.
	$SUDO mkdir -p /etc/postgresql-common/createcluster.d
	echo "create_main_cluster = false" | $SUDO tee /etc/postgresql-common/createcluster.d/difftest.conf >/dev/null
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
	BINDIR=$(find_bindir) || { echo "difftest: initdb still missing after install" >&2; exit 1; }
fi

# PostgreSQL refuses to run as root: run it as an unprivileged user (the
# package's postgres user; else one created for this).
RUNAS=()
if [ "$(id -u)" -eq 0 ]; then
	PGUSER_OS=postgres
	if ! id "$PGUSER_OS" >/dev/null 2>&1; then
		PGUSER_OS=difftest
		id "$PGUSER_OS" >/dev/null 2>&1 || useradd --system --no-create-home "$PGUSER_OS"
	fi
	# env -C /: the server's user may not enter the caller's directory
	# (a mktemp -d clone is 0700), and every path passed is absolute.
	RUNAS=(runuser -u "$PGUSER_OS" -- env -C /)
fi

TMP=$(mktemp -d /tmp/difftest-pg.XXXXXX)
chmod 755 "$TMP"
[ ${#RUNAS[@]} -gt 0 ] && chown "$PGUSER_OS" "$TMP"
DATA="$TMP/data"

cleanup() {
	if [ -f "$DATA/postmaster.pid" ]; then
		"${RUNAS[@]}" "$BINDIR/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

# A free port: ask the kernel for one.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000)))

# C collation and UTF8: text compares bytewise, as stablerow compares Go
# strings. LC_CTYPE C.UTF-8: lower/upper/ILIKE map case per Unicode
# character, as stablerow does (under LC_CTYPE=C they fold ASCII only).
"${RUNAS[@]}" "$BINDIR/initdb" -D "$DATA" -U difftest --auth=trust --no-locale --lc-ctype=C.UTF-8 -E UTF8 >"$TMP/initdb.log" 2>&1 ||
	{ cat "$TMP/initdb.log" >&2; exit 1; }
"${RUNAS[@]}" "$BINDIR/pg_ctl" -D "$DATA" -l "$TMP/server.log" -w -t 60 \
	-o "-c listen_addresses=127.0.0.1 -p $PORT -k $TMP -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null ||
	{ cat "$TMP/server.log" >&2; exit 1; }

GO=${GO:-go}
set +e
"$GO" run ./cmd/difftest -dsn "host=$TMP port=$PORT user=difftest dbname=postgres sslmode=disable" "$@"
status=$?
set -e
exit $status
