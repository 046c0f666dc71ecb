//go:build race

package sqltest

// raceOn: the test binary runs under the race detector (go test -race);
// race_on_test.go says the same to the external tests.
const raceOn = true
