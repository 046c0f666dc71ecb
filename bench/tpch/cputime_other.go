//go:build !unix

package tpch

import "time"

// processCPU is not measured here: 0.
func processCPU() time.Duration { return 0 }

// peakRSS is not measured here: 0.
func peakRSS() int64 { return 0 }
