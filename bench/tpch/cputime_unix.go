//go:build unix

package tpch

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the process has used so
// far: on a shared, loaded machine a query's CPU time says more than its
// wall time, which waits for the cores.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the process's peak resident set so far, in bytes (Linux
// reports ru_maxrss in KiB).
func peakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return int64(ru.Maxrss) << 10
}
