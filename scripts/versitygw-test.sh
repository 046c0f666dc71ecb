#!/usr/bin/env bash
# The S3 store's tests against a real S3 server process: Versity Gateway
# v1.8.0 (go-installed here on first use, ~6 min on 2 cores), posix backend
# on temporary directories, listening on free ports of 127.0.0.1. The test
# binary starts and stops the gateways itself (STABLEROW_VERSITYGW names
# the binary; see table/store/s3store/s3test/gateway_test.go), so a test
# can kill its server mid-commit and restart it. Then the Beam pipelines'
# S3 tests (beam/pipeline) against a gateway of their own.
#
#   scripts/versitygw-test.sh                 # every s3test test once, then the
#                                             # concurrency and kill tests S3_ROUNDS (20) times
#   S3_ROUNDS=3 scripts/versitygw-test.sh     # fewer rounds (CI)
#   scripts/versitygw-test.sh -check          # exit 0 iff the pinned versitygw is installed
#   scripts/versitygw-test.sh -path           # install it if needed, print its path (make bench-scale)
#   GOFLAGS=-race scripts/versitygw-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

version=v1.8.0
gobin="$(go env GOBIN)"
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
vgw="$gobin/versitygw"
# go install embeds no version string in the binary; its module record does.
installed() {
	go version -m "$vgw" 2>/dev/null | grep -Eq "^[[:space:]]+mod[[:space:]]+github.com/versity/versitygw[[:space:]]+${version//./\\.}[[:space:]]"
}
if [ "${1:-}" = "-check" ]; then
	installed
	exit
fi
if ! installed; then
	echo "versitygw-test: go install github.com/versity/versitygw/cmd/versitygw@$version" >&2
	GOBIN="$gobin" go install "github.com/versity/versitygw/cmd/versitygw@$version"
fi
if [ "${1:-}" = "-path" ]; then
	echo "$vgw"
	exit
fi

rounds="${S3_ROUNDS:-20}"
cd table/store/s3store/s3test
export STABLEROW_VERSITYGW="$vgw"
echo "versitygw-test: every test against $vgw" >&2
go test -count=1 -timeout 20m ./...
echo "versitygw-test: the concurrency and kill tests, $rounds rounds" >&2
go test -count="$rounds" -timeout 30m -run '^(TestConcurrentCommits|TestGatewayKilledMidCommit)$' .
# The Beam pipelines (compact with a task failing once, and take: ids, table
# and output all on S3) on Prism against the same gateway build.
echo "versitygw-test: the Beam pipelines on S3" >&2
cd ../../../../beam
go test -count=1 -timeout 15m -run 'OnS3$' ./pipeline/
