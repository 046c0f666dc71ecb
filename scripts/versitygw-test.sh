#!/usr/bin/env bash
# Runs s3store's server tests against a real S3 server process: Versity
# Gateway v1.8.0 (installed with go install), posix backend on a temporary
# directory, listening on a free port of 127.0.0.1. The same tests run
# against the in-process gofakes3 when STABLEROW_S3_TEST_BUCKET is unset.
#
#   scripts/versitygw-test.sh            # from the repository root
#   GOFLAGS=-race scripts/versitygw-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

gobin="$(go env GOBIN)"
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
vgw="$gobin/versitygw"
# go install embeds no version string in the binary; its module record does.
if ! go version -m "$vgw" 2>/dev/null | grep -Eq '^[[:space:]]+mod[[:space:]]+github.com/versity/versitygw[[:space:]]+v1\.8\.0[[:space:]]'; then
	echo "versitygw-test: go install github.com/versity/versitygw/cmd/versitygw@v1.8.0" >&2
	GOBIN="$gobin" go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
fi

tmp="$(mktemp -d)"
pid=""
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/data" "$tmp/sidecar"

# A free port: bind port 0, read the number back, release it.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
key=stablerowtest
secret=stablerowtestsecret
# --sidecar keeps object metadata in files, so the data directory needs no
# extended attribute support (tmpfs and overlay file systems vary).
"$vgw" --access "$key" --secret "$secret" --region us-east-1 --port "127.0.0.1:$port" \
	posix --sidecar "$tmp/sidecar" "$tmp/data" >"$tmp/versitygw.log" 2>&1 &
pid=$!

for _ in $(seq 1 100); do
	if curl -s -o /dev/null "http://127.0.0.1:$port/"; then break; fi
	if ! kill -0 "$pid" 2>/dev/null; then cat "$tmp/versitygw.log" >&2; exit 1; fi
	sleep 0.1
done

cd table/store/s3store/s3test
env AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_ACCESS_KEY_ID="$key" AWS_SECRET_ACCESS_KEY="$secret" \
	AWS_REGION=us-east-1 AWS_CA_BUNDLE= AWS_CONFIG_FILE=/nonexistent AWS_SHARED_CREDENTIALS_FILE=/nonexistent \
	AWS_EC2_METADATA_DISABLED=true STABLEROW_S3_TEST_BUCKET=stablerow-it \
	go test -count=1 -v -run 'TestStoreContract|TestListPaginates|TestPutIfAbsentRace|TestReadRangesCoalesced|TestCachedReader|TestTableOnS3' . ||
	{ echo "versitygw-test: gateway log:" >&2; tail -50 "$tmp/versitygw.log" >&2; exit 1; }
