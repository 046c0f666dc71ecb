package exec

import "testing"

// HashedJoinIndex makes the hash joins built during t index their build
// side with the hash table only, never densely (denseindex.go), so tests
// can check the two against each other.
func HashedJoinIndex(t testing.TB) { hashedJoinIndex(t) }

func hashedJoinIndex(t testing.TB) {
	old := denseJoinIndex
	denseJoinIndex = false
	t.Cleanup(func() { denseJoinIndex = old })
}
