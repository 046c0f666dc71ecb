//go:build !race

package engine_test

// raceOn: the test binary runs under the race detector (go test -race).
const raceOn = false
