#!/usr/bin/env bash
# Runs a test command (make test's steps: `make test-steps`), passing its
# output through, and ends with one summary line of the Go test packages
# it ran, however it ended (a failed step included):
#
#   make test: packages: 41 passed, 0 failed, 12 skipped
#
# passed: `ok` lines; failed: `FAIL<tab>package` lines (not a test's
# `--- FAIL`, nor the bare `FAIL` go test prints before its package line,
# so each failed package counts once); skipped: packages without tests
# (`?   package [no test files]`). .ci/run prints the same counts for its
# log. The exit status is the command's: a FAIL line does not override it,
# because scripts/beam-race-test.sh repeats a run that failed only on the
# Beam SDK's own data race, and the first run's FAIL line stays in the log
# (the count then says so, and the run still passes).
set -uo pipefail
log=$(mktemp "${TMPDIR:-/tmp}/stablerow-test.XXXXXX")
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -cE '^ok[[:space:]]' "$log")
failed=$(grep -cE '^FAIL[[:space:]]+[^[:space:]]' "$log")
skipped=$(grep -cE '^\?[[:space:]]' "$log")
echo "make test: packages: $passed passed, $failed failed, $skipped skipped"
exit "$status"
