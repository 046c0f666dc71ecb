#!/usr/bin/env bash
# Runs beam/pipeline's tests under the race detector (make test).
#
# The Beam Go SDK v2.78.0 harness has a data race of its own: at worker
# shutdown MainWithOptions closes its response channel (harness.go:228)
# while a bundle goroutine may still send on it (the send checks a
# shutdown flag first, which does not order it against the close). The race
# detector reports it in whichever of our tests is running, one run in many
# (seen in CI on TestCompactCrash, 2026-12-05). It is not ours to fix, so a
# failed run is repeated once, and only when every failure is a race report
# and no report has a frame of this module; any other failure fails at once.
#
# TestCompactCrash makes a pipeline fail on purpose (a task that always
# fails), so the harness shuts down with bundles in flight: it hit the SDK's
# race in three clean-clone CI runs of 2026-12-05 in a row, retry included.
# It runs without the race detector; every other test runs with it (the
# compaction tasks it runs are raced in TestCompact* beside it).
set -uo pipefail
cd "$(dirname "$0")/../beam"
sdk_race_tests='^TestCompactCrash$'
go test -short -count=1 -timeout 15m -run "$sdk_race_tests" ./pipeline/ || exit $?

# only_sdk_races LOG: every failed test failed for a race report, and no
# report names a stablerow frame.
only_sdk_races() {
	local fails races
	fails=$(grep -c -- '^--- FAIL' "$1" || true)
	races=$(grep -c 'race detected during execution of test' "$1" || true)
	[ "$fails" -gt 0 ] && [ "$fails" -eq "$races" ] || return 1
	awk '/^WARNING: DATA RACE/ {in_=1; next} /^==================/ {in_=0} in_ && /github.com\/stablerow\/stablerow/ {found=1} END {exit found}' "$1"
}

for attempt in 1 2; do
	log=$(mktemp)
	go test -race -short -count=1 -timeout 15m -skip "$sdk_race_tests" ./pipeline/ 2>&1 | tee "$log"
	st=${PIPESTATUS[0]}
	if [ "$st" -eq 0 ]; then
		rm -f "$log"
		exit 0
	fi
	if [ "$attempt" -eq 1 ] && only_sdk_races "$log"; then
		echo "beam-race-test: the failure is the Beam SDK harness's own race (no stablerow frame); running once more"
		rm -f "$log"
		continue
	fi
	rm -f "$log"
	exit "$st"
done
