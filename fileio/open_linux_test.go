package fileio

import "testing"

// withOpeners runs f with openat2 and again with the component walk that
// stands in for it where the kernel lacks it.
func withOpeners(t *testing.T, f func(t *testing.T)) {
	t.Run("openat2", f)
	t.Run("walk", func(t *testing.T) {
		noOpenat2.Store(true)
		defer noOpenat2.Store(false)
		f(t)
	})
}
