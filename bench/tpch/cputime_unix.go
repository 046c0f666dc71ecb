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
