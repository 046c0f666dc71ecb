//go:build !linux

package fileio

import "testing"

// withOpeners runs f with the one way this system opens beneath a root.
func withOpeners(t *testing.T, f func(t *testing.T)) { f(t) }
